"""``/healthz``, ``/readyz`` and ``/metrics``."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import engine
from service.app import create_app
from service.settings import Settings
from tests.service.http_player import HttpGame
from tests.waiting import WAIT_SECONDS, eventually_async

Client = TestClient[Litestar]


def metric(text: str, name: str, labels: str = "") -> float:
    """The value of one sample in Prometheus text, 0 if absent."""
    pattern = re.escape(name) + (re.escape("{" + labels + "}") if labels else r"(?:\{[^}]*\})?")
    total = 0.0
    for match in re.finditer(rf"^{pattern} (\S+)$", text, re.MULTILINE):
        total += float(match[1])
    return total


def test_health_and_readiness(client: Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready", "store": "memory"}


def test_metrics_count_requests_games_actions_and_analyses(client: Client) -> None:
    before = client.get("/metrics").text
    game = HttpGame.create(client, 2, "online", seed=1)
    game.play_turn()  # a draw, an analysis, a discard
    client.post(
        f"/v1/games/{game.game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers={**game.auth(game.view()["turn"]), "Idempotency-Key": "k"},
    )
    client.post(
        f"/v1/games/{game.game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers={**game.auth(game.view()["turn"]), "Idempotency-Key": "k"},
    )
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    after = response.text

    def grew(name: str, labels: str = "") -> float:
        return metric(after, name, labels) - metric(before, name, labels)

    assert grew("three_thirteen_games_created_total", 'preset="online"') == 1
    assert grew("three_thirteen_actions_applied_total", 'type="draw"') == 2
    assert grew("three_thirteen_actions_applied_total", 'type="discard"') == 1
    assert grew("three_thirteen_actions_replayed_total") == 1
    assert grew("three_thirteen_analyses_run_total") == 1
    # Litestar's middleware: counts and latencies per route template, not per game id.
    assert 'path="/v1/games/{game_id}/actions"' in after
    assert "three_thirteen_request_duration_seconds_bucket" in after
    assert game.game_id not in after


METRICS_TOKEN = "scrape-" + "x" * 24


def test_metrics_answer_anyone_without_a_metrics_token(client: Client) -> None:
    """A deployment that sets no METRICS_TOKEN serves /metrics as before, whatever is sent."""
    for headers in ({}, {"Authorization": "Bearer anything"}, {"Authorization": "Basic eA=="}):
        assert client.get("/metrics", headers=headers).status_code == 200, headers


def test_metrics_ask_for_the_metrics_token_when_one_is_set() -> None:
    with TestClient(create_app(Settings(metrics_token=METRICS_TOKEN))) as client:
        for headers in (
            {},
            {"Authorization": "Bearer wrong-token-of-the-same-kind"},
            {"Authorization": f"Bearer {METRICS_TOKEN}x"},
            {"Authorization": f"Basic {METRICS_TOKEN}"},
            {"Authorization": METRICS_TOKEN},
        ):
            refused = client.get("/metrics", headers=headers)
            assert refused.status_code == 401, headers
            assert refused.headers["content-type"].startswith("application/problem+json")
            problem = refused.json()
            assert problem["type"] == "urn:three-thirteen:problem:metrics-token-required"
            assert METRICS_TOKEN not in refused.text
        allowed = client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert allowed.status_code == 200
        assert "three_thirteen_requests_total" in allowed.text
        # The probes stay open: an orchestrator sends no token.
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 200


OPERATIONS_DOC = Path(__file__).parents[3] / "docs" / "operations.md"
_ROW = re.compile(r"^\| `(\w+)` \| (\w+) \|([^|]*)\|", re.MULTILINE)
_TYPE_LINE = re.compile(r"^# TYPE (\w+) (\w+)$", re.MULTILINE)
_SAMPLE = re.compile(r"^(\w+)(?:\{(.*)\})? \S+$", re.MULTILINE)
_SAMPLE_SUFFIXES = ("", "_bucket", "_sum", "_count")


def documented_metrics() -> dict[str, tuple[str, frozenset[str]]]:
    """The table of docs/operations.md's "Metrics": each metric's type and labels, by name."""
    section = OPERATIONS_DOC.read_text(encoding="utf-8").split("\n## Metrics\n", 1)[1]
    table = section.split("\n## ", 1)[0]
    return {
        name: (kind, frozenset(re.findall(r"`(\w+)`", labels)))
        for name, kind, labels in _ROW.findall(table)
    }


def scraped_metrics(text: str) -> dict[str, tuple[str, frozenset[str] | None]]:
    """Each metric of a scrape by its name as the text declares it (a counter's ``_total``
    included), with its type and the labels of its samples (None: it has none yet). A counter's
    or a histogram's ``_created`` companion is left out."""
    kinds = dict(_TYPE_LINE.findall(text))
    labels: dict[str, set[str]] = {}
    for sample, pairs in _SAMPLE.findall(text):
        family = next((f for f in _families_of(sample) if f in kinds), sample)
        labels.setdefault(family, set()).update(re.findall(r'(\w+)="', pairs))
    companions = {
        name
        for name in kinds
        if (stem := name.removesuffix("_created")) != name
        and kinds.keys() & {stem, stem + "_total"}
    }
    return {
        name: (kind, None if name not in labels else frozenset(labels[name] - {"le"}))
        for name, kind in kinds.items()
        if name not in companions
    }


def _families_of(sample: str) -> list[str]:
    """The metrics a sample may belong to: itself, or a histogram's without its suffix."""
    return [sample.removesuffix(end) for end in _SAMPLE_SUFFIXES]


def test_the_operations_guide_lists_every_metric_a_scrape_returns(client: Client) -> None:
    """docs/operations.md's table names exactly the metrics of a real scrape after some traffic
    (a game created, an action taken, a 5xx answered), each with its type and labels."""
    # Litestar's middleware makes its errors' counter at the first 5xx.
    with TestClient(create_app(Settings(redis_url="redis://127.0.0.1:1/0"))) as unreachable:
        assert unreachable.get("/readyz").status_code == 503
    game = HttpGame.create(client, 2, "online", seed=1)
    game.play_turn()
    scraped = scraped_metrics(client.get("/metrics").text)
    documented = documented_metrics()
    assert sorted(documented) == sorted(scraped)
    for name, (kind, labels) in scraped.items():
        assert documented[name][0] == kind, name
        if labels is not None:
            assert documented[name][1] == labels, name
    with_samples = {name for name, (_, labels) in scraped.items() if labels is not None}
    assert {
        "three_thirteen_requests_total",
        "three_thirteen_requests_error_total",
        "three_thirteen_games_created_total",
        "three_thirteen_actions_applied_total",
    } <= with_samples


# Larger than any deal (16 cards at most), so analysed off the event loop.
HUGE_HAND = ["TS", "2C", "AD", "QS", "4C", "6H", "TC", "JD", "7C", "8S", "JK", "8H", "KC", "JH"] * 2


def test_a_huge_hand_does_not_stall_other_requests(
    app: Litestar, live_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hands larger than any deal are analysed off the event loop. The analysis here spins for
    half a second first, holding the GIL like a slow search, however fast the analyser gets."""
    analyse = engine.analyse

    def slow_analyse(*args: Any) -> engine.Analysis:
        until = time.perf_counter() + 0.5
        while time.perf_counter() < until:
            pass
        return analyse(*args)

    monkeypatch.setattr(engine, "analyse", slow_analyse)  # the live server runs in this process

    async def scenario() -> tuple[float, float, int]:
        async with httpx.AsyncClient(base_url=live_server, timeout=WAIT_SECONDS) as client:
            started = time.perf_counter()
            slow = asyncio.create_task(
                client.post("/v1/analyse", json={"hand": HUGE_HAND, "wild": "3", "rules": "online"})
            )
            analyses = app.state["services"].analyses
            await eventually_async(lambda: analyses.pending > 0, "the analysis handed to a worker")
            await client.get("/healthz")
            healthz_after = time.perf_counter() - started
            response = await slow
            return healthz_after, time.perf_counter() - started, response.status_code

    healthz_after, analysis_after, status = asyncio.run(scenario())
    assert status == 200
    assert healthz_after < analysis_after / 2, (healthz_after, analysis_after)

"""``POST /v1/records`` replays in a worker process, within a budget: the instance answers
``/healthz`` while a large import is replayed, a record of more actions than
``MAX_IMPORT_VERSIONS`` is a 413 naming the limit, and a record refused in the worker names its
line as one refused on the event loop did. Every wait polls for its condition with a deadline."""

from __future__ import annotations

import threading
from typing import Any

import httpx
from litestar import Litestar
from litestar.testing import TestClient

from engine.records import MAX_RECORD_BYTES
from service.records.imports import MAX_IMPORT_VERSIONS
from tests.service.games.test_games_api import assert_problem
from tests.service.records.long_records import long_finished_game, long_record_text
from tests.waiting import eventually

TEXT = {"Content-Type": "text/plain"}
LARGE_STALLS = 24_000
"""A legal record of some 48,000 actions in about 1 MB: its replay takes a second or more."""
TOO_LONG_STALLS = 40_000
"""Some 80,000 actions in 1.8 MB: within the bytes, past the actions."""
WAIT_SECONDS = 120


def test_healthz_answers_while_a_large_import_is_replayed(
    app: Litestar, live_server: str, http: httpx.Client
) -> None:
    text = long_record_text(LARGE_STALLS).encode()
    assert len(text) <= MAX_RECORD_BYTES
    assert long_finished_game(LARGE_STALLS).version <= MAX_IMPORT_VERSIONS
    pool = app.state["services"].analyses
    answers: list[httpx.Response] = []

    def post() -> None:
        with httpx.Client(timeout=WAIT_SECONDS) as own:
            answers.append(own.post(f"{live_server}/v1/records", content=text, headers=TEXT))

    importer = threading.Thread(target=post)
    importer.start()
    try:
        eventually(
            lambda: pool.pending, "the work to reach a worker", until=lambda pending: pending >= 1
        )
        health = http.get(f"{live_server}/healthz")
        # Answered while the import was still in its worker: it had not come back yet.
        still_pending = pool.pending
        assert health.status_code == 200, health.text
        assert still_pending >= 1
        assert not answers
    finally:
        importer.join(timeout=WAIT_SECONDS)
    assert answers[0].status_code == 201, answers[0].text
    assert answers[0].json()["status"] == "finished"


def test_a_record_of_more_actions_than_the_budget_is_a_413_naming_it(
    client: TestClient[Litestar],
) -> None:
    text = long_record_text(TOO_LONG_STALLS)
    assert len(text.encode()) <= MAX_RECORD_BYTES  # within the bytes: the actions refuse it
    response = client.post("/v1/records", content=text, headers=TEXT)
    problem = assert_problem(response, 413, "record-too-long", "rounds")
    assert "MAX_IMPORT_VERSIONS" in problem["detail"]


def test_a_record_refused_in_the_worker_names_its_line_and_path(
    client: TestClient[Litestar],
) -> None:
    lines = long_record_text(1).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("1. "))
    lines[at] = lines[at].replace("draw discard", "draw stock")  # the card drawn is not so
    text = "\n".join(lines) + "\n"
    response = client.post("/v1/records", content=text, headers=TEXT)
    assert_problem(response, 422, "record-not-legal", f"line {at + 1}")
    broken: dict[str, Any] = {"format": "nonsense"}
    assert client.post("/v1/records", json=broken).status_code == 422

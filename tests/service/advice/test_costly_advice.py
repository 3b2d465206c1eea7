"""Costly ``POST /v1/advise`` requests leave the event loop: draw-phase advice for more than
``ADVICE_INLINE_CARDS`` cards is computed in the analyses' worker processes, answered as it would
be on the loop (its refusals too), and refused with 503 when the pool's queue is full."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine import advice as engine_advice
from service.advice import routes as advice_routes
from service.advice.routes import ADVICE_INLINE_CARDS
from service.advice.wire import AdviseRequest
from service.app import create_app
from service.settings import Settings
from tests.service.costly_hands import COSTLY_ADVICE
from tests.service.games.test_games_api import assert_problem
from tests.service.workers.test_analysis_pool import HeldWorker, pool_of

COSTLY: Final = COSTLY_ADVICE


@pytest.fixture
def pooled() -> Iterator[tuple[Litestar, TestClient[Litestar]]]:
    app = create_app(Settings(analysis_processes=1, analysis_queue=0))
    with TestClient(app) as client:
        yield app, client


def on_the_loop(body: dict[str, Any]) -> Any:
    """The advice as this process computes it."""
    asked = advice_routes._advising(msgspec.convert(body, AdviseRequest))
    return msgspec.to_builtins(advice_routes.advised(asked))


def test_costly_advice_is_computed_in_another_process(
    pooled: tuple[Litestar, TestClient[Litestar]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, client = pooled
    assert len(COSTLY["hand"]) > ADVICE_INLINE_CARDS
    expected = on_the_loop(COSTLY)
    cheap = {**COSTLY, "hand": COSTLY["hand"][:ADVICE_INLINE_CARDS]}
    cheap_expected = on_the_loop(cheap)
    assert client.post("/v1/advise", json=cheap).json() == cheap_expected
    assert pool_of(app).started is False  # a hand of a small round stays in this process

    def not_here(*_: Any, **__: Any) -> Any:
        raise AssertionError("advised in the event loop's process")

    monkeypatch.setattr(advice_routes, "advise", not_here)  # this process only
    monkeypatch.setattr(engine_advice, "advise", not_here)
    response = client.post("/v1/advise", json=COSTLY)
    assert response.status_code == 200, response.text
    assert response.json() == expected
    assert pool_of(app).started is True


def test_costly_advice_refused_by_the_pack_names_the_field(
    pooled: tuple[Litestar, TestClient[Litestar]],
) -> None:
    _, client = pooled
    body = {**COSTLY, "seen": ["JK"] * 8}  # the upcard is a ninth joker
    problem = assert_problem(client.post("/v1/advise", json=body), 422, "invalid-field", "seen")
    assert "JK" in problem["detail"]


def test_costly_advice_past_the_queue_is_refused_with_retry_after(
    pooled: tuple[Litestar, TestClient[Litestar]], tmp_path: Path
) -> None:
    app, client = pooled
    holding = HeldWorker(client, pool_of(app), tmp_path)
    refused = client.post("/v1/advise", json=COSTLY)
    assert_problem(refused, 503, "analyses-busy")
    assert refused.headers["retry-after"] == "1"
    cheap = {**COSTLY, "hand": COSTLY["hand"][:ADVICE_INLINE_CARDS]}
    assert client.post("/v1/advise", json=cheap).status_code == 200  # not queued
    assert holding.released() == "released"
    assert client.post("/v1/advise", json=COSTLY).status_code == 200

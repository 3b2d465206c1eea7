"""A game's requests are served on the event loop: none hops to Litestar's thread pool.

Litestar runs every plain function it is handed (a handler, a dependency, a rate limit's check)
in a worker thread. Each hop costs two loop turns and, under load, a wait for the interpreter
lock behind whatever else runs: a service with three limits on every request answered a soak's
people at a p50 of 38 ms instead of 11. So every callable on a request's path is a coroutine
function, or declared ``sync_to_thread=False``; the costly analyses go to the analysis pool on
purpose (``anyio.to_thread``), which this does not count."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import litestar.concurrency
import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings


def test_a_whole_turn_with_every_limit_on_never_hops_to_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hops: list[str] = []
    to_thread = litestar.concurrency.sync_to_thread

    def counted(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(fn, "__qualname__", repr(fn)))
        return to_thread(fn, *args, **kwargs)

    # Where Litestar's wrapper of plain functions looks the helper up.
    monkeypatch.setattr("litestar.utils.sync.sync_to_thread", counted)
    settings = Settings(rate_limit_per_minute=1000, creations_per_day=1000, claims_per_day=1000)
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]})
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        on_turn = created.json()["view"]["turn"]
        auth = {"Authorization": f"Bearer {created.json()['seats'][on_turn]['token']}"}
        view = client.get(f"/v1/games/{game_id}", headers=auth)
        assert view.status_code == 200, view.text
        drawn = client.post(
            f"/v1/games/{game_id}/actions",
            headers=auth,
            json={"type": "draw", "source": "stock", "expected_version": 0},
        )
        assert drawn.status_code == 200, drawn.text
        assert client.get(f"/v1/games/{game_id}/log").status_code == 200
        assert client.get("/v1/tables").status_code == 200
        assert client.get("/healthz").status_code == 200
    assert hops == []

"""A long game costs each action a bounded write: the stored record (the state's head) stays the
size of a fresh game's while the history grows as appended segments, in memory and on Redis; an
instance that never saw the game reads it whole from its segments; a stream resumed from 0
delivers every version."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.storage.game_store import MemoryStore
from service.storage.redis_keys import game_key, log_key
from tests.service.http_player import HttpGame
from tests.service.streams.test_events import parse_events

PAIRS = 800
"""Draw the upcard and discard it again, this many times: 1,600 actions, 25 sealed chunks."""


def _cycle_upcard(game: HttpGame, pairs: int) -> dict[str, Any]:
    view = game.view()
    for _ in range(pairs):
        seat = view["turn"]
        drawn = game.act(seat, {"type": "draw", "source": "discard"})
        view = game.act(seat, {"type": "discard", "card": drawn["upcard"]})
    return view


def _with_store(app: Litestar, store: Any) -> Litestar:
    app.state["services"] = dataclasses.replace(app.state["services"], store=store)
    return app


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def apps(request: pytest.FixtureRequest) -> Iterator[tuple[Litestar, Litestar]]:
    """Two apps on one store, as two instances: each with its own cache of decoded games."""
    if request.param == "memory":
        app = create_app(Settings())
        second = create_app(Settings())
        yield app, _with_store(second, app.state["services"].store)
        return
    settings: Settings = request.getfixturevalue("redis_settings")
    yield create_app(settings), create_app(settings)


def _stored_sizes(app: Litestar, game_id: str) -> tuple[int, int]:
    """The record's bytes and the number of segments, as the store holds them."""
    store = app.state["services"].store
    if isinstance(store, MemoryStore):
        stored = store._games[game_id][0]  # what the store holds, as stored
        return len(stored.record), len(stored.segments)
    where = store.redis.connection_pool.connection_kwargs
    key, log = game_key(store.key_prefix, game_id), log_key(store.key_prefix, game_id)
    with redis.Redis(host=where["host"], port=where["port"], db=where["db"]) as client:
        return int(client.hstrlen(key, "r")), int(client.llen(log))


def test_a_long_games_record_stays_bounded_and_another_instance_reads_it_whole(
    apps: tuple[Litestar, Litestar],
) -> None:
    first, second = apps
    with TestClient(first) as client, TestClient(second) as other:
        game = HttpGame.create(client, 2, "classic", seed=7)
        _cycle_upcard(game, 2)
        early_record, _ = _stored_sizes(first, game.game_id)
        final = _cycle_upcard(game, PAIRS - 2)
        record, segments = _stored_sizes(first, game.game_id)
        assert final["version"] == 2 * PAIRS
        assert record < early_record + 256, (early_record, record)
        assert segments == 2 * PAIRS // 64 + 1  # every full chunk, and the first deal's pack
        # The other instance has decoded nothing of this game: it reads record and segments.
        seat = final["turn"]
        headers = game.auth(seat)
        url = f"/v1/games/{game.game_id}"
        assert other.get(url, headers=headers).json() == client.get(url, headers=headers).json()
        versions: list[int] = []
        since: int | None = 0
        while since is not None:  # the log a page at a time (a thousand entries at most each)
            page = other.get(f"{url}/log", params={"since": since}).json()
            versions += [e["version"] for e in page["entries"]]
            since = page["next_since"]
        assert versions == list(range(1, 2 * PAIRS + 1))
        # It plays on, and the first instance sees its action on top of the history it holds.
        drawn = other.post(
            f"{url}/actions", json={"type": "draw", "source": "stock"}, headers=headers
        )
        assert drawn.status_code == 200, drawn.text
        assert client.get(url, headers=headers).json() == drawn.json()
        events = parse_events(
            client.get(
                f"{url}/events", params={"idle_timeout": 0}, headers={"Last-Event-ID": "0"}
            ).text
        )
        assert [e["id"] for e in events] == list(range(1, 2 * PAIRS + 2))

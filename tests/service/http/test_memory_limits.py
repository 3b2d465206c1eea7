"""The in-memory store's bounds: expiry drops old games without scanning the live ones, a cap on
the games it holds (a create past it is a 503 with Retry-After, no game evicted early), and rate
limits shared by every instance through Redis."""

from __future__ import annotations

import asyncio

import msgspec
import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.storage.game_store import MemoryStore, StoreFull
from tests.service.games.test_games_api import assert_problem
from tests.service.manual_clock import ManualClock

TWO = {"players": [{"name": "a"}, {"name": "b"}]}


def test_a_create_past_the_cap_is_a_503_with_retry_after_and_keeps_every_game() -> None:
    app = create_app(Settings(max_games=3))
    with TestClient(app) as client:
        ids = [client.post("/v1/games", json=TWO).json()["game_id"] for _ in range(3)]
        refused = client.post("/v1/games", json=TWO)
        assert_problem(refused, 503, "store-full")
        assert int(refused.headers["retry-after"]) > 0
        assert [client.get(f"/v1/games/{g}").status_code for g in ids] == [200, 200, 200]


def test_expired_games_make_room_and_live_ones_stay() -> None:
    async def scenario() -> tuple[int, bool, bool]:
        clock = ManualClock()
        store = MemoryStore(game_ttl=0.2, idempotency_ttl=0.2, max_games=2, clock=clock)
        await store.create("old", b"r")
        await store.create("busy", b"r")
        with pytest.raises(StoreFull):
            await store.create("third", b"r")
        clock.advance(0.15)
        assert await store.commit("busy", 0, b"r1", idempotency=("k", b"saved"))
        clock.advance(0.1)  # "old" has expired, "busy" was written since
        await store.create("third", b"r")
        return len(store), await store.load("busy") is not None, await store.load("old") is None

    assert asyncio.run(scenario()) == (2, True, True)


def test_expiry_keeps_the_order_of_the_last_write() -> None:
    """A game written again moves behind the others: it expires last, not first."""

    async def scenario() -> list[str]:
        clock = ManualClock()
        store = MemoryStore(game_ttl=0.3, idempotency_ttl=0.3, clock=clock)
        for name in ("a", "b", "c"):
            await store.create(name, b"r")
        clock.advance(0.2)
        assert await store.commit("a", 0, b"r1")
        clock.advance(0.15)
        await store.create("d", b"r")
        return [g for g in ("a", "b", "c", "d") if await store.load(g) is not None]

    assert asyncio.run(scenario()) == ["a", "d"]


@pytest.mark.redis
def test_rate_limits_are_shared_by_instances_on_redis(redis_settings: Settings) -> None:
    """Two apps on one Redis (as two instances behind a load balancer) count against one limit.
    The analysis needs no game, so only the counts touch Redis (under this test's prefix)."""
    settings = msgspec.structs.replace(redis_settings, rate_limit_per_minute=4)
    hand = {"hand": ["4H", "5H", "6H"], "wild": "8"}
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        statuses = [c.post("/v1/analyse", json=hand).status_code for c in (one, two) * 3]
    assert statuses == [200, 200, 200, 200, 429, 429]

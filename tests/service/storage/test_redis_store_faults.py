"""The Redis store when Redis fails: unreachable, frozen, killed mid-write, restarted, and a
cluster master lost and restarted.

Each test runs its own redis-server (so it can kill it) and one store object throughout, to show
recovery needs no restart of the service.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from service.storage.game_store import StoredGame, StoreUnavailable
from service.storage.redis_connection import UNAVAILABLE_MESSAGE
from service.storage.redis_game_store import RedisStore
from tests.redis_servers import RedisClusterServers, RedisServer, free_port
from tests.waiting import eventually_async

pytestmark = pytest.mark.redis

DAY = 86400.0
StartServer = Callable[..., RedisServer]


def store_on(url: str, *, timeout: float = 2.0) -> RedisStore:
    return RedisStore.from_url(url, game_ttl=DAY, idempotency_ttl=DAY, timeout=timeout)


async def raises_unavailable(operation: object) -> None:
    assert asyncio.iscoroutine(operation)
    with pytest.raises(StoreUnavailable) as raised:
        await operation
    assert str(raised.value) == UNAVAILABLE_MESSAGE  # no address or driver text for clients


def test_every_operation_on_an_unreachable_redis_raises_store_unavailable_promptly() -> None:
    async def check() -> None:
        store = store_on(f"redis://127.0.0.1:{free_port()}/0", timeout=0.5)
        started = time.monotonic()
        await raises_unavailable(store.ping())
        await raises_unavailable(store.create("g", b"r"))
        await raises_unavailable(store.load("g"))
        await raises_unavailable(store.commit("g", 0, b"r", idempotency=("k", b"x")))
        await raises_unavailable(store.recall("g", "k"))
        assert time.monotonic() - started < 5
        await store.close()

    asyncio.run(check())


def test_a_store_made_while_redis_is_down_works_once_it_is_up(
    start_redis_server: StartServer,
) -> None:
    server = start_redis_server()
    server.stop()

    async def check() -> None:
        store = store_on(server.url, timeout=0.5)
        await raises_unavailable(store.ping())
        server.start()
        await store.ping()
        await store.create("g", b"r")
        assert await store.load("g") == StoredGame(0, b"r")
        await store.close()

    asyncio.run(check())


def test_a_frozen_redis_times_out_as_unavailable_and_then_recovers(
    start_redis_server: StartServer,
) -> None:
    server = start_redis_server()

    async def check() -> None:
        store = store_on(server.url, timeout=0.3)
        await store.create("g", b"r")
        server.pause()
        try:
            started = time.monotonic()
            await raises_unavailable(store.commit("g", 0, b"r1"))
            await raises_unavailable(store.load("g"))
            assert time.monotonic() - started < 4  # two calls, each at most two 0.3 s attempts
        finally:
            server.resume()
        # The commit that timed out may or may not have run when Redis woke: either way the
        # version says which, and the next commit goes from there.
        current = await store.load("g")
        assert current in (StoredGame(0, b"r"), StoredGame(1, b"r1"))
        assert await store.commit("g", current.version, b"next")
        await store.close()

    asyncio.run(check())


def test_redis_restarted_on_the_same_port_is_used_again_without_a_new_store(
    start_redis_server: StartServer,
) -> None:
    server = start_redis_server(appendonly=True)

    async def check() -> None:
        store = store_on(server.url, timeout=0.5)
        await store.create("g", b"v0")
        assert await store.commit("g", 0, b"v1")
        server.kill()
        await raises_unavailable(store.load("g"))
        server.start()
        # The restarted Redis has an empty script cache: the commit must reload its script.
        assert await store.commit("g", 1, b"v2")
        assert await store.load("g") == StoredGame(2, b"v2")
        await store.close()

    asyncio.run(check())


async def seed_games(store: RedisStore, games: int) -> dict[str, StoredGame]:
    """Games at assorted versions, each version's commit saving a response under its own key."""
    expected: dict[str, StoredGame] = {}
    for number in range(games):
        game = f"game-{number}"
        await store.create(game, b"%s:0" % game.encode())
        for version in range(number % 7):
            record = b"%s:%d" % (game.encode(), version + 1)
            assert await store.commit(
                game, version, record, idempotency=(f"a{version + 1}", record)
            )
        expected[game] = StoredGame(number % 7, b"%s:%d" % (game.encode(), number % 7))
    return expected


async def assert_games_intact(store: RedisStore, expected: dict[str, StoredGame]) -> None:
    for game, stored in expected.items():
        assert await store.load(game) == stored
        for version in range(1, stored.version + 1):
            assert await store.recall(game, f"a{version}") == b"%s:%d" % (game.encode(), version)


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_every_game_survives_a_restart_of_an_append_only_redis(
    start_redis_server: StartServer, how: str
) -> None:
    """A clean shutdown (SIGTERM) or a crash (SIGKILL) of Redis with AOF: every game, at its
    version with its saved responses, is there after the restart, and play goes on."""
    server = start_redis_server(appendonly=True)

    async def check() -> None:
        store = store_on(server.url)
        expected = await seed_games(store, 40)
        getattr(server, how)()
        server.start()
        await assert_games_intact(store, expected)
        for game, stored in expected.items():
            assert await store.commit(game, stored.version, b"after restart")
        await store.close()

    asyncio.run(check())


def test_a_crash_in_the_middle_of_many_commits_leaves_no_half_applied_action(
    start_redis_server: StartServer,
) -> None:
    """Writers commit as fast as they can while Redis is SIGKILLed. After the restart, each game's
    record matches its version, the saved response of every applied version is there and no other,
    and no acknowledged commit is lost (appendfsync always)."""
    server = start_redis_server(appendonly=True)
    games = [f"race-{n}" for n in range(8)]
    acknowledged = dict.fromkeys(games, 0)

    async def writer(store: RedisStore, game: str) -> None:
        version = 0
        while True:
            record = b"%s:%d" % (game.encode(), version + 1)
            try:
                applied = await store.commit(
                    game, version, record, idempotency=(f"a{version + 1}", record)
                )
            except StoreUnavailable:
                return
            assert applied
            version += 1
            acknowledged[game] = version

    async def check() -> None:
        store = store_on(server.url, timeout=0.5)
        for game in games:
            await store.create(game, b"%s:0" % game.encode())
        writers = [asyncio.create_task(writer(store, game)) for game in games]
        await eventually_async(
            lambda: min(acknowledged.values()) >= 2, "every writer to commit twice"
        )
        server.kill()
        await asyncio.gather(*writers)
        server.start()
        for game in games:
            stored = await store.load(game)
            assert stored is not None
            assert stored.record == b"%s:%d" % (game.encode(), stored.version)
            # A commit in flight at the crash may have been applied without its answer arriving.
            assert stored.version in (acknowledged[game], acknowledged[game] + 1)
            for version in range(1, stored.version + 1):
                saved = await store.recall(game, f"a{version}")
                assert saved == b"%s:%d" % (game.encode(), version)
            assert await store.recall(game, f"a{stored.version + 1}") is None
        assert sum(acknowledged.values()) > len(games)  # the writers really were writing
        await store.close()

    asyncio.run(check())


def test_a_cluster_master_down_fails_only_its_own_games_until_it_is_back(tmp_path: Path) -> None:
    """One of three append-only masters is killed: games in its slots answer StoreUnavailable,
    the others carry on; restarted, it serves its games again, intact, to the same store."""
    cluster = RedisClusterServers(tmp_path).start(appendonly=True)

    async def check() -> None:
        store = RedisStore.from_url(
            cluster.url, game_ttl=DAY, idempotency_ttl=DAY, cluster=True, timeout=0.5
        )
        games = [f"game-{n}" for n in range(30)]
        for game in games:
            await store.create(game, b"v0")
            assert await store.commit(game, 0, b"v1")
        cluster.nodes[1].kill()
        started = time.monotonic()
        served, refused = [], []
        for game in games:
            try:
                assert await store.load(game) == StoredGame(1, b"v1")
                served.append(game)
            except StoreUnavailable:
                refused.append(game)
        assert served  # the other masters' games
        assert refused  # the dead master's games
        assert time.monotonic() - started < 15
        for game in served:
            assert await store.commit(game, 1, b"v2")

        cluster.nodes[1].start()
        for game in refused:
            loaded = await eventually_async(
                partial(store.load, game), f"{game} to be available", ignoring=(StoreUnavailable,)
            )
            assert loaded == StoredGame(1, b"v1")
            assert await store.commit(game, 1, b"v2")
        await store.close()

    try:
        asyncio.run(check())
    finally:
        cluster.stop()

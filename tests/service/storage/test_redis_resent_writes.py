"""A write that Redis applied but whose answer never came back: redis-py sends the command again
once (after a timeout or a lost connection), and the stores must recognise their own write
rather than refuse it as a race lost. On a loaded machine a commit that timed out after running
made the action it applied answer 409, and a create answer that its game already existed.

The tests put a proxy between the store and the tests' Redis that forwards everything but cuts
the connection instead of relaying the answer of the one command it is told to drop."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest

from service.players.redis_seek_pool import RedisSeekPool
from service.players.seek_pool import WAITING
from service.sheets.redis_store import RedisSheetStore
from service.storage.redis_game_store import RedisStore
from service.storage.redis_keys import events_key, log_key
from tests.service.conftest_redis import delete_prefixed
from tests.service.manual_clock import ManualClock
from tests.service.players.test_seek_pool import a_rated_seek, a_seek

pytestmark = pytest.mark.redis


class AnswerDroppingProxy:
    """A TCP proxy to Redis. After ``drop_next_answer()``, the next bytes Redis sends are not
    relayed: the client's connection is cut instead, as if the answer were lost on the way."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._dropping = False
        self.dropped = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def drop_next_answer(self) -> None:
        self._dropping = True

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        redis_in, redis_out = await asyncio.open_connection(*self._target)

        async def to_redis() -> None:
            while data := await client_in.read(65536):
                redis_out.write(data)
                await redis_out.drain()
            redis_out.close()

        async def to_client() -> None:
            while data := await redis_in.read(65536):
                if self._dropping:
                    self._dropping = False
                    self.dropped += 1
                    client_out.transport.abort()
                    redis_out.close()
                    return
                client_out.write(data)
                await client_out.drain()
            client_out.close()

        with contextlib.suppress(ConnectionError, OSError):
            await asyncio.gather(to_redis(), to_client())


@contextlib.asynccontextmanager
async def proxied(
    redis_url: str, key_prefix: str
) -> AsyncIterator[tuple[AnswerDroppingProxy, RedisStore]]:
    """A proxy in front of the tests' Redis, and a games' store that reaches Redis through it."""
    address = redis_url.removeprefix("redis://")
    host_port, _, database = address.partition("/")
    host, _, port = host_port.partition(":")
    proxy = AnswerDroppingProxy(host, int(port))
    through = f"redis://127.0.0.1:{await proxy.start()}/{database}"
    store = RedisStore.from_url(through, game_ttl=600, idempotency_ttl=600, key_prefix=key_prefix)
    try:
        yield proxy, store
    finally:
        await store.close()
        await proxy.close()


def run(redis_url: str, key_prefix: str, check: Callable[[str], Coroutine[Any, Any, None]]) -> None:
    try:
        asyncio.run(check(redis_url))
    finally:
        delete_prefixed(redis_url, key_prefix)


def test_a_commit_whose_answer_was_lost_is_applied_once_and_answers_applied(
    redis_url: str, key_prefix: str
) -> None:
    async def check(url: str) -> None:
        async with proxied(url, key_prefix) as (proxy, store):
            await store.create("g", b"r0")
            assert await store.commit("g", 0, b"r1", segments=[b"s1"])  # the script is loaded
            proxy.drop_next_answer()
            assert await store.commit("g", 1, b"r2", segments=[b"s2"], idempotency=("k", b"a"))
            assert proxy.dropped == 1
            stored = await store.load("g", recall="k")
            assert stored is not None
            assert (stored.version, stored.record, stored.saved) == (2, b"r2", b"a")
            # Nothing of it written twice: one segment, one notice for version 2.
            assert stored.segments == (b"s1", b"s2")
            assert await store.redis.llen(log_key(key_prefix, "g")) == 2
            notices: Any = await store.redis.xrange(events_key(key_prefix, "g"))
            assert [fields[b"data"] for _, fields in notices] == [b"1", b"2"]
            # A commit over the version it moved from still loses: the token is not a pass.
            assert not await store.commit("g", 1, b"other")

    run(redis_url, key_prefix, check)


def test_a_create_whose_answer_was_lost_is_not_taken_for_another_game(
    redis_url: str, key_prefix: str
) -> None:
    async def check(url: str) -> None:
        async with proxied(url, key_prefix) as (proxy, store):
            await store.create("first", b"r")  # the script is loaded
            proxy.drop_next_answer()
            await store.create("g", b"r0")  # GameExists before: its own first attempt
            assert proxy.dropped == 1
            stored = await store.load("g")
            assert stored is not None
            assert (stored.version, stored.record) == (0, b"r0")

    run(redis_url, key_prefix, check)


def test_a_sheet_write_whose_answer_was_lost_is_applied_once(
    redis_url: str, key_prefix: str
) -> None:
    async def check(url: str) -> None:
        async with proxied(url, key_prefix) as (proxy, games):
            sheets = RedisSheetStore(games.redis, ttl=600, key_prefix=key_prefix)
            await sheets.create("first", b"r")
            proxy.drop_next_answer()
            await sheets.create("s", b"r0")
            assert await sheets.commit("s", 0, b"r1")  # the script is loaded
            proxy.drop_next_answer()
            assert await sheets.commit("s", 1, b"r2")
            assert proxy.dropped == 2
            assert not await sheets.commit("s", 1, b"other")

    run(redis_url, key_prefix, check)


def test_a_seek_whose_answer_was_lost_is_not_taken_for_one_already_waiting(
    redis_url: str, key_prefix: str
) -> None:
    async def check(url: str) -> None:
        async with proxied(url, key_prefix) as (proxy, games):
            pool = RedisSeekPool(games.redis, key_prefix=key_prefix)
            seeks = [a_seek(name, players=3, pool="classic-3") for name in ("bob", "cat", "dan")]
            assert await pool.add(a_seek("ann"), "g0") == WAITING  # the script is loaded
            proxy.drop_next_answer()
            assert await pool.add(seeks[0], "g1") == WAITING  # before: AlreadySeeking itself
            assert await pool.add(seeks[1], "g2") == WAITING
            # A match whose answer was lost is answered again, and takes no seek twice.
            proxy.drop_next_answer()
            matched = await pool.add(seeks[2], "g3")
            assert proxy.dropped == 2
            assert (matched.status, matched.game_id) == ("matched", "g3")
            assert matched.mates == tuple(seek.seek_id for seek in seeks)
            late = a_seek("eve", players=3, pool="classic-3")
            assert await pool.add(late, "g4") == WAITING

    run(redis_url, key_prefix, check)


def test_a_sweep_whose_answer_was_lost_makes_no_second_match_to_its_game(
    redis_url: str, key_prefix: str
) -> None:
    async def check(url: str) -> None:
        async with proxied(url, key_prefix) as (proxy, games):
            clock = ManualClock()
            clock.now = time.time()
            pool = RedisSeekPool(games.redis, key_prefix=key_prefix, clock=clock)
            for name, rating in (("ann", 10.0), ("bob", 20.0)):
                await pool.add(a_rated_seek(name, rating, clock.now), "g")
            clock.advance(60)  # anyone, now
            first = itertools.count(1)
            loaded = await pool.sweep(lambda: f"first-{next(first)}", 10)  # the script is loaded
            assert len(loaded) == 1
            seeks = [
                a_rated_seek(name, rating, clock.now)
                for name, rating in (("cat", 10.0), ("dan", 20.0), ("eve", 50.0), ("fay", 60.0))
            ]
            for seek in seeks:
                assert await pool.add(seek, "g") == WAITING
            clock.advance(60)
            numbers = itertools.count(1)

            def game_id() -> str:
                number = next(numbers)
                if number == 1:  # the first sweep script's answer: lost
                    proxy.drop_next_answer()
                return f"game-{number}"

            made = await pool.sweep(game_id, 10)
            assert proxy.dropped == 1
            assert [state.game_id for state in made] == ["game-1", "game-2"]
            assert sorted(mate for state in made for mate in state.mates) == sorted(
                seek.seek_id for seek in seeks
            )
            for state in made:
                for mate in state.mates:
                    assert (found := await pool.get(mate)) is not None
                    assert found[1] == state

    run(redis_url, key_prefix, check)

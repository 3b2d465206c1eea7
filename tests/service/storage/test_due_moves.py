"""The due moves (``service.storage.due_moves``) on memory, Redis and a Redis Cluster: one suite
for all three. A game's entry is written by its create and commits, in the same step as the
version (so a commit refused writes nothing); an entry is taken once its time has come, moved on
by the lease as it is taken, so two takers racing never both get it while the lease holds; a
claim on a game holds it from every other owner until it runs out, and its release puts the
entry back as the game's version says."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import msgspec
import pytest

from service.app import create_app
from service.app.services import Services
from service.bots import tasks, turns
from service.games.wire import CreateGameRequest
from service.settings import Settings
from service.storage.due_moves import DueMoves
from service.storage.game_store import MemoryStore, Store
from service.storage.redis_keys import SHARDS, shard_of
from service.tables.index import MemoryTableIndex
from service.workers.pool import WorkerPool
from tests.service.costly_hands import hold_a_worker
from tests.service.storage.test_store import StoreKind, beside, new_id, run, store_kind
from tests.service.tables.test_table_store import create, services_on
from tests.waiting import eventually_async

__all__ = ["store_kind"]  # the fixture, shared with the store suite

DueTest = Callable[[Store, DueMoves], Awaitable[None]]
NOW = 1_000_000.0
"""A Unix time for the tests: the entries' times are whatever their writers say."""
SWEEPER = "sweeper-a"


def with_due_moves(store_kind: StoreKind, check: DueTest) -> None:
    async def go() -> None:
        store = store_kind.make()
        try:
            await check(store, beside(store).due)
        finally:
            await store.close()

    run(go())


async def game_due_at(store: Store, due: float | None, *, shard: int | None = None) -> str:
    """A game created due at ``due`` (in ``shard`` of the Redis layout, if given)."""
    game_id = new_id()
    while shard is not None and shard_of(game_id) != shard:
        game_id = new_id()
    await store.create(game_id, b"record", due=due)
    return game_id


def test_a_create_and_each_commit_write_the_games_entry_with_its_version(
    store_kind: StoreKind,
) -> None:
    async def check(store: Store, due: DueMoves) -> None:
        game = await game_due_at(store, NOW)
        assert await due.entry(game) == NOW
        assert await store.commit(game, 0, b"v1", due=NOW + 30)
        assert await due.entry(game) == NOW + 30
        # A commit refused (the version moved on) writes no entry either.
        assert not await store.commit(game, 0, b"stale", due=NOW + 99)
        assert await due.entry(game) == NOW + 30
        assert await store.commit(game, 1, b"v2", due=None)
        assert await due.entry(game) is None
        assert await due.entry(await game_due_at(store, None)) is None

    with_due_moves(store_kind, check)


def test_an_entry_is_taken_once_its_time_has_come(store_kind: StoreKind) -> None:
    async def check(store: Store, due: DueMoves) -> None:
        soon, later = await game_due_at(store, NOW), await game_due_at(store, NOW + 10)
        assert await due.take_due(NOW - 1, 5, 10, sweeper=SWEEPER) == []
        assert await due.take_due(NOW, 5, 10, sweeper=SWEEPER) == [soon]
        # Taken: its lease holds it from every taker until it runs out.
        assert await due.take_due(NOW + 4, 5, 10, sweeper=SWEEPER) == []
        assert sorted(await due.take_due(NOW + 10, 5, 10, sweeper=SWEEPER)) == sorted([soon, later])

    with_due_moves(store_kind, check)


def test_takers_racing_for_due_entries_take_each_once(store_kind: StoreKind) -> None:
    async def check(store: Store, due: DueMoves) -> None:
        games = [await game_due_at(store, NOW) for _ in range(40)]
        taken = await asyncio.gather(*(due.take_due(NOW, 5, 7, sweeper=SWEEPER) for _ in range(10)))
        every = [game for batch in taken for game in batch]
        assert sorted(every) == sorted(games)
        assert all(len(batch) <= 7 for batch in taken)

    with_due_moves(store_kind, check)


def test_a_taker_short_of_room_comes_to_every_shard_in_turn(store_kind: StoreKind) -> None:
    """A sweep short of room stops part of the way through its shards. On Redis each sweep
    began at the first shard, so while the first shard had a sweep's worth of games due, the
    last shard's games waited however long they had been due. The next sweep now goes on
    where the last stopped (in memory, the oldest come first)."""

    async def check(store: Store, due: DueMoves) -> None:
        waiting = await game_due_at(store, NOW, shard=SHARDS - 1)
        for take in range(3):
            busy = [await game_due_at(store, NOW + 1 + take, shard=0) for _ in range(3)]
            taken = await due.take_due(NOW + 10, 5, 3, sweeper=SWEEPER)
            if waiting in taken:
                return
            assert sorted(taken) == sorted(busy)
        pytest.fail("the last shard's game was never taken")

    with_due_moves(store_kind, check)


@pytest.mark.redis
def test_sweepers_share_the_shards_between_them(store_kind: StoreKind) -> None:
    """Two sweepers seen within a lease sweep disjoint halves of the shards: each takes only
    the due games of its own, and together they take them all."""
    if store_kind.name == "memory":
        pytest.skip("one instance: the memory store has one shard, its own")

    async def check(store: Store, due: DueMoves) -> None:
        games = [await game_due_at(store, NOW) for _ in range(40)]
        assert len({shard_of(game) for game in games}) > 1
        now = time.time()
        await due.take_due(now, 5, 0, sweeper="sweeper-b")  # seen, takes nothing
        first = await due.take_due(now, 5, 100, sweeper=SWEEPER)
        second = await due.take_due(now, 5, 100, sweeper="sweeper-b")
        assert first
        assert second
        assert sorted(first + second) == sorted(games)
        shards = [{shard_of(game) % 2 for game in batch} for batch in (first, second)]
        assert shards == [{0}, {1}]
        assert SHARDS % 2 == 0

    with_due_moves(store_kind, check)


def test_a_claim_holds_the_game_from_other_owners_until_its_lease_runs_out(
    store_kind: StoreKind,
) -> None:
    async def check(store: Store, due: DueMoves) -> None:
        game = await game_due_at(store, time.time())
        assert await due.claim(game, "a", time.time(), 0.5)
        # Its entry moved on by the lease: no sweep takes the game while it is held.
        entry = await due.entry(game)
        assert entry is not None
        assert entry > time.time()
        assert not await due.claim(game, "b", time.time(), 30)
        assert await due.claim(game, "a", time.time(), 0.5)  # renewed by its owner
        await eventually_async(
            lambda: due.claim(game, "b", time.time(), 30), "a's lease to run out for b"
        )
        assert not await due.claim(game, "a", time.time(), 30)

    with_due_moves(store_kind, check)


def test_a_release_puts_the_entry_back_as_the_version_says(store_kind: StoreKind) -> None:
    async def check(store: Store, due: DueMoves) -> None:
        game = await game_due_at(store, NOW)
        assert await due.claim(game, "a", NOW, 30)
        await due.release(game, "a", 0, NOW + 7)
        assert await due.entry(game) == NOW + 7
        assert await due.claim(game, "b", time.time(), 30)  # released: free for another
        # A release for a version since moved on leaves the entry its commit wrote.
        assert await store.commit(game, 0, b"v1", due=NOW + 50)
        await due.release(game, "b", 0, None)
        assert await due.entry(game) == NOW + 50
        await due.release(game, "b", 1, None)
        assert await due.entry(game) is None
        # A game gone: its entry goes with it.
        orphan = new_id()
        await due.release(orphan, "b", None, None)
        assert await due.entry(orphan) is None

    with_due_moves(store_kind, check)


def test_the_memory_heap_stays_bounded_by_the_live_entries() -> None:
    async def check() -> None:
        store = MemoryStore()
        game = await game_due_at(store, NOW)
        for step in range(10_000):  # a long game's clock, moved on at every commit
            assert await store.commit(game, step, b"r", due=NOW + step)
        assert len(store.due) == 1
        assert len(store.due._heap) <= 2 + 64 + 1
        assert await store.due.take_due(NOW + 10_000, 5, 10, sweeper=SWEEPER) == [game]

    run(check())


def test_one_sweep_takes_every_due_game_a_batch_at_a_time_up_to_the_drivers_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sweep took 64 due games, so 3,000 idle clock games fired a 3 s clock after 47 s. One
    sweep now takes all 10,000 (here, the drivers not started: no room is taken); with the
    drivers full it takes none, and leaves them due."""
    services: Services = create_app(Settings()).state["services"]
    due = 10_000
    asyncio.run(_create_overdue(services, due))
    assert asyncio.run(turns.sweep_once(services)) == due
    assert asyncio.run(services.due.take_due(time.time(), 5.0, due, sweeper=SWEEPER)) == []

    asyncio.run(_create_overdue(services, 10))
    monkeypatch.setattr(tasks, "MAX_DRIVING", services.bots.driving)  # no room left
    assert asyncio.run(turns.sweep_once(services)) == 0
    assert len(asyncio.run(services.due.take_due(time.time(), 5.0, 100, sweeper=SWEEPER))) == 10


def test_a_sweep_takes_no_more_games_than_the_bots_pool_can_queue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Taken past the pool's room, a game's decision was refused at once and the game released
    due now, for the next sweep to take and refuse again: a busy instance spun on its backlog.
    The games the pool has no room for stay due, for another instance or a later sweep."""
    services: Services = create_app(Settings(bot_processes=1, bot_queue=4)).state["services"]
    assert services.bots.pool.room == 5
    asyncio.run(_create_overdue(services, 10))
    with monkeypatch.context() as patched:
        patched.setattr(services.bots.pool, "capacity", services.bots.pool.pending)  # full
        assert asyncio.run(turns.sweep_once(services)) == 0
    assert len(asyncio.run(services.due.take_due(time.time(), 5.0, 100, sweeper=SWEEPER))) == 10


def test_a_sweep_that_ran_out_of_room_comes_again_once_the_pool_has_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an instance died, its survivor took a pool's worth of games a sweep, a sweep a
    second, while its pool sat idle in between. A sweep that finds no room now comes again as
    soon as the pool has room for half its capacity, whatever ``sweep_seconds`` says."""

    async def scenario() -> None:
        settings = Settings(bot_processes=1, bot_queue=3, sweep_seconds=3600)
        services: Services = create_app(settings).state["services"]
        pool = services.bots.pool
        await _create_overdue(services, 10)
        taken: list[str] = []
        monkeypatch.setattr(services.bots, "nudge", taken.append)  # no drivers: count them
        held, release = await _fill(pool, tmp_path)
        assert pool.room == 0
        sweeper = asyncio.create_task(turns.sweep_forever(services))
        try:
            for _ in range(10):  # no room: the sweeper waits for some, taking nothing
                await asyncio.sleep(0)
            assert taken == []
            release.touch()
            await eventually_async(lambda: len(taken) == 10, "the sweeper to take all ten games")
            await asyncio.gather(*held)
        finally:
            sweeper.cancel()
            pool.close()

    asyncio.run(scenario())


def test_a_bot_put_on_turn_while_games_wait_for_room_waits_its_turn_behind_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A survivor of a kill kept its pool full with the newest moves (each started at once by
    the commit that made it due) while games refused earlier waited among the due entries for
    30 s and more. Once a sweep finds no room, a bot put on turn waits its turn among the
    entries, which come out longest-waiting first."""

    async def scenario() -> None:
        settings = Settings(bot_processes=1, bot_queue=3, sweep_seconds=3600)
        services: Services = create_app(settings).state["services"]
        pool = services.bots.pool
        await _create_overdue(services, 10)
        taken: list[str] = []
        monkeypatch.setattr(services.bots, "nudge", taken.append)  # no drivers: count them
        held, release = await _fill(pool, tmp_path)
        assert await turns.sweep_once(services) == 0
        assert services.bots.behind

        newest = new_id()
        await services.store.create(newest, b"record", due=time.time())
        services.bots.nudge_in_turn(newest)  # what a commit that put a bot on turn does
        assert taken == []
        release.touch()
        await asyncio.gather(*held)
        assert await turns.sweep_once(services) == 11
        assert taken[-1] == newest
        assert not services.bots.behind
        services.bots.nudge_in_turn(newest)  # caught up: a bot put on turn starts at once
        assert taken[11:] == [newest]
        pool.close()

    asyncio.run(scenario())


def test_a_commit_that_puts_a_bot_on_turn_starts_it_unless_games_wait_for_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The path a commit takes (here a create whose bots move first): it starts the game's
    driver at once, unless the sweeps are behind; then the game is left due, for them."""

    async def scenario() -> None:
        store = MemoryStore()
        async with services_on(store, MemoryTableIndex(game_ttl=86400)) as services:
            started: list[str] = []
            monkeypatch.setattr(services.bots, "nudge", started.append)
            bots_only = msgspec.convert(
                {"players": [{"bot": "easy"}] * 2, "seed": 7}, type=CreateGameRequest
            )
            services.bots.behind = True
            waiting = (await create(services, bots_only)).game_id
            assert started == []
            assert await services.due.entry(waiting) is not None
            services.bots.behind = False
            at_once = (await create(services, bots_only)).game_id
            assert started == [at_once]

    asyncio.run(scenario())


async def _fill(pool: WorkerPool, tmp_path: Path) -> tuple[list[asyncio.Task[str]], Path]:
    """Every place of the pool taken by a job that holds its worker until the returned file
    exists: the jobs, and that file's path."""
    release = tmp_path / "release"
    held = [
        asyncio.ensure_future(pool.run(hold_a_worker, str(tmp_path / f"started-{n}"), str(release)))
        for n in range(pool.capacity)
    ]
    await asyncio.sleep(0)
    return held, release


async def _create_overdue(services: Services, count: int) -> None:
    overdue = time.time() - 1
    for _ in range(count):
        await services.store.create(new_id(), b"record", due=overdue)

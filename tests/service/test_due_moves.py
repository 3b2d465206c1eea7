"""The due moves (``service.bots.due_moves``) on memory, Redis and a Redis Cluster: one suite
for all three. An entry is taken once its time has come, moved on by the lease as it is taken, so
two takers racing never both get it while the lease holds, and again once the lease ran out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from service.bots import turns
from service.bots.due_moves import DueMoves, MemoryDueMoves
from service.http.app import create_app
from service.http.dependencies import Services
from service.settings import Settings
from tests.service.test_store import StoreKind, beside, new_id, run, store_kind

__all__ = ["store_kind"]  # the fixture, shared with the store suite

DueTest = Callable[[DueMoves], Awaitable[None]]
NOW = 1_000_000.0
"""A Unix time for the tests: the entries' times are whatever their writers say."""


def with_due_moves(store_kind: StoreKind, check: DueTest) -> None:
    async def go() -> None:
        store = store_kind.make()
        try:
            await check(beside(store).due)
        finally:
            await store.close()

    run(go())


def test_an_entry_is_taken_once_its_time_has_come(store_kind: StoreKind) -> None:
    async def check(due: DueMoves) -> None:
        soon, later = new_id(), new_id()
        await due.schedule(soon, NOW)
        await due.schedule(later, NOW + 10)
        assert await due.take_due(NOW - 1, 5, 10) == []
        assert await due.take_due(NOW, 5, 10) == [soon]
        # Taken: its lease holds it from every taker until it runs out.
        assert await due.take_due(NOW + 4, 5, 10) == []
        assert sorted(await due.take_due(NOW + 10, 5, 10)) == sorted([soon, later])

    with_due_moves(store_kind, check)


def test_a_rescheduled_or_removed_entry_is_taken_by_its_new_time_only(
    store_kind: StoreKind,
) -> None:
    async def check(due: DueMoves) -> None:
        moved, removed = new_id(), new_id()
        await due.schedule(moved, NOW)
        await due.schedule(removed, NOW)
        await due.schedule(moved, NOW + 20)
        await due.remove(removed)
        assert await due.take_due(NOW + 19, 5, 10) == []
        assert await due.take_due(NOW + 20, 5, 10) == [moved]

    with_due_moves(store_kind, check)


def test_takers_racing_for_due_entries_take_each_once(store_kind: StoreKind) -> None:
    async def check(due: DueMoves) -> None:
        games = [new_id() for _ in range(40)]
        for game in games:
            await due.schedule(game, NOW)
        taken = await asyncio.gather(*(due.take_due(NOW, 5, 7) for _ in range(10)))
        every = [game for batch in taken for game in batch]
        assert sorted(every) == sorted(games)
        assert all(len(batch) <= 7 for batch in taken)

    with_due_moves(store_kind, check)


def test_the_memory_heap_stays_bounded_by_the_live_entries() -> None:
    async def check() -> None:
        due = MemoryDueMoves()
        game = new_id()
        for step in range(10_000):  # a long game's clock, moved on at every commit
            await due.schedule(game, NOW + step)
        assert len(due) == 1
        assert len(due._heap) <= 2 + 64 + 1
        assert await due.take_due(NOW + 10_000, 5, 10) == [game]

    run(check())


def test_one_sweep_takes_every_due_game_a_batch_at_a_time_up_to_the_drivers_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding 5 of issue 32: a sweep took 64 due games, so 3,000 idle clock games fired a 3 s
    clock after 47 s. One sweep now takes all 10,000 (here, the drivers not started: no room is
    taken); with the drivers full it takes none, and leaves them due."""
    services: Services = create_app(Settings()).state["services"]
    due = 10_000
    asyncio.run(_schedule_overdue(services, due))
    assert asyncio.run(turns.sweep_once(services)) == due
    assert asyncio.run(services.due.take_due(time.time(), 5.0, due)) == []

    asyncio.run(_schedule_overdue(services, 10))
    monkeypatch.setattr(turns, "MAX_DRIVING", services.bots.driving)  # no room left
    assert asyncio.run(turns.sweep_once(services)) == 0
    assert len(asyncio.run(services.due.take_due(time.time(), 5.0, 100))) == 10


async def _schedule_overdue(services: Services, count: int) -> None:
    overdue = time.time() - 1
    for n in range(count):
        await services.due.schedule(f"game-{n}", overdue)

"""Who drives a game, on the in-process store (memory): every driver claims the game before it
decides, so a second instance's driver does nothing while the first holds it; the claim is
renewed while a decision waits for a worker; a busy pool puts the game back due at once; and an
instance that dies at any crash point of the drive (``service.operations.crash_points``) leaves
the game to another, which finishes it with every version made once.

Two "instances" here are two ``Services`` on one store, each with its own drivers' name (the
memory store's equivalent of two processes on one Redis; the real processes are in
``test_redis_crash_points``). Bots decide inline (``InlinePool``), the same function the worker
processes run. Every wait polls for its condition with a deadline."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import msgspec
import pytest

from engine import game
from service.app.services import Services
from service.bots import turns
from service.bots.tasks import BotTasks
from service.games import lifecycle
from service.games.wire import CreateGameRequest
from service.http.problems import AnalysesBusy
from service.operations import crash_points
from service.settings import Settings
from service.storage.game_store import MemoryStore
from service.tables.index import MemoryTableIndex
from service.workers.pool import WorkerPool
from tests.service.tables.test_table_store import create, services_on
from tests.waiting import eventually_async

_R = TypeVar("_R")
LEASE = 0.3


class InlinePool(WorkerPool):
    """The bots' decisions on the event loop: what a worker process runs, without one."""

    def __init__(self) -> None:
        super().__init__(processes=1, queue=0)

    async def run(self, work: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
        return work(*args, **kwargs)


class BusyPool(WorkerPool):
    def __init__(self) -> None:
        super().__init__(processes=1, queue=0)

    async def run(self, work: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
        raise AnalysesBusy("every worker busy", retry_after=1)


class SimulatedCrash(Exception):
    """What ``crash_points.die`` raises here, where a real instance would be SIGKILLed."""


@asynccontextmanager
async def two_instances(
    pool: WorkerPool | None = None, crash: tuple[tuple[str, float], ...] = ()
) -> AsyncIterator[tuple[Services, Services]]:
    """Two instances on one memory store: the first with ``crash`` points, the second without."""
    store = MemoryStore()
    async with services_on(store, MemoryTableIndex(game_ttl=86400)) as base:
        settings = Settings(bot_lease_seconds=LEASE, sweep_seconds=0.05)
        first = dataclasses.replace(
            base,
            settings=msgspec.structs.replace(settings, crash_points=crash),
            bots=BotTasks(pool or InlinePool()),
        )
        second = dataclasses.replace(base, settings=settings, bots=BotTasks(InlinePool()))
        yield first, second


async def bots_game(services: Services, seats: int = 2) -> str:
    request = msgspec.convert(
        {"players": [{"bot": "easy"}] * seats, "seed": 7}, type=CreateGameRequest
    )
    return (await create(services, request)).game_id


async def version_of(services: Services, game_id: str) -> int:
    stored = await services.store.load(game_id)
    assert stored is not None
    return stored.version


async def finished(services: Services, game_id: str) -> bool:
    loaded = await lifecycle.load_game(services, game_id)
    return loaded.state.status == "finished"


async def assert_one_action_per_version(services: Services, game_id: str) -> None:
    """One stored version per action the game records, each applied once: the store's
    compare-and-set versions, the engine's version and its records agree, and the engine
    replays the records into the same state."""
    loaded = await lifecycle.load_game(services, game_id)
    records = sum(len(chunk) for chunk in loaded.state.records)
    assert records == loaded.state.version == loaded.stored_version
    assert game.loads(game.dumps(loaded.state)) == loaded.state


def test_a_driver_does_nothing_while_another_instance_holds_the_game() -> None:
    async def check() -> None:
        async with two_instances() as (first, second):
            game_id = await bots_game(first)
            assert await first.due.claim(game_id, first.bots.owner, time.time(), 30)
            await turns.drive(second, game_id)  # the second instance's nudge
            assert await version_of(second, game_id) == 0
            await first.due.release(game_id, first.bots.owner, 0, time.time())
            await turns.drive(second, game_id)  # free now: the second drives it to the end
            assert await finished(second, game_id)
            await assert_one_action_per_version(second, game_id)
            assert await second.due.entry(game_id) is None

    asyncio.run(check())


def test_a_busy_pool_puts_the_game_back_due_at_once_and_unclaimed() -> None:
    async def check() -> None:
        async with two_instances(BusyPool()) as (first, second):
            game_id = await bots_game(first)
            before = time.time()
            await turns.drive(first, game_id)
            entry = await first.due.entry(game_id)
            assert entry is not None
            assert before <= entry <= time.time()  # due now, not after a lease
            assert await second.due.claim(game_id, second.bots.owner, time.time(), 30)

    asyncio.run(check())


class WaitingPool(InlinePool):
    """Decides once ``go`` is set: a decision queued behind others."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.asked = asyncio.Event()

    async def run(self, work: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
        self.asked.set()
        await self.go.wait()
        return work(*args, **kwargs)


def test_the_claim_is_renewed_while_a_decision_waits_for_a_worker() -> None:
    async def check() -> None:
        pool = WaitingPool()
        async with two_instances(pool) as (first, second):
            game_id = await bots_game(first)
            driving = asyncio.create_task(turns.drive(first, game_id))
            await pool.asked.wait()
            asked_at = time.time()

            async def claim_runs_out() -> float | None:
                # Every claim of the second is refused while the first's is renewed.
                assert not await second.due.claim(game_id, second.bots.owner, time.time(), 30)
                return await first.due.entry(game_id)

            await eventually_async(
                claim_runs_out,
                "the first's claim renewed to four leases past the decision's wait",
                until=lambda runs_out: runs_out is not None and runs_out >= asked_at + 4 * LEASE,
            )
            pool.go.set()
            await driving
            assert await finished(first, game_id)
            await assert_one_action_per_version(first, game_id)

    asyncio.run(check())


@pytest.mark.parametrize("point", crash_points.POINTS)
def test_a_driver_dying_at_a_crash_point_leaves_the_game_to_another(
    point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first instance dies every time it reaches ``point``; the second, sweeping, takes
    the game once the dead driver's claim has run out, and finishes it."""

    def die() -> None:
        raise SimulatedCrash(point)

    monkeypatch.setattr(crash_points, "die", die)

    async def check() -> None:
        async with two_instances(crash=((point, 1.0),)) as (first, second):
            game_id = await bots_game(first)
            with pytest.raises(SimulatedCrash):
                await turns.drive(first, game_id)
            assert await first.due.entry(game_id) is not None

            async def swept_to_the_end() -> bool:
                due = await second.due.take_due(time.time(), LEASE, 10, sweeper=second.bots.owner)
                for taken in due:
                    await turns.drive(second, taken)
                return await finished(second, game_id)

            await eventually_async(swept_to_the_end, "the second instance to finish the game")
            await assert_one_action_per_version(second, game_id)
            assert await second.due.entry(game_id) is None

    asyncio.run(check())

"""Stopping the bots' tasks: a cancellation that redis-py surfaces as a connection error stays a
cancellation, and a task that swallows its cancellation cannot hold the shutdown forever."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
import redis.exceptions as redis_errors

from service.bots import tasks as bot_tasks
from service.bots.tasks import BotTasks
from service.storage.redis_connection import sent
from service.workers.pool import WorkerPool


def test_a_cancelled_command_that_surfaces_as_a_connection_error_stays_a_cancellation() -> None:
    async def scenario() -> None:
        started = asyncio.Event()

        async def command() -> None:
            started.set()
            try:  # a read that never ends by itself: only the cancellation under test ends it
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                # What redis-py may raise when a read is cut short by a cancellation.
                raise redis_errors.ConnectionError("Connection closed by server") from None

        task = asyncio.create_task(sent(aioredis.Redis(), command))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


def test_a_sweeper_that_swallows_its_cancellation_does_not_hold_the_shutdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bot_tasks, "STOP_SECONDS", 0.2)
    swallowed = asyncio.Event()

    # Tasks that never end by themselves (the sleeps): only the shutdown under test ends them.
    async def drive(game_id: str) -> None:
        await asyncio.sleep(3600)

    async def stubborn_sweep() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            swallowed.set()  # as a handler of "Redis is unavailable" once did
        await asyncio.sleep(3600)  # runs on, until cancelled a second time

    async def scenario() -> None:
        tasks = BotTasks(WorkerPool(processes=1, queue=1))
        tasks.start(drive, stubborn_sweep)
        await asyncio.sleep(0)  # the sweeper starts
        await asyncio.wait_for(tasks.close(), timeout=60)
        assert swallowed.is_set()

    asyncio.run(scenario())  # its end cancels the sweeper again, which then stops

"""This instance's work for the computer players: one driver task per game a bot is moving in,
the sweeper that finds the games whose move is overdue, and the worker processes the bots
decide in (``service.bots.turns`` holds what the tasks do)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import Any, Final

from service.analysis.pool import AnalysisPool

_log = logging.getLogger(__name__)

Drive = Callable[[str], Coroutine[Any, Any, None]]

STOP_SECONDS: Final = 5.0
"""How long a shutdown waits for the drivers and the sweeper to stop once cancelled."""


class BotTasks:
    """At most one driver per game on this instance (a nudge for a game being driven makes the
    driver look once more when it is done), and the sweeper, from ``start`` to ``close``."""

    def __init__(self, pool: AnalysisPool) -> None:
        self.pool = pool
        """Worker processes for the decisions: a ``hard`` one thinks for up to 200 ms, holding
        the interpreter's lock all that time, which a thread would not free the loop of."""
        self.owner = secrets.token_hex(8)
        """This instance's name on the games it claims and the shards it sweeps."""
        self._drive: Drive | None = None
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def driving(self) -> int:
        """Games a driver is moving in on this instance now."""
        return len(self._drivers)

    def start(self, drive: Drive, sweep: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Drive games with ``drive`` from now on, and run ``sweep`` (with the app: its
        startup)."""
        self._drive = drive
        self._sweeper = asyncio.create_task(sweep(), name="bot-sweeper")

    def nudge(self, game_id: str) -> None:
        """Make this instance's driver look at the game: the moves due in it are made soon,
        without the caller waiting for them."""
        if self._drive is None:  # not started (an app used without its lifespan)
            return
        if game_id in self._drivers:
            self._again.add(game_id)
            return
        self._drivers[game_id] = asyncio.create_task(self._run(game_id), name=f"bot:{game_id}")

    async def _run(self, game_id: str) -> None:
        assert self._drive is not None
        try:
            while True:
                self._again.discard(game_id)
                try:
                    await self._drive(game_id)
                except Exception:
                    # Its due entry keeps its lease: another look (here or on another instance)
                    # comes when the lease runs out.
                    _log.exception("game %s: the computer players' moves failed", game_id)
                    return
                if game_id not in self._again:
                    return
        finally:
            del self._drivers[game_id]
            self._again.discard(game_id)

    async def close(self) -> None:
        """Stop the sweeper and the drivers (with the app): a move not committed yet is made
        by whichever instance takes the game's entry once its lease runs out."""
        tasks = [*self._drivers.values(), *([self._sweeper] if self._sweeper else [])]
        self._drive, self._sweeper = None, None
        for task in tasks:
            task.cancel()
        if tasks:
            # Bounded: a task that swallowed its cancellation must not hold the shutdown
            # forever (its lease runs out and another instance takes its game).
            _, stuck = await asyncio.wait(tasks, timeout=STOP_SECONDS)
            for task in stuck:
                _log.warning(
                    "%s did not stop within %s s of the shutdown", task.get_name(), STOP_SECONDS
                )
        self.pool.close()

"""This instance's work for the computer players: one driver task per game a bot is moving in,
the sweeper that finds the games whose move is overdue, and the worker processes the bots
decide in (``service.bots.turns`` holds what the tasks do)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import Any, Final

from service.workers.pool import WorkerPool

_log = logging.getLogger(__name__)

Drive = Callable[[str], Coroutine[Any, Any, None]]

STOP_SECONDS: Final = 5.0
"""How long a shutdown waits for the drivers and the sweeper to stop once cancelled."""
MAX_DRIVING: Final = 4096
"""Games this instance drives at once, at most: a sweep takes no more than there is room for,
and leaves the rest to the next sweep or another instance's. A sweep of one batch of 64 a
second let 3,000 idle clock games fire a 3 s clock after 47 s."""


class BotTasks:
    """At most one driver per game on this instance (a nudge for a game being driven makes the
    driver look once more when it is done), and the sweeper, from ``start`` to ``close``."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool
        """Worker processes for the decisions: a ``hard`` one thinks for up to 200 ms, holding
        the interpreter's lock all that time, which a thread would not free the loop of."""
        self.owner = secrets.token_hex(8)
        """This instance's name on the games it claims and the shards it sweeps."""
        self._drive: Drive | None = None
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self.behind = False
        """Whether due games wait here for room: the last sweep ran out of room before it ran
        out of due games, or a bot put on turn found none. While it is, a bot put on turn
        waits its turn among the due entries (sweeps take those waiting longest first) rather
        than start ahead of games that have waited longer, and the sweeper comes again as soon
        as the pool has room."""

    @property
    def driving(self) -> int:
        """Games a driver is moving in on this instance now."""
        return len(self._drivers)

    @property
    def room(self) -> int:
        """Games this instance may start driving now: as many as there are drivers and
        decisions to spare. A game started past what the pool can queue has its decision
        refused at once and goes back among the due entries: a soak after an instance died
        spent its survivor's loop on 80,000 such round trips while people's games waited."""
        # Drivers not waiting on the pool (loading, committing) may each ask it for a decision next.
        about_to_ask = max(0, self.driving - self.pool.pending)
        return min(MAX_DRIVING - self.driving, self.pool.room - about_to_ask)

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

    def nudge_in_turn(self, game_id: str) -> None:
        """``nudge`` for a bot just put on turn, if there is room to drive its game and no due
        game waits for room here; else the game waits its turn among the due entries (its
        commit wrote its entry), behind those that have waited longer. When every move started
        at once, a survivor of a kill kept its pool full with the newest moves while games
        refused earlier waited among the entries for 30 s and more."""
        if game_id not in self._drivers and (self.behind or self.room <= 0):
            self.behind = True
            return
        self.nudge(game_id)

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

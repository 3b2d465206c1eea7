"""This instance's runner of tournaments: it takes the due tournaments every ``SWEEP_SECONDS``
(or when woken) and looks at each (``service.tournaments.running.advance``), and it hears from the
games' bus when a tournament's game ends (``tournaments_told``), at most one look per tournament
at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Final

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol

from service.games.bus import Committed, GameNews, Subscriber
from service.storage.game_store import StoreUnavailable
from service.storage.redis_connection import being_cancelled
from service.tournaments.deps import TournamentServices
from service.tournaments.running import LEASE, advance

SWEEP_SECONDS: Final = 1.0
"""How often each instance's runner takes the due tournaments."""
SWEEP_BATCH: Final = 64

_log = logging.getLogger(__name__)


Look = Callable[[str], Awaitable[None]]
TakeDue = Callable[[float, float, int], Awaitable[list[str]]]
"""``TournamentStore.take_due``."""


class TournamentRunner:
    """This instance's looks at tournaments: the due ones every ``SWEEP_SECONDS`` (or when
    woken), and those the games' news name, at most one look per tournament at once."""

    def __init__(self) -> None:
        self._take_due: TakeDue | None = None
        self._look: Look | None = None
        self._looking: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._wake = asyncio.Event()
        self._sweeper: asyncio.Task[None] | None = None

    def start(self, look: Look, take_due: TakeDue) -> None:
        """Look at tournaments with ``look`` from now on, sweeping the entries ``take_due``
        takes (with the app: its startup)."""
        self._look, self._take_due = look, take_due
        self._wake = asyncio.Event()
        self._sweeper = asyncio.create_task(self._sweep(), name="tournament-sweeper")

    def wake(self) -> None:
        """Take the due tournaments now (one was just made to start at once)."""
        self._wake.set()

    def nudge(self, tournament_id: str) -> None:
        """Look at the tournament soon (one of its games is over)."""
        if self._look is None:  # not started (an app used without its lifespan)
            return
        if tournament_id in self._looking:
            self._again.add(tournament_id)
            return
        task = asyncio.create_task(self._run(tournament_id), name=f"tournament:{tournament_id}")
        self._looking[tournament_id] = task

    async def _run(self, tournament_id: str) -> None:
        assert self._look is not None
        try:
            while True:
                self._again.discard(tournament_id)
                try:
                    await self._look(tournament_id)
                except StoreUnavailable:
                    _log.warning("tournament %s: the store is unavailable", tournament_id)
                    return
                except Exception:  # its due entry brings another look after the lease
                    _log.exception("tournament %s: the look failed", tournament_id)
                    return
                if tournament_id not in self._again:
                    return
        finally:
            del self._looking[tournament_id]
            self._again.discard(tournament_id)

    async def _sweep(self) -> None:
        assert self._take_due is not None
        while not being_cancelled():
            self._wake.clear()
            try:
                for tournament_id in await self._take_due(time.time(), LEASE, SWEEP_BATCH):
                    self.nudge(tournament_id)
            except StoreUnavailable:
                pass
            except Exception:  # the sweeper outlives anything one sweep meets
                _log.exception("tournaments: taking the due ones failed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SWEEP_SECONDS):
                    await self._wake.wait()

    async def close(self) -> None:
        tasks = [*self._looking.values(), *([self._sweeper] if self._sweeper else [])]
        self._look, self._sweeper = None, None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def tournaments_told(runner: TournamentRunner) -> Subscriber:
    """The subscriber that has the runner look at a tournament when one of its games ends."""

    def heard(news: GameNews) -> None:
        if (
            isinstance(news, Committed)
            and news.record.tournament is not None
            and news.state.status == "finished"
        ):
            runner.nudge(news.record.tournament)

    return heard


class TournamentRunnerPlugin(InitPluginProtocol):
    """This instance's runner, for the app's lifespan."""

    def __init__(self, services: TournamentServices) -> None:
        self._services = services

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.lifespan.append(self._lifespan)
        return app_config

    @asynccontextmanager
    async def _lifespan(self, _app: Litestar) -> AsyncIterator[None]:
        runner = self._services.tournament_runner

        async def look(tournament_id: str) -> None:
            await advance(self._services, tournament_id)

        runner.start(look, self._services.tournaments.take_due)
        try:
            yield
        finally:
            await runner.close()

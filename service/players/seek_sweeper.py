"""This instance's sweeper of the seek pools: every ``SWEEP_SECONDS`` it matches what the rated
pools' widened windows allow (``SeekPool.sweep``) and deals each match's game, so a seek waiting
for a near rating is matched as its window widens, with no other seek arriving. Every instance
sweeps: a pool's step is atomic, so two sweeping at once make each match once; an instance that
dies between a match and its deal leaves the game to the next reader of one of its seeks
(``service.players.seeks.dealt``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol

from service.games import records as game_records
from service.players import seeks
from service.players.deps import PlayerServices
from service.storage.game_store import StoreUnavailable
from service.storage.redis_connection import being_cancelled

SWEEP_BATCH: Final = 64
"""Due pools a sweep looks at: the rest wait for the next (each is a table or more)."""

_log = logging.getLogger(__name__)


async def sweep_once(services: PlayerServices) -> int:
    """Match and deal what the due pools allow now: the number of games dealt."""
    made = await services.seeks.sweep(game_records.new_game_id, SWEEP_BATCH)
    for state in made:
        await seeks.dealt(services, state)
    return len(made)


async def sweep_forever(services: PlayerServices, seconds: float) -> None:
    while not being_cancelled():
        try:
            await sweep_once(services)
        except StoreUnavailable:
            pass
        except Exception:  # the sweeper outlives anything one sweep meets
            _log.exception("seeks: the sweep failed")
        await asyncio.sleep(seconds)


class SeekSweeperPlugin(InitPluginProtocol):
    """The sweeper's loop, for the app's lifespan."""

    def __init__(self, services: PlayerServices, seconds: float) -> None:
        self._services = services
        self._seconds = seconds

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.lifespan.append(self._lifespan)
        return app_config

    @asynccontextmanager
    async def _lifespan(self, _app: Litestar) -> AsyncIterator[None]:
        task = asyncio.create_task(sweep_forever(self._services, self._seconds))
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

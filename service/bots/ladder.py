"""The bot ladder: the built-in levels play rated games among themselves, so that their ratings,
and a new level's, settle without a person (docs/ratings.md, "The bot ladder").

With ``LADDER_GAMES`` above 0, each instance keeps up to that many ladder games of its own in
play: every sweep it forgets those that ended (or expired) and deals new ones while it has
fewer, as long as the bots' pool has room. A ladder game is an ordinary rated game of two seats
(classic rules) between two different levels of ``LADDER_LEVELS`` drawn at random, so it is
rated as ``bot-easy`` … ``bot-expert`` and moved like any game of bots only: in the bots'
low-priority lane (the games people play in go first), by whichever instance sweeps it. A
ladder therefore takes only what the people's games leave, and an instance that dies leaves its
ladder games to the others, to be finished like any game. A deployment keeps ``LADDER_GAMES``
ladder games an instance.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol

from engine.bots import LEVELS
from service.bots.deps import BotServices
from service.games import lifecycle as game_flow
from service.games.lifecycle import LoadedGame, create_game
from service.games.wire import CreateGameRequest, PlayerIn
from service.http.problems import GameNotFound
from service.settings import SettingsError
from service.storage.game_store import StoreUnavailable

_log = logging.getLogger(__name__)

SEATS: Final = 2
"""A ladder game's seats: two levels, so that each game is a duel of two ratings."""


def checked_levels(levels: tuple[str, ...]) -> tuple[str, ...]:
    """``LADDER_LEVELS`` as the ladder pairs them: known levels, at least two different."""
    unknown = [level for level in levels if level not in LEVELS]
    if unknown or len(set(levels)) < SEATS:
        raise SettingsError(
            "LADDER_LEVELS", ",".join(levels), f"two or more of {', '.join(LEVELS)}"
        )
    return tuple(dict.fromkeys(levels))


class Ladder:
    """This instance's ladder games: the ones it dealt and has not seen end."""

    def __init__(self, services: BotServices, rng: random.Random | None = None) -> None:
        settings = services.settings
        self._services = services
        self._games = settings.ladder_games
        self._levels = checked_levels(settings.ladder_levels)
        self._rng = rng or random.Random()
        self.playing: set[str] = set()

    async def top_up(self) -> int:
        """Forget the ladder games that ended and deal new ones up to ``LADDER_GAMES`` (while
        the bots' pool has room); the number dealt."""
        for game_id in list(self.playing):
            if not await self._in_play(game_id):
                self.playing.discard(game_id)
        dealt = 0
        while len(self.playing) < self._games and self._services.bots.room > 0:
            self.playing.add(await self._deal())
            dealt += 1
        return dealt

    async def _in_play(self, game_id: str) -> bool:
        try:
            loaded = await game_flow.load_any(self._services, game_id)
        except GameNotFound:
            return False
        return isinstance(loaded, LoadedGame) and loaded.state.status == "playing"

    async def _deal(self) -> str:
        levels = self._rng.sample(self._levels, SEATS)
        request = CreateGameRequest(players=[PlayerIn(bot=level) for level in levels])
        names = [f"{level.capitalize()} bot" for level in levels]
        answer = await create_game(self._services, request, names, tuple(levels), rated=True)
        assert answer.location is not None
        return answer.location.rsplit("/", 1)[-1]


async def climb_forever(ladder: Ladder, seconds: float) -> None:
    """Top the ladder up every ``seconds``; an outage of the store skips a round."""
    while True:
        try:
            await ladder.top_up()
        except StoreUnavailable:
            _log.warning("bot ladder: the store is unavailable; trying again")
        await asyncio.sleep(seconds)


class LadderPlugin(InitPluginProtocol):
    """The ladder's loop, for the app's lifespan, when ``LADDER_GAMES`` is above 0."""

    def __init__(self, services: BotServices) -> None:
        self.ladder = Ladder(services) if services.settings.ladder_games else None
        self._seconds = services.settings.sweep_seconds

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.lifespan.append(self._lifespan)
        return app_config

    @asynccontextmanager
    async def _lifespan(self, _app: Litestar) -> AsyncIterator[None]:
        if self.ladder is None:
            yield
            return
        task = asyncio.create_task(climb_forever(self.ladder, self._seconds))
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

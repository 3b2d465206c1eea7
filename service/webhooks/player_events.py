"""How webhooks hear of a player's events without the players knowing webhooks exist: every
event a player gets is logged through the players' store (``PlayerStore.log_event``, by
``service.players.news.log_events``), so the composition root hands the players a store that,
once an event is logged, queues it for the player's webhooks and its app's, when the player
belongs to an app this deployment serves (``service.webhooks.deliveries``), and wakes this
instance's courier. Everything else passes through unchanged.

Queueing is one or two store round trips (none is an HTTP call), and where the deployment serves
apps, a read of the player's profile the first time (a player's app never changes, so it is
remembered): a failure to queue is logged and never reaches whoever logged the event, as a
failure to log reaches no game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Final

import msgspec

from service.identity.apps import app_owner
from service.identity.store import GameEntry, PlayerRecord, PlayerStore
from service.storage.game_store import StoreUnavailable
from service.webhooks.deliveries import Courier, queue_event

_log = logging.getLogger(__name__)
APPS_REMEMBERED: Final = 10_000
"""Players whose app (or none) this instance remembers: past it, it forgets them all and reads
each profile again once."""


class EventsToWebhooks:
    """``players``, whose ``log_event`` also queues the event for the player's webhooks."""

    def __init__(
        self,
        players: PlayerStore,
        courier: Courier,
        *,
        apps: Iterable[str] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.players = players
        self.announces_events = players.announces_events
        self._courier = courier
        self._apps = frozenset(apps)
        """The names of the apps this deployment serves (``APP_KEYS``)."""
        self._app_of: dict[str, str | None] = {}
        self._clock = clock

    async def log_event(self, player_id: str, event: bytes) -> None:
        await self.players.log_event(player_id, event)
        try:
            app = await self._app(player_id)
            if await queue_event(self._courier.store, player_id, app, event, self._clock()):
                self._courier.wake()
        except (StoreUnavailable, msgspec.DecodeError) as error:
            _log.warning("player %s: event not queued for its webhooks (%s)", player_id, error)

    async def _app(self, player_id: str) -> str | None:
        """The id of the player's app (``app:<name>``), if it is one this deployment serves
        (an app taken out of ``APP_KEYS`` gets nothing more)."""
        if not self._apps:
            return None
        if player_id not in self._app_of:
            if len(self._app_of) >= APPS_REMEMBERED:
                self._app_of.clear()
            player = await self.players.get(player_id)
            self._app_of[player_id] = None if player is None else player.app
        app = self._app_of[player_id]
        return app_owner(app) if app in self._apps else None

    async def create(self, player: PlayerRecord, key_hash: bytes) -> None:
        await self.players.create(player, key_hash)

    async def player_of_key(self, key_hash: bytes) -> str | None:
        return await self.players.player_of_key(key_hash)

    async def get(self, player_id: str) -> PlayerRecord | None:
        return await self.players.get(player_id)

    async def key_hash_of(self, player_id: str) -> bytes | None:
        return await self.players.key_hash_of(player_id)

    async def replace_key(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        return await self.players.replace_key(player_id, old_hash, new_hash)

    async def add_game(self, player_id: str, entry: GameEntry) -> None:
        await self.players.add_game(player_id, entry)

    async def games(self, player_id: str, after: GameEntry | None, count: int) -> list[GameEntry]:
        return await self.players.games(player_id, after, count)

    async def game_count(self, player_id: str) -> int:
        return await self.players.game_count(player_id)

    async def drop_games(self, player_id: str, game_ids: Iterable[str]) -> None:
        await self.players.drop_games(player_id, game_ids)

    async def events_after(
        self, player_id: str, after: tuple[int, int] | None
    ) -> list[tuple[str, bytes]]:
        return await self.players.events_after(player_id, after)

    async def last_event(self, player_id: str) -> tuple[int, int] | None:
        return await self.players.last_event(player_id)

    async def present(self, player_id: str, stream_id: str, until: float) -> None:
        await self.players.present(player_id, stream_id, until)

    async def absent(self, player_id: str, stream_id: str) -> None:
        await self.players.absent(player_id, stream_id)

    async def online(self, now: float) -> list[str]:
        return await self.players.online(now)

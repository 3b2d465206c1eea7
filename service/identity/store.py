"""Where players live: their profiles, the hashes of their keys, and each player's games.

A player is kept for good (an account, not a game: it does not expire). Each player's games are
an index of game ids by creation time, newest first, at most ``GAMES_KEPT`` of them; it may hold
a game that has since expired, or whose creation failed after the entry was written (entries are
written first, so a game is never missing from its players' lists): readers drop those entries
as they meet them (``drop_games``).

In this process's memory (the default) or in Redis (``service.identity.redis_store``).
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Final, Protocol

import msgspec

from service.storage.game_store import StoreFull

GAMES_KEPT: Final = 1000
"""The newest games kept in a player's list: older ones leave it (the games themselves are
kept or expire as any game)."""
EVENTS_KEPT: Final = 200
"""The newest events kept in a player's log, for streams that resume (``Last-Event-ID``)."""
EVENTS_TTL: Final = 86400.0
"""A player's log is kept this long after its last event."""
_EVENT_ID: Final = re.compile(r"\A[0-9]{1,20}-[0-9]{1,20}\Z")


def event_position(event_id: str) -> tuple[int, int] | None:
    """Where an event id (``<number>-<number>``, as Redis streams number entries) stands in
    its log's order; None for a string that is not one."""
    if not _EVENT_ID.match(event_id):
        return None
    first, _, second = event_id.partition("-")
    return int(first), int(second)


PLAYER_CHANNEL_PREFIX: Final = "player:"


PRESENCE_SECONDS: Final = 60.0
"""How long a bot's open stream keeps it online without renewing (an instance that dies takes
its bots offline this long after)."""
ONLINE_LISTED: Final = 100
"""The most bots ``GET /v1/bots/online`` lists."""


def player_channel(player_id: str) -> str:
    """The channel that wakes a player's event streams (``service.players.events``)."""
    return f"{PLAYER_CHANNEL_PREFIX}{player_id}"


class PlayerRecord(msgspec.Struct, frozen=True, array_like=True):
    player_id: str
    name: str
    bot: bool
    """A program that plays as this player (``"bot": true`` at creation)."""
    created: float
    """Unix time of creation."""
    app: str | None = None
    """The app whose key made the player (``service.identity.apps``), for good; None for a
    player made without one. Last, with a default: records kept before it read as None."""


GameEntry = tuple[float, str]
"""A player's game in the index: (its creation time, its id); the order is newest first, ties
broken by id, highest first."""


class PlayerStore(Protocol):
    announces_events: bool
    """Whether logging an event also wakes the player's streams on every instance (Redis: the
    log is the channel's own stream); if not, the caller publishes the notice (memory)."""

    async def create(self, player: PlayerRecord, key_hash: bytes) -> None:
        """Store a new player whose key hashes to ``key_hash`` (ids are fresh random: never
        taken); StoreFull when the store holds as many players as it may."""

    async def player_of_key(self, key_hash: bytes) -> str | None:
        """The id of the player whose current key hashes to ``key_hash``; None for a key that
        is unknown or was replaced."""

    async def get(self, player_id: str) -> PlayerRecord | None:
        """The player, or None."""

    async def key_hash_of(self, player_id: str) -> bytes | None:
        """The hash of the player's current key (what its stream keys are made with), or None."""

    async def replace_key(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        """Make ``new_hash`` the player's key in place of ``old_hash``, which stops working
        before this returns; False, changing nothing, when ``old_hash`` is no longer the
        player's key (a concurrent replacement won)."""

    async def add_game(self, player_id: str, entry: GameEntry) -> None:
        """Put a game in the player's list (at most ``GAMES_KEPT``: the oldest leave it)."""

    async def games(self, player_id: str, after: GameEntry | None, count: int) -> list[GameEntry]:
        """Up to ``count`` of the player's games, newest first, from the one after ``after``."""

    async def game_count(self, player_id: str) -> int:
        """How many games the player's list holds."""

    async def drop_games(self, player_id: str, game_ids: Iterable[str]) -> None:
        """Take games out of the player's list (gone from the store)."""

    async def log_event(self, player_id: str, event: bytes) -> None:
        """Append an event to the player's log (the newest ``EVENTS_KEPT``, for a day)."""

    async def events_after(
        self, player_id: str, after: tuple[int, int] | None
    ) -> list[tuple[str, bytes]]:
        """The logged events after the position ``after`` (all kept: None), oldest first, each
        with its id."""

    async def last_event(self, player_id: str) -> tuple[int, int] | None:
        """The position of the player's newest logged event, None for none."""

    async def present(self, player_id: str, stream_id: str, until: float) -> None:
        """A stream of the player's is open, until Unix time ``until`` unless renewed."""

    async def absent(self, player_id: str, stream_id: str) -> None:
        """That stream of the player's is closed."""

    async def online(self, now: float) -> list[str]:
        """The players with a stream open at Unix time ``now`` (at most ``ONLINE_LISTED``),
        those whose presence ends last first."""


def newest_first(
    entries: Iterable[GameEntry], after: GameEntry | None, count: int
) -> list[GameEntry]:
    """``count`` of ``entries`` in the list's order (newest first), from the one after ``after``."""
    ordered = sorted(entries, reverse=True)
    if after is not None:
        ordered = [entry for entry in ordered if entry < after]
    return ordered[:count]


class MemoryPlayerStore:
    """Players in this process's memory, at most ``max_players`` of them. Safe under asyncio:
    nothing awaits between reading and writing."""

    announces_events = False

    def __init__(
        self, *, max_players: int | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._max_players = max_players
        self._clock = clock
        self._players: dict[str, PlayerRecord] = {}
        self._keys: dict[bytes, str] = {}
        self._current: dict[str, bytes] = {}
        self._games: dict[str, dict[str, float]] = {}
        self._events: dict[str, deque[tuple[tuple[int, int], bytes]]] = {}
        self._events_until: dict[str, float] = {}
        self._event_count = 0
        self._presence: dict[tuple[str, str], float] = {}

    async def create(self, player: PlayerRecord, key_hash: bytes) -> None:
        if self._max_players is not None and len(self._players) >= self._max_players:
            raise StoreFull(f"this instance keeps {self._max_players} players, its limit")
        self._players[player.player_id] = player
        self._keys[key_hash] = player.player_id
        self._current[player.player_id] = key_hash

    async def player_of_key(self, key_hash: bytes) -> str | None:
        return self._keys.get(key_hash)

    async def get(self, player_id: str) -> PlayerRecord | None:
        return self._players.get(player_id)

    async def key_hash_of(self, player_id: str) -> bytes | None:
        return self._current.get(player_id)

    async def replace_key(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        if self._keys.get(old_hash) != player_id:
            return False
        del self._keys[old_hash]
        self._keys[new_hash] = player_id
        self._current[player_id] = new_hash
        return True

    async def add_game(self, player_id: str, entry: GameEntry) -> None:
        games = self._games.setdefault(player_id, {})
        created, game_id = entry
        games[game_id] = created
        if len(games) > GAMES_KEPT:
            oldest = min(games.items(), key=lambda item: (item[1], item[0]))
            del games[oldest[0]]

    async def games(self, player_id: str, after: GameEntry | None, count: int) -> list[GameEntry]:
        games = self._games.get(player_id, {})
        return newest_first(((created, gid) for gid, created in games.items()), after, count)

    async def game_count(self, player_id: str) -> int:
        return len(self._games.get(player_id, {}))

    async def drop_games(self, player_id: str, game_ids: Iterable[str]) -> None:
        games = self._games.get(player_id, {})
        for game_id in game_ids:
            games.pop(game_id, None)

    async def log_event(self, player_id: str, event: bytes) -> None:
        now = self._clock()
        for gone in [p for p, until in self._events_until.items() if until < now]:
            del self._events[gone], self._events_until[gone]
        self._event_count += 1
        log = self._events.setdefault(player_id, deque(maxlen=EVENTS_KEPT))
        log.append(((self._event_count, 0), event))
        self._events_until[player_id] = now + EVENTS_TTL

    async def events_after(
        self, player_id: str, after: tuple[int, int] | None
    ) -> list[tuple[str, bytes]]:
        return [
            (f"{first}-{second}", event)
            for (first, second), event in self._events.get(player_id, ())
            if after is None or (first, second) > after
        ]

    async def last_event(self, player_id: str) -> tuple[int, int] | None:
        log = self._events.get(player_id)
        return log[-1][0] if log else None

    async def present(self, player_id: str, stream_id: str, until: float) -> None:
        self._presence[player_id, stream_id] = until

    async def absent(self, player_id: str, stream_id: str) -> None:
        self._presence.pop((player_id, stream_id), None)

    async def online(self, now: float) -> list[str]:
        for gone in [entry for entry, until in self._presence.items() if until <= now]:
            del self._presence[gone]
        latest: dict[str, float] = {}
        for (player_id, _), until in self._presence.items():
            latest[player_id] = max(until, latest.get(player_id, until))
        return sorted(latest, key=lambda p: latest[p], reverse=True)[:ONLINE_LISTED]

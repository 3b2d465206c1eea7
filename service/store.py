"""Where games live: one small protocol, an in-memory implementation (the default, one process)
and a Redis one (`service.redis_store`, many instances).

A game is stored as an opaque record (bytes the service encodes: engine state, seat-token hashes,
the action log) under a version that increases by one per applied action. Every write after the
first is a compare-and-set on that version, and an action's idempotency record is written in the
same atomic step as the action itself, so a retried request can never apply twice.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


class StoreError(Exception):
    """Base of the store's errors."""


class StoreUnavailable(StoreError):
    """The backing store cannot be reached (the service answers 503)."""


class GameExists(StoreError):
    """A game id was created twice."""


class StoreFull(StoreError):
    """The store holds as many games as it may (the service answers 503 with Retry-After)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    version: int
    record: bytes
    saved: bytes | None = None
    """The response saved under the idempotency key that ``load`` was asked to recall, if any."""


class Store(Protocol):
    async def create(self, game_id: str, record: bytes) -> None:
        """Store a new game at version 0; GameExists if the id is taken."""

    async def load(self, game_id: str, *, recall: str | None = None) -> StoredGame | None:
        """The game's current version and record, or None if there is no such game (or expired).
        With ``recall``, also the response saved under that idempotency key, in the same round
        trip: an action with an Idempotency-Key costs one load and one commit, like any other."""

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: bytes,
        *,
        idempotency: tuple[str, bytes] | None = None,
    ) -> bool:
        """Atomically: if the game is at ``expected_version``, store ``record`` at
        ``expected_version + 1`` and, with it, ``idempotency`` = (key, saved response). Returns
        False, changing nothing, if the version moved on or the game is gone. Refreshes the TTLs."""

    async def recall(self, game_id: str, key: str) -> bytes | None:
        """The response saved with an idempotency key, or None."""

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""

    async def close(self) -> None:
        """Release connections."""


class MemoryStore:
    """Games in this process's memory, with expiry, at most ``max_games`` of them (a create
    past it raises StoreFull: the service answers 503 with Retry-After, and no game is evicted
    before its time). Safe under asyncio: no method awaits between reading and writing a game.

    Expiry is incremental: every write of a game or a saved response gives it the same TTL from
    now, so ordered by their last write (``OrderedDict``, a touched game moved to the end) they
    are ordered by deadline, and a create drops the expired ones from the front: amortised
    constant time, however many games there are, where a scan of all of them cost a create
    more and more as the store filled.
    """

    def __init__(
        self,
        *,
        game_ttl: float = 7 * 86400,
        idempotency_ttl: float = 86400,
        max_games: int | None = None,
    ) -> None:
        self._game_ttl = game_ttl
        self._idempotency_ttl = idempotency_ttl
        self._max_games = max_games
        self._games: OrderedDict[str, tuple[StoredGame, float]] = OrderedDict()
        self._saved: OrderedDict[tuple[str, str], tuple[bytes, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._games)

    async def create(self, game_id: str, record: bytes) -> None:
        self._expire()
        if game_id in self._games:
            raise GameExists(game_id)
        if self._max_games is not None and len(self._games) >= self._max_games:
            raise StoreFull(
                f"this instance holds {self._max_games} games, its limit: try again once some "
                "have expired"
            )
        self._games[game_id] = (StoredGame(0, record), time.monotonic() + self._game_ttl)

    async def load(self, game_id: str, *, recall: str | None = None) -> StoredGame | None:
        entry = self._games.get(game_id)
        if entry is None or entry[1] < time.monotonic():
            return None
        if recall is None:
            return entry[0]
        stored = entry[0]
        return StoredGame(stored.version, stored.record, await self.recall(game_id, recall))

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: bytes,
        *,
        idempotency: tuple[str, bytes] | None = None,
    ) -> bool:
        current = await self.load(game_id)
        if current is None or current.version != expected_version:
            return False
        now = time.monotonic()
        self._games[game_id] = (StoredGame(expected_version + 1, record), now + self._game_ttl)
        self._games.move_to_end(game_id)
        if idempotency is not None:
            key, response = idempotency
            self._saved[game_id, key] = (response, now + self._idempotency_ttl)
            self._saved.move_to_end((game_id, key))
        return True

    async def recall(self, game_id: str, key: str) -> bytes | None:
        entry = self._saved.get((game_id, key))
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        self._games.clear()
        self._saved.clear()

    def _expire(self) -> None:
        now = time.monotonic()
        _drop_expired(self._games, now)
        _drop_expired(self._saved, now)


def _drop_expired(entries: OrderedDict[_K, tuple[_V, float]], now: float) -> None:
    """Drop the entries whose deadline has passed: the first ones, ordered as they are."""
    while entries:
        key, (_, until) = next(iter(entries.items()))
        if until >= now:
            return
        del entries[key]

"""Where games live: one small protocol, an in-memory implementation (the default, one process)
and a Redis one (`service.storage.redis_game_store`, many instances).

A game is stored as an opaque record (bytes the service encodes: engine state, seat-token hashes)
under a version that increases by one per applied action, and a list of segments that only ever
grows (the sealed parts of its history, see ``service.games.records``): a write replaces the
record and appends a few segments, so its size does not grow with the game. Every write after the
first is a compare-and-set on that version, and an action's idempotency record is written in the
same atomic step as the action itself, so a retried request can never apply twice. So is the
game's due entry (``service.storage.due_moves``): every create and commit says when the service's
next move in the game is due (``due``, None for none), and the store writes it with the version.

A game nobody has acted in yet (created, and since then moved only by bots, clocks or nobody)
is kept ``idle_game_ttl``; the first commit a person makes (``acted``) keeps it ``game_ttl`` from
then on.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from service.storage.due_moves import MemoryDueMoves

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
    segments: tuple[bytes, ...] = ()
    """The game's segments from the index ``load`` was asked for on (possibly a few more than
    ``record`` seals, appended by a later write)."""


class Store(Protocol):
    announces_commits: bool
    """Whether each commit also wakes the game's streams, in the commit's own atomic step (Redis:
    a notice on the game's event stream); if not, the caller publishes the notice after the
    commit (memory: in this process, where nothing can lose it)."""

    async def create(
        self,
        game_id: str,
        record: bytes,
        *,
        segments: Sequence[bytes] = (),
        idempotency: tuple[str, bytes] | None = None,
        due: float | None = None,
    ) -> None:
        """Store a new game at version 0 with its first segments and, in the same atomic step,
        ``idempotency`` = (key, saved answer) and its due entry; GameExists, changing nothing,
        if the id is taken. The game is idle (kept ``idle_game_ttl``) until a person acts."""

    async def load(
        self, game_id: str, *, recall: str | None = None, segments_from: int = 0
    ) -> StoredGame | None:
        """The game's current version and record, and its segments from index ``segments_from``
        on (a caller that holds the first ones asks only for the rest), or None if there is no
        such game (or expired). With ``recall``, also the response saved under that idempotency
        key. One round trip: an action with an Idempotency-Key costs one load and one commit,
        like any other."""

    async def commit(  # noqa: PLR0913  # the protocol's one atomic write: each part a keyword
        self,
        game_id: str,
        expected_version: int,
        record: bytes,
        *,
        segments: Sequence[bytes] = (),
        idempotency: tuple[str, bytes] | None = None,
        due: float | None = None,
        acted: bool = True,
    ) -> bool:
        """Atomically: if the game is at ``expected_version``, store ``record`` at
        ``expected_version + 1``, append ``segments`` and, with them, save ``idempotency`` =
        (key, saved response) and set the game's due entry to ``due`` (None: no entry).
        Returns False, changing nothing, if the version moved on or the game is gone. Refreshes
        the TTLs: ``game_ttl`` once a person has acted (``acted``: this commit is a person's),
        ``idle_game_ttl`` while nobody has."""

    async def recall(self, game_id: str, key: str) -> bytes | None:
        """The response saved with an idempotency key, or None."""

    async def expiry(self, game_id: str) -> float | None:
        """When the game expires unless a commit keeps it longer, in seconds on the store's own
        clock (memory: the clock the memory backends share; Redis: the server's Unix time), or
        None if there is no such game: what is kept beside a game expires with it
        (``service.records.finished``)."""

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""

    async def close(self) -> None:
        """Release connections."""


class MemoryStore:
    """Games in this process's memory, with expiry, at most ``max_games`` of them (a create
    past it raises StoreFull: the service answers 503 with Retry-After, and no game is evicted
    before its time), and their due moves (``due``, written in each commit's step). Safe under
    asyncio: no method awaits between reading and writing a game.

    Expiry is incremental: every write of a game or a saved response gives it the same TTL from
    now, so ordered by their last write (``OrderedDict``, a touched game moved to the end) they
    are ordered by deadline, and a create drops the expired ones from the front: amortised
    constant time, however many games there are, where a scan of all of them cost a create
    more and more as the store filled. Idle games (``idle_game_ttl``) are a second such order.
    """

    announces_commits = False

    def __init__(  # noqa: PLR0913  # keyword-only knobs, each with its default
        self,
        *,
        game_ttl: float = 7 * 86400,
        idle_game_ttl: float | None = None,
        idempotency_ttl: float = 86400,
        max_games: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_saved: int = 100_000,
    ) -> None:
        """``clock`` gives the seconds that expiry counts (tests pass one they move by hand);
        ``idle_game_ttl`` None: idle games are kept as long as any."""
        self._clock = clock
        self._game_ttl = game_ttl
        self._idle_ttl = game_ttl if idle_game_ttl is None else min(idle_game_ttl, game_ttl)
        self._max_saved = max_saved
        self._idempotency_ttl = idempotency_ttl
        self._max_games = max_games
        self._games: OrderedDict[str, tuple[StoredGame, float]] = OrderedDict()
        self._idle: OrderedDict[str, tuple[StoredGame, float]] = OrderedDict()
        self._saved: OrderedDict[tuple[str, str], tuple[bytes, float]] = OrderedDict()
        self.due = MemoryDueMoves(self._version_of)
        """The games' due moves, beside them in this process."""

    def __len__(self) -> int:
        return len(self._games) + len(self._idle)

    @property
    def saved_answers(self) -> int:
        """Idempotency-Key answers held (expired ones included until a create drops them)."""
        return len(self._saved)

    @property
    def clock(self) -> Callable[[], float]:
        """The seconds its expiry counts, for the memory backends beside it to count the same."""
        return self._clock

    async def create(
        self,
        game_id: str,
        record: bytes,
        *,
        segments: Sequence[bytes] = (),
        idempotency: tuple[str, bytes] | None = None,
        due: float | None = None,
    ) -> None:
        self._expire()
        if game_id in self._games or game_id in self._idle:
            raise GameExists(game_id)
        if self._max_games is not None and len(self) >= self._max_games:
            raise StoreFull(
                f"this instance holds {self._max_games} games, its limit: try again once some "
                "have expired"
            )
        stored = StoredGame(0, record, segments=tuple(segments))
        now = self._clock()
        self._idle[game_id] = (stored, now + self._idle_ttl)
        self._save(game_id, idempotency, now)
        self.due.put(game_id, due)

    def _live(self, game_id: str) -> StoredGame | None:
        entry = self._games.get(game_id) or self._idle.get(game_id)
        if entry is None or entry[1] < self._clock():
            return None
        return entry[0]

    def _version_of(self, game_id: str) -> int | None:
        stored = self._live(game_id)
        return None if stored is None else stored.version

    async def load(
        self, game_id: str, *, recall: str | None = None, segments_from: int = 0
    ) -> StoredGame | None:
        stored = self._live(game_id)
        if stored is None:
            return None
        if recall is None and segments_from == 0:
            return stored
        saved = None if recall is None else await self.recall(game_id, recall)
        return StoredGame(stored.version, stored.record, saved, stored.segments[segments_from:])

    async def commit(  # noqa: PLR0913  # the protocol's one atomic write: each part a keyword
        self,
        game_id: str,
        expected_version: int,
        record: bytes,
        *,
        segments: Sequence[bytes] = (),
        idempotency: tuple[str, bytes] | None = None,
        due: float | None = None,
        acted: bool = True,
    ) -> bool:
        current = self._live(game_id)
        if current is None or current.version != expected_version:
            return False
        now = self._clock()
        # A tuple of the segments' references: appending copies pointers, never their bytes.
        stored = StoredGame(
            expected_version + 1, record, segments=current.segments + tuple(segments)
        )
        idle = game_id in self._idle and not acted
        games, other = (self._idle, self._games) if idle else (self._games, self._idle)
        other.pop(game_id, None)
        games[game_id] = (stored, now + (self._idle_ttl if idle else self._game_ttl))
        games.move_to_end(game_id)
        self._save(game_id, idempotency, now)
        self.due.put(game_id, due)
        return True

    def _save(self, game_id: str, idempotency: tuple[str, bytes] | None, now: float) -> None:
        """Keep a saved answer; past ``max_saved`` the oldest is dropped (its key is then no
        longer safe to retry, the documented price of a bound)."""
        if idempotency is None:
            return
        key, response = idempotency
        self._saved[game_id, key] = (response, now + self._idempotency_ttl)
        self._saved.move_to_end((game_id, key))
        while len(self._saved) > self._max_saved:
            self._saved.popitem(last=False)

    async def recall(self, game_id: str, key: str) -> bytes | None:
        entry = self._saved.get((game_id, key))
        if entry is None or entry[1] < self._clock():
            return None
        return entry[0]

    async def expiry(self, game_id: str) -> float | None:
        entry = self._games.get(game_id) or self._idle.get(game_id)
        return None if entry is None or entry[1] < self._clock() else entry[1]

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        self._games.clear()
        self._idle.clear()
        self._saved.clear()

    def _expire(self) -> None:
        now = self._clock()
        _drop_expired(self._games, now)
        _drop_expired(self._idle, now)
        _drop_expired(self._saved, now)


def _drop_expired(entries: OrderedDict[_K, tuple[_V, float]], now: float) -> None:
    """Drop the entries whose deadline has passed: the first ones, ordered as they are."""
    while entries:
        key, (_, until) = next(iter(entries.items()))
        if until >= now:
            return
        del entries[key]

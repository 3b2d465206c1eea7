"""Where seeks (quick play) wait to be matched: one pool per set of terms (rules, table size,
rated, clock), oldest first, shared by every instance.

Matching is one atomic step of the pool's store: a seek is added, and if its pool then holds a
table of waiting seeks of distinct players with it (the oldest, or in a rated pool the nearest
ratings its window allows: ``service.players.seek_matching``), they leave it together, each
marked matched to the same new game id, in the same step. A rated pool whose seeks do not fit a
window yet keeps a due time, when the window will have widened enough: every instance sweeps the
due pools (``sweep``, the same step without a new seek), so waiting seeks are matched as their
windows widen without another seek arriving. So two instances adding the
last seeks of a table at once make one match, never two, and no seek is in two games. The
instance whose step matched then creates the game (``service.players.seeks``); any instance
that reads a matched seek whose game is missing (its matcher died in between) creates it from
the seeks alone, under the same id, so exactly one game is made.

A seek is kept ``SEEK_KEPT`` seconds after it is made, matched or not, so its seeker can read
how it ended; a waiting seek past its expiry is expired, and leaves its pool when a match meets
it. In this process's memory (the default) or in Redis (``RedisSeekPool``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, Protocol

import msgspec

from service.players.seek_matching import WIDENING, Waiting, Widening, choose

SEEK_KEPT: Final = 86400.0
"""Seconds a seek is kept after it is made, however it ended."""
SEEKS_PER_PLAYER: Final = 20
"""The most seeks a player may have waiting at once."""


class SeekRecord(msgspec.Struct, frozen=True):
    """A seek as it was made: immutable; its state is kept beside it (``SeekState``)."""

    seek_id: str
    player_id: str
    name: str
    pool: str
    """The terms it is matched by (``service.players.seeks.pool_of``)."""
    rules: bytes
    """The JSON of the game's complete rules (``Rules.to_spec``)."""
    players: int
    rated: bool
    turn_seconds: int | None
    created: float
    """When it entered its pool, on the pool's clock."""
    expires: float
    rating: float | None = None
    """A rated seek's: the seeker's rating under the seek's preset and mode when it was made."""


class SeekState(msgspec.Struct, frozen=True):
    status: str
    """``waiting``, ``matched`` or ``canceled`` (a waiting seek past its expiry is expired)."""
    game_id: str | None = None
    mates: tuple[str, ...] = ()
    """``matched``: the seeks of the match, seat 0 first (the game is made from them)."""

    def text(self) -> str:
        """As the stores keep it: ``waiting``, ``canceled``, or ``matched <game> <a>,<b>…``."""
        if self.status == "matched":
            return f"matched {self.game_id} {','.join(self.mates)}"
        return self.status

    @classmethod
    def from_text(cls, text: str) -> SeekState:
        status, _, rest = text.partition(" ")
        if status != "matched":
            return cls(status)
        game_id, _, mates = rest.partition(" ")
        return cls(status, game_id, tuple(mates.split(",")))


WAITING: Final = SeekState("waiting")
CANCELED: Final = SeekState("canceled")


class TooManySeeks(Exception):
    """The player has ``SEEKS_PER_PLAYER`` seeks waiting."""


class AlreadySeeking(Exception):
    """The player has a seek waiting in the same pool: ``seek_id``."""

    def __init__(self, seek_id: str) -> None:
        super().__init__(seek_id)
        self.seek_id = seek_id


class SeekPool(Protocol):
    async def add(self, seek: SeekRecord, game_id: str) -> SeekState:
        """Put ``seek`` in its pool and match it if the pool now holds a table's seekers with it
        (``seek_matching.choose``): then every seek of the match is matched to ``game_id`` (a
        fresh id), this one's state says so and names them all. A table of other seeks that now
        fits is left to the next ``sweep``. Raises ``TooManySeeks`` or ``AlreadySeeking``,
        adding nothing."""

    async def get(self, seek_id: str) -> tuple[SeekRecord, SeekState] | None:
        """The seek and its state, or None (unknown, or no longer kept)."""

    async def cancel(self, seek: SeekRecord) -> SeekState:
        """Take a waiting seek out of its pool (canceled); a seek no longer waiting is left as
        it is. Its state after."""

    async def sweep(self, new_game_id: Callable[[], str], limit: int) -> list[SeekState]:
        """Match what the widened windows allow now in up to ``limit`` pools whose due time has
        come, each match to a game id of ``new_game_id``: the state of each match made."""


_encoder: Final = msgspec.json.Encoder()


def is_waiting(state: SeekState, seek: SeekRecord, now: float) -> bool:
    return state.status == "waiting" and now < seek.expires


class MemorySeekPool:
    """The pools in this process's memory: safe under asyncio, as nothing awaits between
    reading and writing. The same steps as the Redis pool's script."""

    def __init__(
        self, *, clock: Callable[[], float] = time.time, widening: Widening = WIDENING
    ) -> None:
        self._clock = clock
        self._widening = widening
        self._seeks: dict[str, SeekRecord] = {}
        self._states: dict[str, SeekState] = {}
        self._pools: dict[str, list[str]] = {}
        self._waiting: dict[str, set[str]] = {}
        """Each player's seeks that were waiting when last looked at."""
        self._due: dict[str, float] = {}
        """The rated pools that may match later without a new seek: when."""

    async def add(self, seek: SeekRecord, game_id: str) -> SeekState:
        now = self._clock()
        self._forget_old(now)
        mine = self._waiting.setdefault(seek.player_id, set())
        mine.intersection_update(s for s in mine if self._is_waiting(s, now))
        for other in mine:
            if self._seeks[other].pool == seek.pool:
                raise AlreadySeeking(other)
        if len(mine) >= SEEKS_PER_PLAYER:
            raise TooManySeeks()
        self._seeks[seek.seek_id] = seek
        self._states[seek.seek_id] = WAITING
        queue = self._queue(seek.pool, now)
        queue.append(seek.seek_id)
        mates = self._step(seek.pool, seek.players, now, seek.seek_id)
        if mates is None:
            mine.add(seek.seek_id)
            return WAITING
        return self._matched(mates, game_id)

    async def sweep(self, new_game_id: Callable[[], str], limit: int) -> list[SeekState]:
        now = self._clock()
        made = []
        for pool in [pool for pool, due in self._due.items() if due <= now][:limit]:
            queue = self._queue(pool, now)
            if not queue:
                del self._due[pool]
                continue
            size = self._seeks[queue[0]].players
            while (mates := self._step(pool, size, now, None)) is not None:
                made.append(self._matched(mates, new_game_id()))
        return made

    def _queue(self, pool: str, now: float) -> list[str]:
        """The pool's waiting seeks, oldest first, those no longer waiting dropped."""
        queue = [s for s in self._pools.get(pool, []) if self._is_waiting(s, now)]
        self._pools[pool] = queue
        return queue

    def _step(self, pool: str, size: int, now: float, must: str | None) -> tuple[str, ...] | None:
        """Match a table of the pool if one fits (with ``must``, if given), taking it out of
        the pool, and keep the pool's due time."""
        queue = self._pools[pool]
        waiting = [Waiting(s, self._seeks[s].rating, self._seeks[s].created) for s in queue]
        choice = choose(waiting, size, now, self._widening, must)
        if choice.mates is not None:
            self._pools[pool] = [s for s in queue if s not in choice.mates]
            # Those left may make another table now: the next sweep looks.
            due = now if len(self._pools[pool]) >= size else None
        else:
            due = choice.due
        if due is None:
            self._due.pop(pool, None)
        else:
            self._due[pool] = due
        return choice.mates

    def _matched(self, mates: tuple[str, ...], game_id: str) -> SeekState:
        matched = SeekState("matched", game_id, mates)
        for mate in mates:
            self._states[mate] = matched
        return matched

    async def get(self, seek_id: str) -> tuple[SeekRecord, SeekState] | None:
        seek = self._seeks.get(seek_id)
        if seek is None or seek.created + SEEK_KEPT < self._clock():
            return None
        return seek, self._states[seek_id]

    async def cancel(self, seek: SeekRecord) -> SeekState:
        state = self._states[seek.seek_id]
        if state.status != "waiting":
            return state
        self._states[seek.seek_id] = CANCELED
        queue = self._pools.get(seek.pool, [])
        if seek.seek_id in queue:
            queue.remove(seek.seek_id)
        self._waiting.get(seek.player_id, set()).discard(seek.seek_id)
        return CANCELED

    def _is_waiting(self, seek_id: str, now: float) -> bool:
        seek = self._seeks.get(seek_id)
        return seek is not None and is_waiting(self._states[seek_id], seek, now)

    def _forget_old(self, now: float) -> None:
        """Forget the seeks no longer kept: the oldest, first in the dict (made in order)."""
        old = []
        for seek_id, seek in self._seeks.items():
            if seek.created + SEEK_KEPT >= now:
                break
            old.append(seek_id)
        for seek_id in old:
            del self._seeks[seek_id], self._states[seek_id]


def encoded(seek: SeekRecord) -> bytes:
    return _encoder.encode(seek)


def decoded(data: bytes) -> SeekRecord:
    return _decoder.decode(data)


_decoder: Final = msgspec.json.Decoder(SeekRecord)

"""Where tournaments live: the protocol, and the store in this process's memory (the default, one
instance; ``service.tournaments.redis_store`` for many).

**One record, replaced whole.** Each change of a tournament (an entrant joins, a round is paired,
a game's result is noted) is one compare-and-set of its record (``replace``): of two instances
making the same change, one wins and the other reads the record again.

**The ownership invariant** (as the games' due moves, ``service.storage.due_moves``): a
tournament that will change by itself (one open, to start at ``starts_at``; one running, whose
round may be over) always has a due entry, written in the same atomic step as the record.
``take_due`` hands the due ones to one runner and moves each on by a lease in the same step, so
the runner of an instance that died leaves the entry to whichever instance takes it once the
lease has run out. Entries are a hint: whoever takes one reads the record and works out what, if
anything, is due.

**Bounds.** Each tournament lists in ``page`` (newest first) and in its creator's list
(``created_by``, for the creator's quota). In memory at most ``max_kept`` tournaments are kept,
the oldest finished ones (those with no due entry) dropped first.
"""

from __future__ import annotations

import heapq
from typing import Final, Protocol

from service.http.cursors import Position

MAX_KEPT: Final = 10_000


class TournamentExists(Exception):
    """A tournament of this id is kept already."""


class TournamentStore(Protocol):
    async def create(
        self, tournament_id: str, record: bytes, *, creator: str, created: float, due: float
    ) -> None:
        """Keep a new tournament, due at ``due``, listed; ``TournamentExists`` if the id is
        taken."""

    async def get(self, tournament_id: str) -> bytes | None:
        """The record, or None."""

    async def replace(
        self, tournament_id: str, old: bytes, new: bytes, *, due: float | None
    ) -> bool:
        """``new`` in place of ``old``, its due entry at ``due`` (None: none), if the record is
        still ``old``; False, changing nothing, if it is not."""

    async def take_due(self, now: float, lease: float, limit: int) -> list[str]:
        """At most ``limit`` tournaments due by ``now``, each moved on to ``now + lease`` in the
        same atomic step."""

    async def page(self, limit: int, after: Position | None) -> tuple[list[str], Position | None]:
        """Up to ``limit`` tournament ids, newest first, those after ``after``; and where the
        page ended, if more follow."""

    async def created_by(self, player_id: str, limit: int) -> list[str]:
        """The newest ``limit`` tournaments the player created, newest first."""


class MemoryTournamentStore:
    """Tournaments in this process (lost on a restart). Safe under asyncio: nothing awaits
    between reading and writing."""

    def __init__(self, *, max_kept: int = MAX_KEPT) -> None:
        self._max_kept = max_kept
        self._records: dict[str, bytes] = {}
        self._listed: dict[str, Position] = {}
        self._by_creator: dict[str, list[str]] = {}
        self._due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    async def create(
        self, tournament_id: str, record: bytes, *, creator: str, created: float, due: float
    ) -> None:
        if tournament_id in self._records:
            raise TournamentExists(tournament_id)
        if len(self._records) >= self._max_kept:
            self._drop_one()
        self._records[tournament_id] = record
        self._listed[tournament_id] = (created, tournament_id)
        self._by_creator.setdefault(creator, []).append(tournament_id)
        self._put(tournament_id, due)

    def _drop_one(self) -> None:
        """Forget the oldest tournament with no due entry (finished: nothing more happens to
        it), or the oldest of all if every one has."""
        oldest = sorted(self._listed, key=self._listed.__getitem__)
        victim = next((t for t in oldest if t not in self._due), oldest[0])
        del self._records[victim]
        del self._listed[victim]
        self._due.pop(victim, None)
        for listed in self._by_creator.values():
            if victim in listed:
                listed.remove(victim)

    async def get(self, tournament_id: str) -> bytes | None:
        return self._records.get(tournament_id)

    async def replace(
        self, tournament_id: str, old: bytes, new: bytes, *, due: float | None
    ) -> bool:
        if self._records.get(tournament_id) != old:
            return False
        self._records[tournament_id] = new
        self._put(tournament_id, due)
        return True

    def _put(self, tournament_id: str, due: float | None) -> None:
        if due is None:
            self._due.pop(tournament_id, None)
            return
        self._due[tournament_id] = due
        heapq.heappush(self._heap, (due, tournament_id))
        if len(self._heap) > 2 * len(self._due) + 64:
            self._heap = [(time, t) for t, time in self._due.items()]
            heapq.heapify(self._heap)

    async def take_due(self, now: float, lease: float, limit: int) -> list[str]:
        taken: list[str] = []
        while self._heap and self._heap[0][0] <= now and len(taken) < limit:
            due, tournament_id = heapq.heappop(self._heap)
            if self._due.get(tournament_id) == due:  # else replaced or removed since
                taken.append(tournament_id)
        for tournament_id in taken:
            self._put(tournament_id, now + lease)
        return taken

    async def page(self, limit: int, after: Position | None) -> tuple[list[str], Position | None]:
        ordered = sorted(self._listed.values(), reverse=True)
        if after is not None:
            ordered = [p for p in ordered if p < after]
        shown = ordered[:limit]
        last = shown[-1] if len(ordered) > limit else None
        return [t for _, t in shown], last

    async def created_by(self, player_id: str, limit: int) -> list[str]:
        return list(reversed(self._by_creator.get(player_id, [])))[:limit]

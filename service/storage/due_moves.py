"""The moves the service owes: for each game a computer player or a turn clock may have to move
in, the time its next such move is due, shared by every instance, and which instance drives it.

**The invariant.** A playing game whose next move belongs to a bot or a clock always has a due
entry, written in the same atomic step as the version that made it due: the store's commit (and
create) writes the game's entry with its record (``service.storage``), so no instance can die
between the two. Nothing else adds an entry; a driver only moves an entry it holds on, or puts
it back as its version's commit wrote it.

An entry is a game id with a Unix time: now for a bot's turn, the turn's start plus the clock's
``turn_seconds`` for a person's. ``take_due`` hands the entries whose time has come to one sweeper
and, in the same atomic step, moves each on by a lease, so another sweeper does not take it again
unless the lease runs out first. Whoever drives a game first ``claim``s it: a lease on the game
with the instance's token, renewed before each decision, which another instance's claim cannot
take while it holds (and which moves the entry on by the lease too, so a dead driver's game is
swept once its lease has run out). ``release`` gives the claim up and puts the entry back as the
game's version says (or due at once, for a move left to another look). Entries and claims only
spare work twice done; what makes a move happen once is the game's own compare-and-set
(``service.bots.turns``). Entries are a hint, never the truth: whoever takes one loads the game and
works out from its record what, if anything, is due.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Final, Protocol

_SLACK: Final = 64
"""Replaced entries the heap may hold beyond twice the live ones before it is rebuilt."""


class DueMoves(Protocol):
    async def take_due(self, now: float, lease: float, limit: int, *, sweeper: str) -> list[str]:
        """At most ``limit`` games whose move is due by ``now``, each moved on to
        ``now + lease`` in the same atomic step, from the shards that are ``sweeper``'s to
        sweep (every instance that swept within a lease shares them). A taker short of room
        leaves no game behind for good: the oldest entries come first (on Redis, each shard's
        oldest, the shards in turn from where the last take stopped)."""

    async def claim(self, game_id: str, owner: str, now: float, lease: float) -> bool:
        """Take (or renew) the game's lease for ``owner`` until ``now + lease``, moving its
        entry, if any, on to then; False, changing nothing, while another owner's lease holds."""

    async def release(
        self, game_id: str, owner: str, version: int | None, due: float | None
    ) -> None:
        """Give up ``owner``'s lease on the game and, if the game is still at ``version``, set
        its entry to ``due`` (None: no entry). ``version`` None: the game is gone, and so is its
        entry (unless it came back since)."""

    async def entry(self, game_id: str) -> float | None:
        """The game's due time, None if it has no entry."""


class MemoryDueMoves:
    """The entries in this process, written by the in-memory store under the same step as its
    commits (``put``): a dict of each game's time, and a heap of (time, game) with lazy
    deletion, so taking the due ones costs O(log N) each, however many games wait. Every commit
    of a game with a clock replaces its entry, leaving the old one in the heap until its time;
    the heap is rebuilt from the dict once it holds more than twice as many, so it stays O(N)
    (amortised O(1) a write). ``version_of`` reads the store's current version of a game."""

    def __init__(self, version_of: Callable[[str], int | None]) -> None:
        self._version_of = version_of
        self._due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []
        self._drivers: dict[str, tuple[str, float]] = {}

    def __len__(self) -> int:
        return len(self._due)

    def put(self, game_id: str, due: float | None) -> None:
        """Set the game's entry (None: remove it); synchronous, for the store's commit."""
        if due is None:
            self._due.pop(game_id, None)
            return
        self._due[game_id] = due
        heapq.heappush(self._heap, (due, game_id))
        if len(self._heap) > 2 * len(self._due) + _SLACK:
            self._heap = [(time, game) for game, time in self._due.items()]
            heapq.heapify(self._heap)

    async def take_due(self, now: float, lease: float, limit: int, *, sweeper: str) -> list[str]:
        taken: list[str] = []
        while self._heap and self._heap[0][0] <= now and len(taken) < limit:
            due, game_id = heapq.heappop(self._heap)
            if self._due.get(game_id) != due:  # an entry replaced or removed since
                continue
            taken.append(game_id)
        for game_id in taken:
            self.put(game_id, now + lease)
        return taken

    async def claim(self, game_id: str, owner: str, now: float, lease: float) -> bool:
        holder = self._drivers.get(game_id)
        if holder is not None and holder[0] != owner and holder[1] > now:
            return False
        self._drivers[game_id] = (owner, now + lease)
        due = self._due.get(game_id)
        if due is not None and due < now + lease:
            self.put(game_id, now + lease)
        return True

    async def release(
        self, game_id: str, owner: str, version: int | None, due: float | None
    ) -> None:
        holder = self._drivers.get(game_id)
        if holder is not None and holder[0] == owner:
            del self._drivers[game_id]
        current = self._version_of(game_id)
        if current is None or current == version:
            self.put(game_id, None if current is None else due)

    async def entry(self, game_id: str) -> float | None:
        return self._due.get(game_id)

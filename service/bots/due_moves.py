"""The moves the service owes: for each game a computer player or a turn clock may have to move
in, the time its next such move is due, shared by every instance.

An entry is a game id with a Unix time: now for a bot's turn, the turn's start plus the clock's
``turn_seconds`` for a person's. ``take_due`` hands the entries whose time has come to one caller
and, in the same atomic step, moves each on by a lease: another instance's sweeper does not take
it again unless the lease runs out first (the instance died, or could not finish). The lease
only spares work twice done; what makes a move happen once is the game's own compare-and-set
(``service.bots.turns``). Entries are a hint, never the truth: whoever takes one loads the game
and works out from its record what, if anything, is due.
"""

from __future__ import annotations

import heapq
from typing import Final, Protocol

_SLACK: Final = 64
"""Replaced entries the heap may hold beyond twice the live ones before it is rebuilt."""


class DueMoves(Protocol):
    async def schedule(self, game_id: str, due: float) -> None:
        """The game's next move is due at ``due`` (Unix time), replacing its entry if any."""

    async def remove(self, game_id: str) -> None:
        """The game owes no move (finished, expired, or nobody but people without a clock)."""

    async def take_due(self, now: float, lease: float, limit: int) -> list[str]:
        """At most ``limit`` games whose move is due by ``now``, each moved on to
        ``now + lease`` in the same atomic step."""


class MemoryDueMoves:
    """The entries in this process (the in-memory store's companion): a dict of each game's
    time, and a heap of (time, game) with lazy deletion, so taking the due ones costs
    O(log N) each, however many games wait. Every commit of a game with a clock replaces its
    entry, leaving the old one in the heap until its time; the heap is rebuilt from the dict
    once it holds more than twice as many, so it stays O(N) (amortised O(1) a write)."""

    def __init__(self) -> None:
        self._due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    def __len__(self) -> int:
        return len(self._due)

    async def schedule(self, game_id: str, due: float) -> None:
        self._due[game_id] = due
        heapq.heappush(self._heap, (due, game_id))
        if len(self._heap) > 2 * len(self._due) + _SLACK:
            self._heap = [(time, game) for game, time in self._due.items()]
            heapq.heapify(self._heap)

    async def remove(self, game_id: str) -> None:
        self._due.pop(game_id, None)

    async def take_due(self, now: float, lease: float, limit: int) -> list[str]:
        taken: list[str] = []
        while self._heap and self._heap[0][0] <= now and len(taken) < limit:
            due, game_id = heapq.heappop(self._heap)
            if self._due.get(game_id) != due:  # an entry replaced or removed since
                continue
            taken.append(game_id)
        for game_id in taken:
            await self.schedule(game_id, now + lease)
        return taken

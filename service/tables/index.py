"""Where invite codes and the lobby live: beside the games, for every instance.

A waiting table's truth is its game record (``service.tables.seating``), changed only by the store's
compare-and-set. Two indexes point at it, each on keys of its own (in Redis Cluster they cannot
share a game's slot, so they are kept up after each commit, never inside it):

- ``code → game id``, reserved before the table is stored (so a code is unique among waiting
  tables), expiring with the table, and kept for ``FULL_CODE_GRACE`` seconds once the table is
  full, so a late claim answers 409 (full), not 404, before the code is free again.
- the lobby: one entry per listed waiting table (the JSON of its ``wire.TableOut``), each
  expiring with its table, so nothing is left behind by tables that expire waiting.

An index that fell behind (an outage between a commit and its index update) can only point at a
table that is full or gone: every claim checks the record itself.
"""

from __future__ import annotations

import bisect
import heapq
import math
import time
from collections.abc import Callable
from typing import Protocol

FULL_CODE_GRACE = 600.0
"""Seconds a full table's code still answers 409 before it is unknown (404) and free again."""

LOBBY_LIMIT = 100
"""Tables a lobby answer lists at most, newest first."""

LobbyPosition = tuple[float, str]
"""Where a lobby page ended: its last entry's expiry (the newest change expires last) and game
id, which orders entries of the same expiry. The next page starts after it."""


class TableIndex(Protocol):
    async def reserve_code(self, code: str, game_id: str) -> bool:
        """Point ``code`` at ``game_id`` for the game TTL, unless the code is taken (False)."""

    async def game_of_code(self, code: str) -> str | None:
        """The game a code points at, or None (unknown or expired)."""

    async def keep_code(self, code: str, seconds: float) -> None:
        """The code now expires ``seconds`` from now."""

    async def list_table(self, game_id: str, entry: bytes) -> None:
        """Show (or update) a table in the lobby, expiring a game TTL from now."""

    async def unlist_table(self, game_id: str) -> None:
        """Take a table out of the lobby."""

    async def listed(self, limit: int = LOBBY_LIMIT) -> list[bytes]:
        """The lobby's entries, newest first; expired ones are dropped, not shown."""

    async def page(
        self, limit: int, after: LobbyPosition | None
    ) -> tuple[list[bytes], LobbyPosition | None]:
        """Up to ``limit`` entries, newest first, those after ``after``; and where the page
        ended, if more entries follow (else None)."""


class MemoryTableIndex:
    """Both indexes in this process's memory (the in-memory store's companion).

    No read or write looks at every table. The lobby is kept sorted by expiry in two parallel
    lists (expiries, game ids): a table's expiry is its last listing's time plus the game TTL,
    so a listing appends at the end (each expiry made later than the last, so they are
    distinct); a page is a binary search for its cursor and a slice; expired tables are a
    prefix, cut off by one search. Codes expire through a heap of (expiry, code), with the
    stale entries of a code kept longer (``keep_code``) skipped when they come up.
    """

    def __init__(self, *, game_ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._game_ttl = game_ttl
        self._clock = clock
        """Seconds, as ``time.monotonic`` gives them (the memory store's, so that one clock
        moves every memory backend's expiry in tests)."""
        self._codes: dict[str, tuple[str, float]] = {}
        self._code_expiries: list[tuple[float, str]] = []
        self._lobby: dict[str, tuple[bytes, float]] = {}
        self._expiries: list[float] = []
        self._listed: list[str] = []

    async def reserve_code(self, code: str, game_id: str) -> bool:
        self._expire_codes()
        if code in self._codes:
            return False
        self._keep(code, game_id, self._game_ttl)
        return True

    async def game_of_code(self, code: str) -> str | None:
        entry = self._codes.get(code)
        return None if entry is None or entry[1] < self._clock() else entry[0]

    async def keep_code(self, code: str, seconds: float) -> None:
        entry = self._codes.get(code)
        if entry is not None:
            self._keep(code, entry[0], seconds)

    async def list_table(self, game_id: str, entry: bytes) -> None:
        self._unlist(game_id)  # listed again: the newest write goes last
        until = self._clock() + self._game_ttl
        if self._expiries and until <= self._expiries[-1]:
            until = math.nextafter(self._expiries[-1], math.inf)
        self._lobby[game_id] = (entry, until)
        self._expiries.append(until)
        self._listed.append(game_id)

    async def unlist_table(self, game_id: str) -> None:
        self._unlist(game_id)

    async def listed(self, limit: int = LOBBY_LIMIT) -> list[bytes]:
        self._expire_tables()
        return [self._lobby[g][0] for g in reversed(self._listed[-limit:])] if limit else []

    async def page(
        self, limit: int, after: LobbyPosition | None
    ) -> tuple[list[bytes], LobbyPosition | None]:
        self._expire_tables()
        end = len(self._listed) if after is None else self._before(after)
        start = max(0, end - limit)
        chosen = self._listed[start:end][::-1]
        entries = [self._lobby[game_id][0] for game_id in chosen]
        more = start > 0 and bool(chosen)
        return entries, (self._expiries[start], chosen[-1]) if more else None

    def _before(self, after: LobbyPosition) -> int:
        """How many listed tables come before the cursor's position (expiry, then game id)."""
        end = bisect.bisect_left(self._expiries, after[0])
        while end < len(self._expiries) and (self._expiries[end], self._listed[end]) < after:
            end += 1
        return end

    def _unlist(self, game_id: str) -> None:
        entry = self._lobby.pop(game_id, None)
        if entry is not None:
            at = bisect.bisect_left(self._expiries, entry[1])
            del self._expiries[at], self._listed[at]

    def _keep(self, code: str, game_id: str, seconds: float) -> None:
        until = self._clock() + seconds
        self._codes[code] = (game_id, until)
        heapq.heappush(self._code_expiries, (until, code))

    def _expire_codes(self) -> None:
        now, expiries = self._clock(), self._code_expiries
        while expiries and expiries[0][0] < now:
            until, code = heapq.heappop(expiries)
            entry = self._codes.get(code)
            if entry is not None and entry[1] == until:  # not kept longer since
                del self._codes[code]

    def _expire_tables(self) -> None:
        gone = bisect.bisect_left(self._expiries, self._clock())
        if gone:
            for game_id in self._listed[:gone]:
                del self._lobby[game_id]
            del self._expiries[:gone], self._listed[:gone]

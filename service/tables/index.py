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

import time
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
    """Both indexes in this process's memory (the in-memory store's companion)."""

    def __init__(self, *, game_ttl: float) -> None:
        self._game_ttl = game_ttl
        self._codes: dict[str, tuple[str, float]] = {}
        self._lobby: dict[str, tuple[bytes, float]] = {}

    async def reserve_code(self, code: str, game_id: str) -> bool:
        self._expire()
        if code in self._codes:
            return False
        self._codes[code] = (game_id, time.monotonic() + self._game_ttl)
        return True

    async def game_of_code(self, code: str) -> str | None:
        entry = self._codes.get(code)
        return None if entry is None or entry[1] < time.monotonic() else entry[0]

    async def keep_code(self, code: str, seconds: float) -> None:
        entry = self._codes.get(code)
        if entry is not None:
            self._codes[code] = (entry[0], time.monotonic() + seconds)

    async def list_table(self, game_id: str, entry: bytes) -> None:
        self._lobby.pop(game_id, None)  # re-inserted: the newest write goes last
        self._lobby[game_id] = (entry, time.monotonic() + self._game_ttl)

    async def unlist_table(self, game_id: str) -> None:
        self._lobby.pop(game_id, None)

    async def listed(self, limit: int = LOBBY_LIMIT) -> list[bytes]:
        self._expire()
        entries = [entry for entry, _ in self._lobby.values()]
        return entries[::-1][:limit]

    async def page(
        self, limit: int, after: LobbyPosition | None
    ) -> tuple[list[bytes], LobbyPosition | None]:
        self._expire()
        order = sorted(((until, g) for g, (_, until) in self._lobby.items()), reverse=True)
        later = [position for position in order if after is None or position < after]
        chosen = later[:limit]
        entries = [self._lobby[game_id][0] for _, game_id in chosen]
        return entries, chosen[-1] if len(later) > limit else None

    def _expire(self) -> None:
        now = time.monotonic()
        for code in [c for c, (_, until) in self._codes.items() if until < now]:
            del self._codes[code]
        for game_id in [g for g, (_, until) in self._lobby.items() if until < now]:
            del self._lobby[game_id]

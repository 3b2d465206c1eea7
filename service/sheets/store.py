"""Where score sheets live: one small protocol, in this process's memory (the default) or in the
Redis (or Redis Cluster) the games use, on the games' own client.

A sheet is an opaque record (bytes: its players, rules, entries and the edit token's hash) under
a version that increases by one per write. Every write after the first is a compare-and-set on
that version, so two people entering rounds at once never lose an update: the one whose version
moved on loads again and retries. Every write refreshes the sheet's time to live.

The Redis one is ``service.sheets.redis_store``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from service.storage.game_store import StoreFull


class SheetExists(Exception):
    """A sheet id was created twice."""


@dataclass(frozen=True, slots=True)
class StoredSheet:
    version: int
    record: bytes


class SheetStore(Protocol):
    async def create(self, sheet_id: str, record: bytes) -> None:
        """Store a new sheet at version 0; SheetExists if the id is taken."""

    async def load(self, sheet_id: str) -> StoredSheet | None:
        """The sheet's version and record, or None (no such sheet, or expired)."""

    async def commit(self, sheet_id: str, expected_version: int, record: bytes) -> bool:
        """Atomically: if the sheet is at ``expected_version``, store ``record`` at the next
        version and refresh the TTL. False, changing nothing, if it moved on or is gone."""


class MemorySheetStore:
    """Sheets in this process's memory, with expiry, at most ``max_sheets`` of them (a create
    past it is ``StoreFull``, 503). Safe under asyncio: no method awaits between reading and
    writing a sheet.

    Ordered by deadline (a write moves its sheet to the back), so a create drops the expired
    ones from the front, as the games' store does: a scan of every sheet on each create made
    a create 2.9 times slower beside 100,000 sheets (issue 32)."""

    def __init__(self, *, ttl: float, max_sheets: int | None = None) -> None:
        self._ttl = ttl
        self._max_sheets = max_sheets
        self._sheets: OrderedDict[str, tuple[StoredSheet, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sheets)

    async def create(self, sheet_id: str, record: bytes) -> None:
        now = time.monotonic()
        while self._sheets:
            oldest, (_, until) = next(iter(self._sheets.items()))
            if until >= now:
                break
            del self._sheets[oldest]
        if sheet_id in self._sheets:
            raise SheetExists(sheet_id)
        if self._max_sheets is not None and len(self._sheets) >= self._max_sheets:
            raise StoreFull(
                f"this instance holds {self._max_sheets} score sheets, its limit: try again "
                "once some have expired"
            )
        self._sheets[sheet_id] = (StoredSheet(0, record), now + self._ttl)

    async def load(self, sheet_id: str) -> StoredSheet | None:
        entry = self._sheets.get(sheet_id)
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    async def commit(self, sheet_id: str, expected_version: int, record: bytes) -> bool:
        current = await self.load(sheet_id)
        if current is None or current.version != expected_version:
            return False
        stored = StoredSheet(expected_version + 1, record)
        self._sheets[sheet_id] = (stored, time.monotonic() + self._ttl)
        self._sheets.move_to_end(sheet_id)
        return True

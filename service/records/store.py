"""What the records feature keeps: imported records, finished games' reviews and the
deployment's seed secret, each a value written once under its key. In this process's memory
(the default) or in the Redis the games use (``service.records.redis_store``).

A value is never changed once written (a review is computed once; a record, once imported, is
what it is), so the one write is "set unless set": two instances racing to write a review or the
seed secret both read back the one that won.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from service.storage.game_store import StoreFull

SEED_SECRET_KEY = "seed-secret"


def record_key(record_id: str) -> str:
    return f"record:{record_id}"


def review_key(kind: str, some_id: str) -> str:
    """The review of a game (``kind`` ``game``) or of an imported record (``record``)."""
    return f"review:{kind}:{some_id}"


def claim_key(key: str) -> str:
    """The claim on computing the value of ``key`` (in the same slot on a cluster)."""
    kind, _, some_id = key.rpartition(":")
    return f"claim:{kind}:{some_id}"


class RecordStore(Protocol):
    async def put_new(self, key: str, value: bytes, *, expires: bool = True) -> bytes:
        """Store ``value`` under ``key`` unless a value is there; the value kept either way.
        ``expires``: kept for the games' time to live (``GAME_TTL``), else for good."""

    async def get(self, key: str) -> bytes | None:
        """The value under ``key``, or None (never written, or expired)."""

    async def claim(self, key: str, seconds: float) -> bool:
        """Take the claim ``key`` for ``seconds`` unless it is held: whether this call took it
        (one of any number of instances racing for it does)."""

    async def release(self, key: str) -> None:
        """Give the claim ``key`` up before its time (the work it guarded failed)."""


class MemoryRecordStore:
    """Values in this process's memory, with expiry, at most ``max_values`` of them (one more
    is ``StoreFull``, a 503: imported records are up to 2 MiB each). Safe under asyncio: nothing
    awaits between reading and writing."""

    def __init__(
        self,
        *,
        ttl: float,
        max_values: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl
        self._clock = clock
        self._max_values = max_values
        self._values: dict[str, tuple[bytes, float]] = {}
        self._claims: dict[str, float] = {}
        """Each claim's end (a handful at a time: one per review being computed)."""

    async def put_new(self, key: str, value: bytes, *, expires: bool = True) -> bytes:
        now = self._clock()
        for gone in [k for k, (_, until) in self._values.items() if until < now]:
            del self._values[gone]
        kept = self._values.get(key)
        if kept is not None:
            return kept[0]
        if self._max_values is not None and len(self._values) >= self._max_values:
            raise StoreFull(
                f"this instance keeps {self._max_values} records and reviews, its limit: try "
                "again once some have expired"
            )
        self._values[key] = (value, now + self._ttl if expires else float("inf"))
        return value

    async def get(self, key: str) -> bytes | None:
        entry = self._values.get(key)
        if entry is None or entry[1] < self._clock():
            return None
        return entry[0]

    async def claim(self, key: str, seconds: float) -> bool:
        now = self._clock()
        held = self._claims.get(key)
        if held is not None and held > now:
            return False
        self._claims[key] = now + seconds
        return True

    async def release(self, key: str) -> None:
        self._claims.pop(key, None)

"""What the records feature keeps: imported records, finished games' reviews and the
deployment's seed secret, each a value written once under its key. In this process's memory
(the default) or in the Redis the games use (``service.records.redis_store``).

A value is never changed once written (a review is computed once; a record, once imported, is
what it is), so the one write is "set unless set": two instances racing to write a review or the
seed secret both read back the one that won. An import sent with an ``Idempotency-Key`` saves
its answer in that same write, beside the record (``service.http.idempotency``): the answer is
kept when the record is, and never without it.
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


def quota_key(client: str) -> str:
    """A client's count of the bytes of records it sent today."""
    return f"quota:imports:{client}"


def claim_key(key: str) -> str:
    """The claim on computing the value of ``key`` (in the same slot on a cluster)."""
    kind, _, some_id = key.rpartition(":")
    return f"claim:{kind}:{some_id}"


class RecordStore(Protocol):
    async def put_new(
        self,
        key: str,
        value: bytes,
        *,
        expires: bool = True,
        idempotency: tuple[str, bytes] | None = None,
        until: float | None = None,
    ) -> bytes:
        """Store ``value`` under ``key`` unless a value is there; the value kept either way.
        ``expires``: kept for the games' time to live (``GAME_TTL``), or until the moment
        ``until`` when given (on the games' store's clock: what is kept beside a game expires
        with it, ``Store.expiry``), else for good. With ``idempotency`` = (saved key, saved
        answer), the answer is saved beside ``key`` in the same step (for ``IDEMPOTENCY_TTL``,
        no longer than the value), only if ``value`` is; not with ``until``."""

    async def recall(self, key: str, saved_key: str) -> bytes | None:
        """The answer saved beside ``key`` under ``saved_key``, or None."""

    async def get(self, key: str) -> bytes | None:
        """The value under ``key``, or None (never written, or expired)."""

    async def claim(self, key: str, seconds: float) -> bool:
        """Take the claim ``key`` for ``seconds`` unless it is held: whether this call took it
        (one of any number of instances racing for it does)."""

    async def release(self, key: str) -> None:
        """Give the claim ``key`` up before its time (the work it guarded failed)."""

    async def spend(self, key: str, amount: int, budget: int, seconds: float) -> float | None:
        """Take ``amount`` from the budget counted under ``key`` (``budget`` every ``seconds``,
        counted from the first spending): None if it was there, else the seconds until the
        budget is whole again (nothing taken)."""


class MemoryRecordStore:
    """Values in this process's memory, with expiry, at most ``max_values`` of them (one more
    is ``StoreFull``, a 503: imported records are up to 2 MiB each). Safe under asyncio: nothing
    awaits between reading and writing."""

    def __init__(
        self,
        *,
        ttl: float,
        max_values: int | None = None,
        idempotency_ttl: float = 86400,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl
        self._clock = clock
        self._max_values = max_values
        self._idempotency_ttl = idempotency_ttl
        self._values: dict[str, tuple[bytes, float]] = {}
        self._saved: dict[tuple[str, str], tuple[bytes, float]] = {}
        self._claims: dict[str, float] = {}
        """Each claim's end (a handful at a time: one per review being computed)."""
        self._spent: dict[str, tuple[int, float]] = {}
        """Each client's spending and the end of its day (one entry per importing client,
        dropped with the records' expiry sweep once its day is over)."""

    async def put_new(
        self,
        key: str,
        value: bytes,
        *,
        expires: bool = True,
        idempotency: tuple[str, bytes] | None = None,
        until: float | None = None,
    ) -> bytes:
        now = self._clock()
        for gone in [k for k, (_, until) in self._values.items() if until < now]:
            del self._values[gone]
        for gone_saved in [k for k, (_, until) in self._saved.items() if until < now]:
            del self._saved[gone_saved]
        for over in [k for k, (_, until) in self._spent.items() if until < now]:
            del self._spent[over]
        kept = self._values.get(key)
        if kept is not None:
            return kept[0]
        if self._max_values is not None and len(self._values) >= self._max_values:
            raise StoreFull(
                f"this instance keeps {self._max_values} records and reviews, its limit: try "
                "again once some have expired"
            )
        if until is None:
            until = now + self._ttl if expires else float("inf")
        self._values[key] = (value, until)
        if idempotency is not None:
            saved_key, answer = idempotency
            self._saved[key, saved_key] = (answer, min(until, now + self._idempotency_ttl))
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

    async def spend(self, key: str, amount: int, budget: int, seconds: float) -> float | None:
        now = self._clock()
        spent, until = self._spent.get(key, (0, now + seconds))
        if until <= now:
            spent, until = 0, now + seconds
        if spent + amount > budget:
            return until - now
        self._spent[key] = (spent + amount, until)
        return None

    async def recall(self, key: str, saved_key: str) -> bytes | None:
        entry = self._saved.get((key, saved_key))
        if entry is None or entry[1] < self._clock():
            return None
        return entry[0]

"""Bounds on open event streams: per client address and per worker process.

An event stream holds a connection, a channel subscription and a task for as long as its client
likes, and needs no token: without a bound, one client opening a thousand of them takes an
instance's connections and loop. One stream more than a client may hold is answered 429, one
more than the instance may hold 503, both with Retry-After: a refusal the client can act on,
not a connection that hangs.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import AsyncIterator
from typing import TypeVar

from service.http.problems import StreamsFull, TooManyStreams

_T = TypeVar("_T")


class StreamSlots:
    def __init__(self, *, per_instance: int, per_client: int) -> None:
        self._per_instance = per_instance
        self._per_client = per_client
        self._open: Counter[str] = Counter()
        self._total = 0

    @property
    def open(self) -> int:
        return self._total

    def hold(self, client: str, events: AsyncIterator[_T]) -> AsyncIterator[_T]:
        """``events``, counted against ``client`` and the instance until the stream ends (or
        is dropped unread); TooManyStreams or StreamsFull, holding nothing, if either is full."""
        if self._open[client] >= self._per_client:
            raise TooManyStreams(
                f"this address already has {self._per_client} event streams open: close one, "
                "or follow several games' events from fewer streams"
            )
        if self._total >= self._per_instance:
            raise StreamsFull(
                f"this instance already serves {self._per_instance} event streams: try again "
                "shortly (another instance may have room)"
            )
        self._open[client] += 1
        self._total += 1
        slot = _Slot(self, client)
        held = _held(events, slot)
        # A response that fails before its body is read never runs the generator's ``finally``.
        weakref.finalize(held, slot.release)
        return held

    def _release(self, client: str) -> None:
        self._total -= 1
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]


class _Slot:
    """One open stream's place; released once, whichever of its end or its collection comes
    first."""

    def __init__(self, slots: StreamSlots, client: str) -> None:
        self._slots: StreamSlots | None = slots
        self._client = client

    def release(self) -> None:
        slots, self._slots = self._slots, None
        if slots is not None:
            slots._release(self._client)  # the slot is the counter's own part


async def _held(events: AsyncIterator[_T], slot: _Slot) -> AsyncIterator[_T]:
    try:
        async for event in events:
            yield event
    finally:
        slot.release()
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()

"""Single flights: one computation per key on this instance, every request for it waiting on the
same task (``service.records.reviews``)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from functools import partial
from typing import Any


class ReviewFlights:
    """The reviews this instance is computing: one task each, shared by every request for it
    (a single flight)."""

    def __init__(self) -> None:
        self._flights: dict[str, asyncio.Task[bytes]] = {}

    def __len__(self) -> int:
        return len(self._flights)

    def get(self, key: str) -> asyncio.Task[bytes] | None:
        return self._flights.get(key)

    def start(self, key: str, work: Coroutine[Any, Any, bytes]) -> asyncio.Task[bytes]:
        """Run ``work``, the computation of ``key``, as the flight every request joins."""
        task = asyncio.create_task(work, name=f"review:{key}")
        self._flights[key] = task
        task.add_done_callback(partial(self._landed, key))
        return task

    def _landed(self, key: str, task: asyncio.Task[bytes]) -> None:
        self._flights.pop(key, None)
        if not task.cancelled():
            task.exception()  # seen: a failure nobody waited for is no unhandled error

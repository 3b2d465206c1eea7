"""What records, reviews and given deals need of the app: the games' own needs, the store of
write-once values (imported records, reviews, the seed secret) and the worker processes."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.records.store import RecordStore
from service.workers.pool import WorkerPool


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class RecordServices(GameServices, Protocol):
    @property
    def records(self) -> RecordStore:
        """Imported records, reviews and the seed secret, beside the games."""
        ...

    @property
    def analyses(self) -> WorkerPool:
        """Where reviews are computed, off the event loop."""
        ...


AppRecordServices: TypeAlias = NamedDependency[RecordServices]
"""A handler's ``services`` parameter."""

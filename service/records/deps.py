"""What records, reviews and given deals need of the app: the games' own needs, the store of
write-once values (imported records, reviews, the seed secret) and the worker processes."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.http.client_address import TrustedProxies
from service.records.flights import ReviewFlights
from service.records.store import RecordStore
from service.workers.pool import WorkerPool


class RecordServices(GameServices):
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    records: RecordStore
    """Imported records, reviews and the seed secret, beside the games."""
    analyses: WorkerPool
    """Where reviews are computed, off the event loop."""
    reviews: ReviewFlights
    """The reviews this instance is computing, one task each."""
    proxies: TrustedProxies
    """Who a request comes from (the imports' daily budget is per client)."""


AppRecordServices: TypeAlias = NamedDependency[RecordServices]
"""A handler's ``services`` parameter."""

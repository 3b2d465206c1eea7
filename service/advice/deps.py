"""What advice needs of the app: the games' own needs (a seat's hint loads its game) and the
worker processes for costly hands."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.workers.pool import WorkerPool


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class AdviceServices(GameServices, Protocol):
    @property
    def analyses(self) -> WorkerPool: ...


AppAdviceServices: TypeAlias = NamedDependency[AdviceServices]
"""A handler's ``services`` parameter."""

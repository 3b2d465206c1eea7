"""What ``POST /v1/analyse`` needs of the app: the settings (which hands are costly) and the
worker processes."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.settings import Settings
from service.workers.pool import WorkerPool


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class AnalysisServices(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def analyses(self) -> WorkerPool: ...


AppAnalysisServices: TypeAlias = NamedDependency[AnalysisServices]
"""A handler's ``services`` parameter."""

"""What ``POST /v1/analyse`` needs of the app: the settings (which hands are costly) and the
worker processes."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.settings import Settings
from service.workers.pool import WorkerPool


class AnalysisServices:
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    settings: Settings
    analyses: WorkerPool


AppAnalysisServices: TypeAlias = NamedDependency[AnalysisServices]
"""A handler's ``services`` parameter."""

"""What advice needs of the app: the games' own needs (a seat's hint loads its game) and the
worker processes for costly hands."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.workers.pool import WorkerPool


class AdviceServices(GameServices):
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    analyses: WorkerPool


AppAdviceServices: TypeAlias = NamedDependency[AdviceServices]
"""A handler's ``services`` parameter."""

"""What the health routes need of the app: the store, and which kind it is."""

from __future__ import annotations

from typing import Literal, TypeAlias

from litestar.di import NamedDependency

from service.storage.game_store import Store


class HealthServices:
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    store: Store
    store_kind: Literal["memory", "redis"]


AppHealthServices: TypeAlias = NamedDependency[HealthServices]
"""A handler's ``services`` parameter."""

"""What the health routes need of the app: the store, and which kind it is."""

from __future__ import annotations

from typing import Literal, Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.storage.game_store import Store


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class HealthServices(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def store_kind(self) -> Literal["memory", "redis"]: ...


AppHealthServices: TypeAlias = NamedDependency[HealthServices]
"""A handler's ``services`` parameter."""

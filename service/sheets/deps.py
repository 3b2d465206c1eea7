"""What score sheets need of the app: their store."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.sheets.store import SheetStore


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class SheetServices(Protocol):
    @property
    def sheets(self) -> SheetStore:
        """The score sheets, beside the games."""
        ...


AppSheetServices: TypeAlias = NamedDependency[SheetServices]
"""A handler's ``services`` parameter."""

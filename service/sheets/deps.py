"""What score sheets need of the app: their store."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.sheets.store import SheetStore


class SheetServices:
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    sheets: SheetStore
    """The score sheets, beside the games."""


AppSheetServices: TypeAlias = NamedDependency[SheetServices]
"""A handler's ``services`` parameter."""

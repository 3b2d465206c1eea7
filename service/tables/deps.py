"""What tables need of the app: what records need (a table may be dealt from given deals),
the invite codes and the lobby, each client's games of bots only, and the clients' addresses."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.bots.holdings import GameHoldings
from service.records.deps import RecordServices
from service.tables.index import TableIndex


class TableServices(RecordServices):
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    tables: TableIndex
    """Invite codes and the lobby, beside the store."""
    bot_games: GameHoldings
    """Each client's games of bots only in play here, bounded."""
    clock_games: GameHoldings
    """Each client's games with a clock in play here, bounded."""


AppTableServices: TypeAlias = NamedDependency[TableServices]
"""A handler's ``services`` parameter."""

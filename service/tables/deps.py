"""What tables need of the app: what records need (a table may be dealt from given deals),
the invite codes and the lobby, each client's games of bots only, and the clients' addresses."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.bots.holdings import BotGameHoldings
from service.http.client_address import TrustedProxies
from service.records.deps import RecordServices
from service.tables.index import TableIndex


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class TableServices(RecordServices, Protocol):
    @property
    def tables(self) -> TableIndex:
        """Invite codes and the lobby, beside the store."""
        ...

    @property
    def bot_games(self) -> BotGameHoldings:
        """Each client's games of bots only in play here, bounded."""
        ...

    @property
    def proxies(self) -> TrustedProxies: ...


AppTableServices: TypeAlias = NamedDependency[TableServices]
"""A handler's ``services`` parameter."""

"""What the handlers share for the app's lifetime: the store, the event channels, and the
indexes of the tables (invite codes and the lobby)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from litestar import Request
from litestar.channels import ChannelsPlugin

from service.decoded_games import DecodedGames
from service.settings import Settings
from service.store import Store
from service.table_index import TableIndex


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    store: Store
    store_kind: Literal["memory", "redis"]
    channels: ChannelsPlugin
    decoded: DecodedGames
    tables: TableIndex
    """Invite codes and the lobby (``service.table_index``), beside the store."""


def services_of(request: Request[Any, Any, Any]) -> Services:
    services: Services = request.app.state["services"]
    return services

"""What the handlers share for the app's lifetime: the store, the event channels and the
analyses' worker processes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from litestar import Request
from litestar.channels import ChannelsPlugin

from service.analysis_pool import AnalysisPool
from service.client_address import TrustedProxies
from service.decoded_games import DecodedGames
from service.settings import Settings
from service.store import Store
from service.stream_limits import StreamSlots


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    store: Store
    store_kind: Literal["memory", "redis"]
    channels: ChannelsPlugin
    decoded: DecodedGames
    analyses: AnalysisPool

    streams: StreamSlots
    proxies: TrustedProxies


def services_of(request: Request[Any, Any, Any]) -> Services:
    services: Services = request.app.state["services"]
    return services

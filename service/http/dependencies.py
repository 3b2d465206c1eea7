"""What the handlers share for the app's lifetime: the store, the event channels, the indexes
of the tables (invite codes and the lobby), the due moves and the computer players' tasks, the
analyses' worker processes, the limits on open streams and the score sheets' store.

Handlers receive it as their ``services`` parameter (Litestar's ``Provide``: the app factory
registers ``services_from_state``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from litestar.channels import ChannelsPlugin
from litestar.datastructures import State
from litestar.di import NamedDependency

from service.analysis.pool import AnalysisPool
from service.bots.due_moves import DueMoves
from service.bots.holdings import BotGameHoldings
from service.bots.tasks import BotTasks
from service.games.decoded_cache import DecodedGames
from service.http.client_address import TrustedProxies
from service.records.finished_cache import FinishedRecords
from service.records.store import MemoryRecordStore, RecordStore
from service.settings import Settings
from service.sheets.store import SheetStore
from service.storage.game_store import Store
from service.streams.limits import StreamSlots
from service.streams.shared_slices import SharedSlices
from service.tables.index import TableIndex


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
    tables: TableIndex
    """Invite codes and the lobby (``service.tables.index``), beside the store."""
    due: DueMoves
    """The moves bots and turn clocks owe (``service.bots.due_moves``), beside the store."""
    bots: BotTasks
    """This instance's drivers, sweeper and decision processes (``service.bots.turns``)."""
    sheets: SheetStore
    """The score sheets, beside the games."""
    records: RecordStore = field(default_factory=lambda: MemoryRecordStore(ttl=7 * 86400))
    """Imported records, reviews and the seed secret (``service.records``), beside the games."""
    finished_records: FinishedRecords = field(default_factory=FinishedRecords)
    """Finished games' records read lately, decoded (``service.records.finished``)."""
    bot_games: BotGameHoldings = field(default_factory=lambda: BotGameHoldings(0))
    """Each client's games of bots only in play here, bounded (``service.bots.holdings``)."""
    shared_slices: SharedSlices = field(default_factory=SharedSlices)
    """The events streams rendered lately, for the other streams of their game and viewer
    (``service.streams.shared_slices``)."""


AppServices: TypeAlias = NamedDependency[Services]
"""A handler's ``services`` parameter."""


def services_from_state(state: State) -> Services:
    services: Services = state["services"]
    return services

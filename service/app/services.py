"""What the handlers share for the app's lifetime: the store, the event channels, the games' bus,
the indexes of the tables (invite codes and the lobby), the due moves and the computer players'
tasks, the worker processes, the limits on open streams and the score sheets' store.

Handlers receive it as their ``services`` parameter (Litestar's ``Provide``: the app factory
registers ``services_of``), each typed by its feature's own class of what it needs
(``service.<feature>.deps``), which this one class derives from: no feature imports it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from litestar.channels import ChannelsPlugin
from litestar.datastructures import State

from service.advice.deps import AdviceServices
from service.analysis.deps import AnalysisServices
from service.bots import holdings
from service.bots.deps import BotServices
from service.bots.holdings import GameHoldings
from service.bots.reactions import drivers_told
from service.bots.tasks import BotTasks
from service.games.bus import GameBus
from service.games.decoded_cache import DecodedGames
from service.health.deps import HealthServices
from service.http.client_address import TrustedProxies
from service.identity.store import MemoryPlayerStore, PlayerStore
from service.players.deps import PlayerServices
from service.players.news import players_told
from service.players.seek_pool import MemorySeekPool, SeekPool
from service.ratings.deps import RatingServices
from service.ratings.store import MemoryRatingStore, RatingStore
from service.ratings.updates import ratings_told
from service.records.flights import ReviewFlights
from service.records.store import MemoryRecordStore, RecordStore
from service.settings import Settings
from service.sheets.deps import SheetServices
from service.sheets.store import SheetStore
from service.storage.due_moves import DueMoves
from service.storage.game_store import Store
from service.streams.deps import StreamServices
from service.streams.limits import StreamSlots
from service.streams.shared_slices import SharedSlices
from service.tables.deps import TableServices
from service.tables.index import MemoryTableIndex, TableIndex
from service.tournaments.deps import TournamentServices
from service.tournaments.runner import TournamentRunner, tournaments_told
from service.tournaments.store import MemoryTournamentStore, TournamentStore
from service.webhooks.deliveries import Courier
from service.webhooks.deps import WebhookServices
from service.webhooks.store import MemoryWebhookStore
from service.workers.pool import WorkerPool


@dataclass(frozen=True, slots=True)
class Services(
    WebhookServices,
    TournamentServices,
    PlayerServices,
    TableServices,
    BotServices,
    StreamServices,
    AdviceServices,
    AnalysisServices,
    SheetServices,
    HealthServices,
    RatingServices,
):
    settings: Settings
    store: Store
    store_kind: Literal["memory", "redis"]
    channels: ChannelsPlugin
    decoded: DecodedGames
    analyses: WorkerPool
    streams: StreamSlots
    proxies: TrustedProxies
    tables: TableIndex
    """Invite codes and the lobby (``service.tables.index``), beside the store."""
    due: DueMoves
    """The moves bots and turn clocks owe (``service.storage.due_moves``), beside the store."""
    bots: BotTasks
    """This instance's drivers, sweeper and decision processes (``service.bots.turns``)."""
    sheets: SheetStore
    """The score sheets, beside the games."""
    players: PlayerStore = field(default_factory=MemoryPlayerStore)
    """The players, their keys and their games' lists (``service.identity``), beside the
    games."""
    records: RecordStore = field(default_factory=lambda: MemoryRecordStore(ttl=7 * 86400))
    """Imported records, reviews and the seed secret (``service.records``), beside the games."""
    reviews: ReviewFlights = field(default_factory=ReviewFlights)
    """The reviews this instance is computing (``service.records.reviews``)."""
    bus: GameBus = field(default_factory=GameBus)
    """Where a game tells the other features of its commits and loads (``service.games.bus``)."""
    bot_games: GameHoldings = field(default_factory=lambda: holdings.bot_games(0))
    """Each client's games of bots only in play here, bounded (``service.bots.holdings``)."""
    clock_games: GameHoldings = field(default_factory=lambda: holdings.clock_games(0))
    """Each client's games with a clock in play here, bounded (``service.bots.holdings``)."""
    open_challenges: TableIndex = field(default_factory=lambda: MemoryTableIndex(game_ttl=86400))
    """The open challenges' lobby (``service.players.challenges``), beside the store."""
    seeks: SeekPool = field(default_factory=MemorySeekPool)
    """The seek pools (``service.players.seek_pool``), beside the store."""
    ratings: RatingStore = field(default_factory=MemoryRatingStore)
    """The players' ratings and the leaderboards (``service.ratings.store``), beside the
    store."""
    webhooks: Courier = field(default_factory=lambda: Courier(MemoryWebhookStore(), Settings()))
    """This instance's sender of the players' webhooks' deliveries, on their store
    (``service.webhooks``); the players' store above queues each logged event for them
    (``service.webhooks.player_events``)."""
    tournaments: TournamentStore = field(default_factory=MemoryTournamentStore)
    """The tournaments and their due entries (``service.tournaments.store``), beside the
    store."""
    tournament_runner: TournamentRunner = field(default_factory=TournamentRunner)
    """This instance's runner of due tournaments, on the store above."""
    shared_slices: SharedSlices = field(default_factory=SharedSlices)
    """The events streams rendered lately, for the other streams of their game and viewer
    (``service.streams.shared_slices``)."""

    def __post_init__(self) -> None:
        # The subscribers to the games' news, wired once here (lila's Bus): the games never
        # call the bots by name.
        self.bus.subscribe(drivers_told(self.bots, self.settings.bot_lease_seconds))
        self.bus.subscribe(players_told(self.players, self.channels))
        self.bus.subscribe(ratings_told(self.ratings, self.players))
        self.bus.subscribe(tournaments_told(self.tournament_runner))


def services_of(state: State) -> Callable[[], Services]:
    """The dependency that gives every handler ``services``: the app's, as its ``state`` holds
    them when the request comes (a test may put others there), read by a function of no
    parameter."""

    def provided() -> Services:
        services: Services = state["services"]
        return services

    return provided

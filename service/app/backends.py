"""Where everything the service keeps lives, chosen once from the settings: all in this process's
memory (the default, one instance), or all in one Redis or Redis Cluster (``REDIS_URL``), on one
client and key prefix, shared by every instance.

Each feature owns its backends (``service.tables.index``, ``service.storage.due_moves``,
``service.sheets.store``, ``service.streams.redis_channels``); this module only picks the family.
Only a Redis deployment imports the Redis client code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from litestar.channels.backends.base import ChannelsBackend
from litestar.channels.backends.memory import MemoryChannelsBackend
from litestar.stores.base import Store as LitestarStore
from litestar.stores.memory import MemoryStore as LitestarMemoryStore

from service.identity.store import MemoryPlayerStore, PlayerStore
from service.players.seek_pool import MemorySeekPool, SeekPool
from service.ratings.store import MemoryRatingStore, RatingStore
from service.records.store import MemoryRecordStore, RecordStore
from service.settings import Settings
from service.sheets.store import MemorySheetStore, SheetStore
from service.storage.due_moves import DueMoves
from service.storage.game_store import MemoryStore, Store
from service.tables.index import MemoryTableIndex, TableIndex
from service.tournaments.store import MemoryTournamentStore, TournamentStore
from service.webhooks.store import MemoryWebhookStore, WebhookStore

BackendKind = Literal["memory", "redis"]


@dataclass(frozen=True, slots=True)
class Backends:
    """The stores of one family: the games and everything kept beside them."""

    kind: BackendKind
    games: Store
    channels: ChannelsBackend
    """The event notices (only versions travel on a channel)."""
    tables: TableIndex
    """Invite codes and the lobby."""
    due: DueMoves
    """The moves bots and turn clocks owe."""
    sheets: SheetStore
    rate_limits: LitestarStore
    """The rate limits' counts."""
    records: RecordStore
    """Imported records, reviews and the seed secret."""
    players: PlayerStore
    """The players, their keys and their games' lists."""
    open_challenges: TableIndex
    """The open challenges' lobby (its own keys)."""
    seeks: SeekPool
    """The seek pools (quick play)."""
    ratings: RatingStore
    """The players' ratings and the leaderboards."""
    webhooks: WebhookStore
    """The players' webhooks and the queue of their deliveries."""
    tournaments: TournamentStore
    """The tournaments and their due entries."""


Clock = Callable[[], float]
"""Seconds, as ``time.monotonic`` gives them: what the in-memory backends' expiry counts."""


def build_backends(settings: Settings, *, clock: Clock = time.monotonic) -> Backends:
    """The backends ``settings`` chooses: Redis when ``REDIS_URL`` is set (which expires keys
    on its own clock), else memory, every expiry on ``clock``."""
    if settings.redis_url:
        from service.app.redis_backends import redis_backends  # noqa: PLC0415

        return redis_backends(settings, settings.redis_url)
    return memory_backends(settings, clock=clock)


def memory_backends(settings: Settings, *, clock: Clock = time.monotonic) -> Backends:
    """Everything in this process: one instance, nothing shared, nothing kept over a restart."""
    games = MemoryStore(
        game_ttl=settings.game_ttl,
        idle_game_ttl=settings.idle_game_ttl,
        idempotency_ttl=settings.idempotency_ttl,
        max_games=settings.max_games,
        clock=clock,
    )
    return memory_backends_beside(games, settings)


def memory_backends_beside(games: MemoryStore, settings: Settings) -> Backends:
    """Every other in-memory backend beside ``games`` (its due moves are the store's own),
    their expiry on its clock."""
    return Backends(
        kind="memory",
        games=games,
        channels=MemoryChannelsBackend(history=settings.event_history),
        tables=MemoryTableIndex(game_ttl=settings.game_ttl, clock=games.clock),
        due=games.due,
        sheets=MemorySheetStore(
            ttl=settings.game_ttl,
            idempotency_ttl=settings.idempotency_ttl,
            max_sheets=settings.max_sheets,
            clock=games.clock,
        ),
        rate_limits=LitestarMemoryStore(),
        records=MemoryRecordStore(
            ttl=settings.game_ttl,
            max_values=settings.max_games,
            idempotency_ttl=settings.idempotency_ttl,
            clock=games.clock,
        ),
        players=MemoryPlayerStore(max_players=settings.max_players, clock=games.clock),
        open_challenges=MemoryTableIndex(game_ttl=settings.game_ttl, clock=games.clock),
        seeks=MemorySeekPool(),
        ratings=MemoryRatingStore(),
        webhooks=MemoryWebhookStore(),
        tournaments=MemoryTournamentStore(),
    )

"""The backends are chosen once, from the settings, as one family: everything in memory, or
everything on the games' one Redis client and key prefix (connecting lazily, so no server is
needed to build them)."""

from __future__ import annotations

import asyncio

from litestar.channels.backends.memory import MemoryChannelsBackend
from litestar.stores.memory import MemoryStore as LitestarMemoryStore
from litestar.stores.redis import RedisStore as LitestarRedisStore

from service.app.backends import build_backends
from service.identity.redis_store import RedisPlayerStore
from service.records.redis_store import RedisRecordStore
from service.settings import Settings
from service.sheets.redis_store import RedisSheetStore
from service.sheets.store import MemorySheetStore
from service.storage.channels import channel_of
from service.storage.due_moves import MemoryDueMoves
from service.storage.game_store import MemoryStore
from service.storage.redis_due_moves import RedisDueMoves
from service.storage.redis_game_store import RedisStore
from service.storage.redis_keys import events_key
from service.streams.redis_channels import GameEventsBackend
from service.tables.index import MemoryTableIndex
from service.tables.redis_index import RedisTableIndex
from tests.service.manual_clock import ManualClock


def test_without_redis_every_backend_is_in_memory() -> None:
    clock = ManualClock()
    backends = build_backends(Settings(), clock=clock)
    assert isinstance(backends.games, MemoryStore)
    assert backends.games.clock is clock, "the expiry of every memory backend counts on it"
    assert backends.kind == "memory"
    assert isinstance(backends.games, MemoryStore)
    assert isinstance(backends.channels, MemoryChannelsBackend)
    assert isinstance(backends.tables, MemoryTableIndex)
    assert isinstance(backends.due, MemoryDueMoves)
    assert isinstance(backends.sheets, MemorySheetStore)
    assert isinstance(backends.rate_limits, LitestarMemoryStore)


def test_with_redis_every_backend_shares_the_games_client_and_prefix() -> None:
    backends = build_backends(Settings(redis_url="redis://127.0.0.1:1/0", redis_key_prefix="blue"))
    games = backends.games
    assert backends.kind == "redis"
    assert isinstance(games, RedisStore)
    assert isinstance(backends.channels, GameEventsBackend)
    assert isinstance(backends.tables, RedisTableIndex)
    assert isinstance(backends.due, RedisDueMoves)
    assert isinstance(backends.sheets, RedisSheetStore)
    assert isinstance(backends.rate_limits, LitestarRedisStore)
    assert backends.sheets.redis is games.redis, "one connection pool, not one per backend"
    assert isinstance(backends.records, RedisRecordStore)
    assert isinstance(backends.players, RedisPlayerStore)
    prefixes = [games.key_prefix, backends.sheets.key_prefix, backends.records.key_prefix]
    assert [*prefixes, backends.players.key_prefix] == ["blue"] * 4
    assert backends.rate_limits.namespace == "blue_rate_limit"
    # A game's notices are on the stream its commits append to, in the game's slot.
    assert backends.channels.stream_key(channel_of("x")) == events_key(games.key_prefix, "x")
    asyncio.run(games.close())

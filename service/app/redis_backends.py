"""The Redis family of backends (``service.app.backends``): the games' store and everything
beside it on the store's one client and key prefix, so a Redis Cluster deployment is one pool per
node and every key of the service shares one prefix."""

from __future__ import annotations

from litestar.stores.redis import RedisStore as LitestarRedisStore

from service.app.backends import Backends
from service.identity.redis_store import RedisPlayerStore
from service.identity.store import PLAYER_CHANNEL_PREFIX
from service.players.redis_seek_pool import RedisSeekPool
from service.ratings.redis_store import RedisRatingStore
from service.records.redis_store import RedisRecordStore
from service.settings import Settings
from service.sheets.redis_store import RedisSheetStore
from service.storage.redis_due_moves import RedisDueMoves
from service.storage.redis_game_store import RedisStore
from service.streams.redis_channels import GameEventsBackend
from service.tables.redis_index import RedisTableIndex
from service.tournaments.redis_store import RedisTournamentStore
from service.webhooks.redis_store import RedisWebhookStore


def redis_backends(settings: Settings, url: str) -> Backends:
    """The backends on the Redis (or, with ``REDIS_CLUSTER``, the Redis Cluster) at ``url``."""
    games = RedisStore.from_url(
        url,
        game_ttl=settings.game_ttl,
        idle_game_ttl=settings.idle_game_ttl,
        idempotency_ttl=settings.idempotency_ttl,
        cluster=settings.redis_cluster,
        key_prefix=settings.redis_key_prefix,
        pool_size=settings.redis_pool_size,
        pool_timeout=settings.redis_pool_timeout,
        event_history=settings.event_history,
    )
    return backends_beside(games, settings)


def backends_beside(games: RedisStore, settings: Settings) -> Backends:
    """Every other backend on ``games``' client and key prefix."""
    client, prefix = games.redis, games.key_prefix
    players = RedisPlayerStore(client, key_prefix=prefix)

    def stream_of(channel: str) -> str:
        """A channel's Redis stream: a player's log, or a game's event notices."""
        if channel.startswith(PLAYER_CHANNEL_PREFIX):
            return players.events_key(channel)
        return games.events_key_of(channel)

    return Backends(
        kind="redis",
        games=games,
        channels=GameEventsBackend(
            redis=client,
            history=settings.event_history,
            stream_ttl_ms=int(settings.game_ttl * 1000),
            key_of=stream_of,
        ),
        tables=RedisTableIndex(client, key_prefix=prefix, game_ttl=settings.game_ttl),
        due=RedisDueMoves(client, key_prefix=prefix),
        sheets=RedisSheetStore(
            client,
            ttl=settings.game_ttl,
            key_prefix=prefix,
            idempotency_ttl=settings.idempotency_ttl,
        ),
        # Litestar's store: its own client type, redis.asyncio.Redis; a cluster client serves
        # the same commands.
        rate_limits=LitestarRedisStore(client, namespace=f"{prefix}_rate_limit"),  # type: ignore[arg-type]
        records=RedisRecordStore(
            client,
            ttl=settings.game_ttl,
            key_prefix=prefix,
            idempotency_ttl=settings.idempotency_ttl,
        ),
        players=players,
        open_challenges=RedisTableIndex(
            client, key_prefix=f"{prefix}:challenges", game_ttl=settings.game_ttl
        ),
        seeks=RedisSeekPool(client, key_prefix=prefix),
        ratings=RedisRatingStore(client, key_prefix=prefix),
        webhooks=RedisWebhookStore(client, key_prefix=prefix),
        tournaments=RedisTournamentStore(client, key_prefix=prefix, ttl=settings.game_ttl),
    )

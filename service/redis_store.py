"""Games in Redis, for many service instances behind one load balancer.

Every key of one game carries the hash tag ``{game_id}``, so in Redis Cluster a game lives in one
slot and its compare-and-set script may touch all of its keys:

    <prefix>:{<game_id>}:game          hash: ``v`` = version, ``r`` = record
    <prefix>:{<game_id>}:idem:<key>    string: the response saved with an idempotency key

An action costs two round trips: ``load`` (HMGET) and ``commit`` (one EVALSHA that checks the
version, writes record and version, writes the idempotency record and refreshes the TTLs, all in
one atomic step). redis-py's ``Script`` loads the script again and retries if a restarted Redis
answers NOSCRIPT.

Connection failures and timeouts surface as ``StoreUnavailable`` (the service answers 503). The
client reconnects by itself once Redis is back: nothing needs a restart. A retried commit whose
first attempt did reach Redis finds the version moved and answers False, so an action can be
refused after being applied (the client's retry with its idempotency key gets the saved response)
but never applied twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, cast

import redis.asyncio as aioredis
import redis.exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

from service.store import GameExists, StoredGame, StoreUnavailable

_T = TypeVar("_T")

DEFAULT_KEY_PREFIX: Final = "ttt"

# Seconds: long enough for a loaded Redis on a busy machine, short enough that a dead one turns
# into a prompt 503 rather than a hung request.
DEFAULT_TIMEOUT: Final = 2.0

# KEYS[1] = game hash. ARGV: record, game TTL in ms.
_CREATE_SCRIPT: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '0', 'r', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS[1] = game hash, KEYS[2] = idempotency key (optional).
# ARGV: expected version, new version, record, game TTL in ms, [response, idempotency TTL in ms].
# Versions travel as decimal strings and are compared as strings: Lua's numbers are doubles.
_COMMIT_SCRIPT: Final = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if #KEYS == 2 then redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6]) end
return 1
"""

# What "Redis cannot serve us right now" looks like from redis-py: refused or dropped connections,
# timeouts, a server still loading its AOF, a cluster without a master for the slot, a replica
# promoted mid-write, a full memory.
_UNAVAILABLE: Final = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.ClusterError,
    redis_errors.TryAgainError,
    redis_errors.RedisClusterException,
    redis_errors.ReadOnlyError,
    redis_errors.OutOfMemoryError,
    OSError,
    asyncio.TimeoutError,
)


class InvalidKeyPrefix(ValueError):
    """A key prefix that would break the hash tags (braces) or is empty."""

    def __init__(self, prefix: str) -> None:
        super().__init__(f"key prefix must be non-empty and contain no '{{' or '}}': {prefix!r}")


class InvalidTtl(ValueError):
    """A TTL that is not a positive number of seconds."""

    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(f"{name} must be a positive number of seconds, got {seconds!r}")


def game_key(prefix: str, game_id: str) -> str:
    return f"{prefix}:{{{game_id}}}:game"


def idempotency_key(prefix: str, game_id: str, key: str) -> str:
    return f"{prefix}:{{{game_id}}}:idem:{key}"


def _milliseconds(name: str, seconds: float) -> int:
    if not seconds > 0:
        raise InvalidTtl(name, seconds)
    return max(1, round(seconds * 1000))


class RedisStore:
    """The ``Store`` protocol on a Redis server or a Redis Cluster.

    ``redis`` is the client (with its one connection pool for this process); the service hands it
    to Litestar's channels backend so events share the pool.
    """

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        game_ttl: float,
        idempotency_ttl: float,
        key_prefix: str = DEFAULT_KEY_PREFIX,
    ) -> None:
        if not key_prefix or "{" in key_prefix or "}" in key_prefix:
            raise InvalidKeyPrefix(key_prefix)
        self.redis = client
        self.key_prefix = key_prefix
        self._game_ttl_ms = _milliseconds("game_ttl", game_ttl)
        self._idempotency_ttl_ms = _milliseconds("idempotency_ttl", idempotency_ttl)
        self._create = client.register_script(_CREATE_SCRIPT)
        self._commit = client.register_script(_COMMIT_SCRIPT)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        game_ttl: float,
        idempotency_ttl: float,
        cluster: bool = False,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> RedisStore:
        """A store on ``url`` (``redis://host:port/db``; with ``cluster``, any node of the cluster).

        Connecting is lazy: a store made while Redis is down works once Redis is up.
        """
        # One quick retry rides over a connection that died with a restarted Redis: the pool
        # hands out the stale connection once, the retry reconnects.
        retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.25), retries=1)
        options: dict[str, Any] = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry": retry,
            "health_check_interval": 30,
        }
        client: aioredis.Redis | RedisCluster
        if cluster:
            client = RedisCluster.from_url(url, **options)
        else:
            client = aioredis.Redis.from_url(url, **options)
        return cls(
            client, game_ttl=game_ttl, idempotency_ttl=idempotency_ttl, key_prefix=key_prefix
        )

    async def create(self, game_id: str, record: bytes) -> None:
        created = await self._call(
            lambda: self._create(
                keys=[game_key(self.key_prefix, game_id)], args=[record, self._game_ttl_ms]
            )
        )
        if not created:
            raise GameExists(game_id)

    async def load(self, game_id: str) -> StoredGame | None:
        version, record = await self._call(
            lambda: cast(
                "Awaitable[list[bytes | None]]",
                self.redis.hmget(game_key(self.key_prefix, game_id), ["v", "r"]),
            )
        )
        if version is None or record is None:
            return None
        return StoredGame(int(version), record)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: bytes,
        *,
        idempotency: tuple[str, bytes] | None = None,
    ) -> bool:
        keys = [game_key(self.key_prefix, game_id)]
        args: list[bytes | int | str] = [
            str(expected_version),
            str(expected_version + 1),
            record,
            self._game_ttl_ms,
        ]
        if idempotency is not None:
            key, response = idempotency
            keys.append(idempotency_key(self.key_prefix, game_id, key))
            args += [response, self._idempotency_ttl_ms]
        applied = await self._call(lambda: self._commit(keys=keys, args=args))
        return bool(applied)

    async def recall(self, game_id: str, key: str) -> bytes | None:
        return await self._call(
            lambda: cast(
                "Awaitable[bytes | None]",
                self.redis.get(idempotency_key(self.key_prefix, game_id, key)),
            )
        )

    async def ping(self) -> None:
        await self._call(lambda: cast("Awaitable[Any]", self.redis.ping()))

    async def close(self) -> None:
        await self.redis.aclose()

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        try:
            return await command()
        except _UNAVAILABLE as error:
            raise StoreUnavailable(f"Redis is unavailable: {error}") from error

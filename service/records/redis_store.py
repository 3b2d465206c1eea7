"""Records, reviews and the seed secret in Redis or a Redis Cluster, on the games' own client:

    <prefix>:record:{<record_id>}        an imported record (a state as ``engine.game.dumps``)
    <prefix>:review:<kind>:{<id>}        a finished game's or a record's review (its JSON)
    <prefix>:seed-secret                 the deployment's seed secret (no expiry)
    <prefix>:claim:review:<kind>:{<id>}  the claim on computing a review (expires)

Each is one string written with ``SET … NX`` (with ``PX`` for those that expire) and read with
``GET``: one round trip each, one slot each on a cluster.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import sent

_T = TypeVar("_T")


class RedisRecordStore:
    """The ``RecordStore`` protocol on the games' Redis client, with its answer to an outage."""

    def __init__(
        self, client: aioredis.Redis | RedisCluster, *, ttl: float, key_prefix: str
    ) -> None:
        self.redis = client
        self.key_prefix = key_prefix
        self._ttl_ms = max(1, round(ttl * 1000))

    def _key(self, key: str) -> str:
        kind, _, some_id = key.rpartition(":")
        return f"{self.key_prefix}:{kind}:{{{some_id}}}" if kind else f"{self.key_prefix}:{key}"

    async def put_new(self, key: str, value: bytes, *, expires: bool = True) -> bytes:
        name = self._key(key)
        ttl = self._ttl_ms if expires else None
        written = await self._call(lambda: self.redis.set(name, value, nx=True, px=ttl))
        if written:
            return value
        kept = await self.get(key)
        return value if kept is None else kept  # expired in between: ours is as good

    async def get(self, key: str) -> bytes | None:
        name = self._key(key)
        return await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))

    async def claim(self, key: str, seconds: float) -> bool:
        name = self._key(key)
        ttl = max(1, round(seconds * 1000))
        return bool(await self._call(lambda: self.redis.set(name, b"1", nx=True, px=ttl)))

    async def release(self, key: str) -> None:
        name = self._key(key)
        await self._call(lambda: self.redis.delete(name))

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self.redis, command)

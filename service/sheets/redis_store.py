"""Score sheets in Redis or a Redis Cluster, on the games' own client (``RedisStore.redis``).

A sheet is one hash, so a Redis Cluster keeps it in one slot:

    <prefix>:sheet:{<sheet_id>}    hash: ``v`` = version, ``r`` = record

A write is one EVALSHA of its own small scripts, which compares the version, writes record and
version and refreshes the TTL in one atomic step; a read is one HMGET.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.sheets.store import SheetExists, StoredSheet

# Shared with the games' store rather than copied: its answer to an unreachable Redis.
from service.storage.redis_connection import sent

_T = TypeVar("_T")

# KEYS[1] = the sheet's hash. ARGV: record, TTL in ms.
_CREATE_SCRIPT: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '0', 'r', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS[1] = the sheet's hash. ARGV: expected version, new version, record, TTL in ms. Versions
# travel as decimal strings and are compared as strings, as the games' commit does.
_COMMIT_SCRIPT: Final = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


def sheet_key(prefix: str, sheet_id: str) -> str:
    return f"{prefix}:sheet:{{{sheet_id}}}"


class RedisSheetStore:
    """The ``SheetStore`` protocol on the games' Redis client (a server or a cluster): the same
    connection pool, timeouts and retries, and the same answer to an outage (503)."""

    def __init__(
        self, client: aioredis.Redis | RedisCluster, *, ttl: float, key_prefix: str
    ) -> None:
        self.redis = client
        self.key_prefix = key_prefix
        self._ttl_ms = max(1, round(ttl * 1000))
        self._create = client.register_script(_CREATE_SCRIPT)
        self._commit = client.register_script(_COMMIT_SCRIPT)

    async def create(self, sheet_id: str, record: bytes) -> None:
        key = sheet_key(self.key_prefix, sheet_id)
        created = await self._call(lambda: self._create(keys=[key], args=[record, self._ttl_ms]))
        if not created:
            raise SheetExists(sheet_id)

    async def load(self, sheet_id: str) -> StoredSheet | None:
        key = sheet_key(self.key_prefix, sheet_id)
        version, record = await self._call(
            lambda: cast("Awaitable[list[bytes | None]]", self.redis.hmget(key, ["v", "r"]))
        )
        if version is None or record is None:
            return None
        return StoredSheet(int(version), record)

    async def commit(self, sheet_id: str, expected_version: int, record: bytes) -> bool:
        key = sheet_key(self.key_prefix, sheet_id)
        args: list[bytes | int | str] = [
            str(expected_version),
            str(expected_version + 1),
            record,
            self._ttl_ms,
        ]
        return bool(await self._call(lambda: self._commit(keys=[key], args=args)))

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        """``command``, answered as the games' store answers an unreachable Redis (503)."""
        return await sent(self.redis, command)

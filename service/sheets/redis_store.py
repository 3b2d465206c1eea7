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
from service.storage.redis_connection import sent, write_token

_T = TypeVar("_T")

# KEYS[1] = the sheet's hash, KEYS[2] = an idempotency key (optional).
# ARGV: record, TTL in ms, write token, [saved answer, its TTL in ms]. As the games' create: a
# sheet that exists answers 0, or 1 if its version 0 was written with this token.
_CREATE_SCRIPT: Final = """
local version = redis.call('HGET', KEYS[1], 'v')
if version then
  if version == '0' and redis.call('HGET', KEYS[1], 'w') == ARGV[3] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', '0', 'r', ARGV[1], 'w', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if #KEYS == 2 then redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5]) end
return 1
"""

# KEYS[1] = the sheet's hash, KEYS[2] = an idempotency key (optional). ARGV: expected version,
# new version, record, TTL in ms, write token, [saved answer, its TTL in ms]. Versions travel as
# decimal strings and are compared as strings, and a write sent again finds its own token, as
# the games' commit does.
_COMMIT_SCRIPT: Final = """
local version = redis.call('HGET', KEYS[1], 'v')
if version ~= ARGV[1] then
  if version == ARGV[2] and redis.call('HGET', KEYS[1], 'w') == ARGV[5] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3], 'w', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if #KEYS == 2 then redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[7]) end
return 1
"""


def sheet_key(prefix: str, sheet_id: str) -> str:
    return f"{prefix}:sheet:{{{sheet_id}}}"


def saved_key(prefix: str, sheet_id: str, key: str) -> str:
    """An idempotency key's saved answer: beside its sheet, in the same slot."""
    return f"{prefix}:sheet:{{{sheet_id}}}:idem:{key}"


class RedisSheetStore:
    """The ``SheetStore`` protocol on the games' Redis client (a server or a cluster): the same
    connection pool, timeouts and retries, and the same answer to an outage (503)."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        ttl: float,
        key_prefix: str,
        idempotency_ttl: float = 86400,
    ) -> None:
        self.redis = client
        self.key_prefix = key_prefix
        self._ttl_ms = max(1, round(ttl * 1000))
        self._saved_ttl_ms = max(1, round(idempotency_ttl * 1000))
        self._create = client.register_script(_CREATE_SCRIPT)
        self._commit = client.register_script(_COMMIT_SCRIPT)

    async def create(
        self, sheet_id: str, record: bytes, *, idempotency: tuple[str, bytes] | None = None
    ) -> None:
        keys = [sheet_key(self.key_prefix, sheet_id)]
        args: list[bytes | int | str] = [record, self._ttl_ms, write_token()]
        self._saving(keys, args, sheet_id, idempotency)
        created = await self._call(lambda: self._create(keys=keys, args=args))
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

    async def commit(
        self,
        sheet_id: str,
        expected_version: int,
        record: bytes,
        *,
        idempotency: tuple[str, bytes] | None = None,
    ) -> bool:
        keys = [sheet_key(self.key_prefix, sheet_id)]
        args: list[bytes | int | str] = [
            str(expected_version),
            str(expected_version + 1),
            record,
            self._ttl_ms,
            write_token(),
        ]
        self._saving(keys, args, sheet_id, idempotency)
        return bool(await self._call(lambda: self._commit(keys=keys, args=args)))

    async def recall(self, sheet_id: str, key: str) -> bytes | None:
        name = saved_key(self.key_prefix, sheet_id, key)
        return await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))

    def _saving(
        self,
        keys: list[str],
        args: list[bytes | int | str],
        sheet_id: str,
        idempotency: tuple[str, bytes] | None,
    ) -> None:
        """Add a saved answer's key and arguments to a script's."""
        if idempotency is not None:
            key, answer = idempotency
            keys.append(saved_key(self.key_prefix, sheet_id, key))
            args += [answer, self._saved_ttl_ms]

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        """``command``, answered as the games' store answers an unreachable Redis (503)."""
        return await sent(self.redis, command)

"""Invite codes and the lobby in Redis (the ``TableIndex`` of ``service.tables.index``).

    <prefix>:invite:{<code>}     string: the game id; expires with the table
    <prefix>:{lobby}:order       sorted set: game id → when its entry expires (ms, Redis's clock)
    <prefix>:{lobby}:entries     hash: game id → the entry's JSON

A code key is its own slot (codes spread over a cluster's masters). The lobby's two keys share
the hash tag ``{lobby}``, so each of its scripts runs atomically on one node, in Redis Cluster
too. How it scales: a write (a table listed, joined, left or full) is O(log N) in the tables
listed; a read drops the expired entries (at most ``_SWEEP`` per read) and returns one page of
the newest, O(log N + page), in one round trip. Every instance reads the same lobby. The lobby
is one slot, so one master serves it: a few thousand writes a second is a small part of what
one Redis does; past that it would be split into ``{lobby:k}`` shards by game id, read side by
side. Entries expire with their tables (the score), and both keys expire with the newest entry,
so tables that expire waiting leave nothing behind.

Failures surface as ``StoreUnavailable`` (503), as the game store's do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import sent

_T = TypeVar("_T")

_SWEEP: Final = 1000
"""Expired lobby entries a read removes at most (the rest go on the next read)."""

# Redis's own clock (TIME), so instances whose clocks differ agree on what has expired.
_NOW_MS: Final = """
local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
"""

# KEYS: order, entries. ARGV: game id, entry, TTL in ms.
_LIST_SCRIPT: Final = (
    _NOW_MS
    + """
redis.call('ZADD', KEYS[1], now + ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""
)

# KEYS: order, entries. ARGV: game id.
_UNLIST_SCRIPT: Final = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

# KEYS: order, entries. ARGV[2]: how many expired entries one read drops at most.
_SWEEP_EXPIRED: Final = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, ARGV[2])
if #gone > 0 then
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('HDEL', KEYS[2], unpack(gone))
end
"""

# KEYS: order, entries. ARGV: page size, sweep size.
_READ_SCRIPT: Final = (
    _NOW_MS
    + _SWEEP_EXPIRED
    + """
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. now, 'LIMIT', 0, ARGV[1])
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))
"""
)


# KEYS: order, entries. ARGV: page size, sweep size, after score or '+inf', after game id or ''.
# Entries of one expiry come in game id order, descending: first the rest of the cursor's expiry
# (those listed in one millisecond, few), then the older ones. One more than a page, if there is
# one, says that more follow.
_PAGE_SCRIPT: Final = (
    _NOW_MS
    + _SWEEP_EXPIRED
    + """
local wanted = tonumber(ARGV[1]) + 1
local ids, scores = {}, {}
local function take(found, after_id)
  for i = 1, #found, 2 do
    if #ids < wanted and (after_id == nil or found[i] < after_id) then
      ids[#ids + 1] = found[i]
      scores[#scores + 1] = found[i + 1]
    end
  end
end
local older = ARGV[3]
if ARGV[4] ~= '' then
  take(redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[3], ARGV[3], 'WITHSCORES'), ARGV[4])
  older = '(' .. ARGV[3]
end
if #ids < wanted then
  take(redis.call('ZREVRANGEBYSCORE', KEYS[1], older, '(' .. now, 'WITHSCORES',
    'LIMIT', 0, wanted - #ids), nil)
end
if #ids == 0 then return {{}, {}, {}} end
return {redis.call('HMGET', KEYS[2], unpack(ids)), ids, scores}
"""
)


def code_key(prefix: str, code: str) -> str:
    return f"{prefix}:invite:{{{code}}}"


def lobby_keys(prefix: str) -> list[str]:
    return [f"{prefix}:{{lobby}}:order", f"{prefix}:{{lobby}}:entries"]


class RedisTableIndex:
    """Invite codes and the lobby on the game store's Redis client."""

    def __init__(
        self, client: aioredis.Redis | RedisCluster, *, key_prefix: str, game_ttl: float
    ) -> None:
        self._redis = client
        self._prefix = key_prefix
        self._ttl_ms = max(1, round(game_ttl * 1000))
        self._list = client.register_script(_LIST_SCRIPT)
        self._unlist = client.register_script(_UNLIST_SCRIPT)
        self._read = client.register_script(_READ_SCRIPT)
        self._page = client.register_script(_PAGE_SCRIPT)

    async def reserve_code(self, code: str, game_id: str) -> bool:
        key = code_key(self._prefix, code)
        reserved = await self._call(
            lambda: cast("Awaitable[Any]", self._redis.set(key, game_id, nx=True, px=self._ttl_ms))
        )
        return bool(reserved)

    async def game_of_code(self, code: str) -> str | None:
        key = code_key(self._prefix, code)
        found = await self._call(lambda: cast("Awaitable[bytes | None]", self._redis.get(key)))
        return None if found is None else found.decode()

    async def keep_code(self, code: str, seconds: float) -> None:
        key = code_key(self._prefix, code)
        milliseconds = max(1, round(seconds * 1000))
        await self._call(lambda: cast("Awaitable[Any]", self._redis.pexpire(key, milliseconds)))

    async def list_table(self, game_id: str, entry: bytes) -> None:
        keys = lobby_keys(self._prefix)
        await self._call(lambda: self._list(keys=keys, args=[game_id, entry, self._ttl_ms]))

    async def unlist_table(self, game_id: str) -> None:
        keys = lobby_keys(self._prefix)
        await self._call(lambda: self._unlist(keys=keys, args=[game_id]))

    async def listed(self, limit: int = 100) -> list[bytes]:
        keys = lobby_keys(self._prefix)
        entries = await self._call(lambda: self._read(keys=keys, args=[limit, _SWEEP]))
        return [entry for entry in cast("list[bytes | None]", entries) if entry is not None]

    async def page(
        self, limit: int, after: tuple[float, str] | None
    ) -> tuple[list[bytes], tuple[float, str] | None]:
        keys = lobby_keys(self._prefix)
        high, last = ("+inf", "") if after is None else (repr(int(after[0])), after[1])
        found = await self._call(lambda: self._page(keys=keys, args=[limit, _SWEEP, high, last]))
        entries, ids, scores = cast("list[list[Any]]", found)
        rows = [
            (entry, (float(score), game_id.decode()))
            for entry, game_id, score in zip(entries, ids, scores, strict=True)
            if entry is not None
        ]
        more = len(rows) > limit
        rows = rows[:limit]
        return [entry for entry, _ in rows], rows[-1][1] if more and rows else None

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self._redis, command)

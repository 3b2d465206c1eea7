"""Tournaments (``service.tournaments.store``) in Redis, for every instance.

A tournament's record lives in one of ``SHARDS`` slots, chosen by its id, beside that shard's
due entries, so a replace and its entry are one script on one node, in Redis Cluster too. The
lists live in one slot of their own, written after the record (a listed id whose record is gone
is left out by the reader), every key under ``<prefix>:tournaments:``:

| Key | What |
|---|---|
| `…:{t<k>}:record:<id>` | the record (msgpack), expiring ``ttl`` after its change (or due time) |
| `…:{t<k>}:due` | the shard's due entries: a sorted set of ids by due time |
| `…:{tlist}:all` | every tournament by creation time (the newest ``LISTED_MOST``) |
| `…:{tlist}:by:<player id>` | a creator's by creation time (the newest ``BY_CREATOR_MOST``) |
"""

from __future__ import annotations

import time
import zlib
from functools import partial
from typing import Any, Final, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.http.cursors import Position
from service.storage.redis_connection import sent
from service.storage.redis_due_moves import TAKE_DUE_SCRIPT
from service.tournaments.store import TournamentExists

SHARDS: Final = 16
LISTED_MOST: Final = 10_000
BY_CREATOR_MOST: Final = 100

# KEYS: record, due. ARGV: id, record, due, ttl ms.
_CREATE: Final = """
if redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[4]) == false then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

# KEYS: record, due. ARGV: id, old, new, due ('' for none), ttl ms.
_REPLACE: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[5])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
return 1
"""

# KEYS: all, by creator. ARGV: id, created, listed most, by creator most.
_LIST: Final = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -1 - tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[4]))
return 1
"""


def shard_of(tournament_id: str) -> int:
    return zlib.crc32(tournament_id.encode()) % SHARDS


class RedisTournamentStore:
    """Tournaments on the game store's Redis client and key prefix."""

    def __init__(
        self, client: aioredis.Redis | RedisCluster, *, key_prefix: str, ttl: float
    ) -> None:
        self._redis = client
        self._prefix = key_prefix
        self._ttl = ttl
        self._create = client.register_script(_CREATE)
        self._replace = client.register_script(_REPLACE)
        self._take = client.register_script(TAKE_DUE_SCRIPT)
        self._list = client.register_script(_LIST)
        self._next_shard = 0

    def _shard_key(self, shard: int, name: str) -> str:
        return f"{self._prefix}:tournaments:{{t{shard}}}:{name}"

    def _keys(self, tournament_id: str) -> list[str]:
        shard = shard_of(tournament_id)
        return [self._shard_key(shard, f"record:{tournament_id}"), self._shard_key(shard, "due")]

    def _list_key(self, name: str) -> str:
        return f"{self._prefix}:tournaments:{{tlist}}:{name}"

    def _ttl_ms(self, due: float | None) -> int:
        """Kept ``ttl`` after now, or after its due time if that is later (one to start in a
        week)."""
        waits = 0.0 if due is None else max(0.0, due - time.time())
        return int((self._ttl + waits) * 1000)

    async def create(
        self, tournament_id: str, record: bytes, *, creator: str, created: float, due: float
    ) -> None:
        keys = self._keys(tournament_id)
        args: list[str | bytes | float | int] = [tournament_id, record, due, self._ttl_ms(due)]
        made = await sent(self._redis, lambda: self._create(keys=keys, args=args))
        if not made:
            raise TournamentExists(tournament_id)
        list_keys = [self._list_key("all"), self._list_key(f"by:{creator}")]
        list_args: list[str | float | int] = [tournament_id, created, LISTED_MOST, BY_CREATOR_MOST]
        await sent(self._redis, lambda: self._list(keys=list_keys, args=list_args))

    async def get(self, tournament_id: str) -> bytes | None:
        key = self._keys(tournament_id)[0]
        raw = await sent(self._redis, lambda: cast("Any", self._redis.get(key)))
        return cast("bytes | None", raw)

    async def replace(
        self, tournament_id: str, old: bytes, new: bytes, *, due: float | None
    ) -> bool:
        keys = self._keys(tournament_id)
        args: list[str | bytes | float | int] = [
            tournament_id,
            old,
            new,
            "" if due is None else due,
            self._ttl_ms(due),
        ]
        replaced = await sent(self._redis, lambda: self._replace(keys=keys, args=args))
        return bool(replaced)

    async def take_due(self, now: float, lease: float, limit: int) -> list[str]:
        """Each shard's due tournaments, the shards in turn from the one after the last this
        instance took from."""
        taken: list[str] = []
        first = self._next_shard
        for step in range(SHARDS):
            if len(taken) >= limit:
                break
            shard = (first + step) % SHARDS
            keys = [self._shard_key(shard, "due")]
            args: list[float] = [now, now + lease, limit - len(taken)]
            raw = await sent(self._redis, partial(self._take, keys=keys, args=args))
            ids = [each.decode() for each in cast("list[bytes]", raw)]
            if ids:
                self._next_shard = (shard + 1) % SHARDS
            taken += ids
        return taken

    async def page(self, limit: int, after: Position | None) -> tuple[list[str], Position | None]:
        key = self._list_key("all")
        top: float | str = "+inf" if after is None else after[0]
        # Ties of one creation time are rare: read past them, and keep those after ``after``.
        wanted = limit + 1 + (0 if after is None else 64)
        raw = await sent(
            self._redis,
            lambda: cast(
                "Any",
                self._redis.zrevrangebyscore(
                    key, top, "-inf", start=0, num=wanted, withscores=True
                ),
            ),
        )
        found = sorted(
            ((float(score), member.decode()) for member, score in cast("list[Any]", raw)),
            reverse=True,
        )
        if after is not None:
            found = [p for p in found if p < after]
        shown = found[:limit]
        last = shown[-1] if len(found) > limit else None
        return [t for _, t in shown], last

    async def created_by(self, player_id: str, limit: int) -> list[str]:
        key = self._list_key(f"by:{player_id}")
        raw = await sent(self._redis, lambda: cast("Any", self._redis.zrevrange(key, 0, limit - 1)))
        return [each.decode() for each in cast("list[bytes]", raw)]

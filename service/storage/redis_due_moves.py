"""The moves the service owes (``service.storage.due_moves``) in Redis, for every instance: one
sorted set of due entries per shard of the games, in the games' own slot (the layout:
``service.storage.redis_keys``), written by the games' commits; a lease key per game being
driven; and the sweeping instances, which share the shards between them.

Each script touches the keys of one slot, so it is atomic on one node, in Redis Cluster too.
``take_due`` first writes this sweeper's time into ``{sweepers}:live`` and reads the sweepers seen
within a lease; ordered by name, the i-th of n sweeps the shards k with ``k % n == i``. While an
instance joins or leaves, a shard may be swept by two (the entries' leases keep them from taking
the same entry) or, for a lease at most, by none (its entries wait, and stay). The times are the
instances' clocks (a turn's start is written by whichever instance committed it): clocks kept by
NTP agree to well under the lease.

A game that expires leaves its entry until a sweeper takes it, finds no game and removes it.
"""

from __future__ import annotations

import bisect
from typing import Any, Final, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import sent
from service.storage.redis_game_store import due_arg
from service.storage.redis_keys import (
    SHARDS,
    driver_key,
    due_key,
    game_key,
    shard_due_key,
    sweepers_key,
)

# KEYS: live sweepers. ARGV: sweeper, now, now - lease.
_SWEEPERS_SCRIPT: Final = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""

# KEYS: due. ARGV: now, now + lease, limit.
TAKE_DUE_SCRIPT: Final = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, game in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], game)
end
return due
"""
"""Take the members of a sorted set of due times whose time has come, each moved on by a lease
in the same step (the tournaments' due entries are taken so too)."""

# KEYS: driver, due. ARGV: owner, lease in ms, now + lease, game id.
_CLAIM_SCRIPT: Final = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', 'GT', ARGV[3], ARGV[4])
return 1
"""

# KEYS: driver, game, due. ARGV: owner, version ('' if gone), due ('' for none), game id.
_RELEASE_SCRIPT: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local version = redis.call('HGET', KEYS[2], 'v')
if not version then
  redis.call('ZREM', KEYS[3], ARGV[4])
elseif version == ARGV[2] then
  if ARGV[3] == '' then
    redis.call('ZREM', KEYS[3], ARGV[4])
  else
    redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
  end
end
return 1
"""


class RedisDueMoves:
    """The due moves on the game store's Redis client."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, key_prefix: str) -> None:
        self._redis = client
        self._prefix = key_prefix
        self._sweepers = client.register_script(_SWEEPERS_SCRIPT)
        self._take = client.register_script(TAKE_DUE_SCRIPT)
        self._claim = client.register_script(_CLAIM_SCRIPT)
        self._release = client.register_script(_RELEASE_SCRIPT)
        self._next_shard = 0
        """Where this instance's next sweep begins: the shard after the last it took from."""

    async def take_due(self, now: float, lease: float, limit: int, *, sweeper: str) -> list[str]:
        """Up to ``limit`` due games of ``sweeper``'s shards, each shard's oldest first, the
        shards in turn from the one after the last this instance took from. A clock hand:
        a sweep short of room stops part of the way round, and the next goes on from there, so
        no shard's games wait behind the backlog of the shards before it (a sweep that began
        at the first shard every time left the last shards' games due for as long as the
        first ones had more than a sweep's room)."""
        shards = await self._shards_of(sweeper, now, lease)
        start = bisect.bisect_left(shards, self._next_shard)
        taken: list[str] = []
        for shard in shards[start:] + shards[:start]:
            if len(taken) >= limit:
                break
            games = await self._take_from(shard, now, lease, limit - len(taken))
            if games:
                self._next_shard = shard + 1
            taken += games
        return taken

    async def _take_from(self, shard: int, now: float, lease: float, limit: int) -> list[str]:
        keys = [shard_due_key(self._prefix, shard)]
        args = [now, now + lease, limit]
        due = await sent(self._redis, lambda: self._take(keys=keys, args=args))
        return [game_id.decode() for game_id in cast("list[bytes]", due)]

    async def _shards_of(self, sweeper: str, now: float, lease: float) -> list[int]:
        """The shards ``sweeper`` sweeps now: its share among the sweepers seen within a
        lease."""
        live = await sent(
            self._redis,
            lambda: self._sweepers(
                keys=[sweepers_key(self._prefix)], args=[sweeper, now, now - lease]
            ),
        )
        names = sorted(name.decode() for name in cast("list[bytes]", live))
        index, count = names.index(sweeper), len(names)
        return [shard for shard in range(SHARDS) if shard % count == index]

    async def claim(self, game_id: str, owner: str, now: float, lease: float) -> bool:
        keys = [driver_key(self._prefix, game_id), due_key(self._prefix, game_id)]
        args: list[str | int | float] = [owner, max(1, round(lease * 1000)), now + lease, game_id]
        held = await sent(self._redis, lambda: self._claim(keys=keys, args=args))
        return bool(held)

    async def release(
        self, game_id: str, owner: str, version: int | None, due: float | None
    ) -> None:
        keys = [
            driver_key(self._prefix, game_id),
            game_key(self._prefix, game_id),
            due_key(self._prefix, game_id),
        ]
        args = [owner, "" if version is None else str(version), due_arg(due), game_id]
        await sent(self._redis, lambda: self._release(keys=keys, args=args))

    async def entry(self, game_id: str) -> float | None:
        score = await sent(
            self._redis,
            lambda: cast("Any", self._redis.zscore(due_key(self._prefix, game_id), game_id)),
        )
        return None if score is None else float(score)

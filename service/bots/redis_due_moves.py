"""The moves the service owes (``service.bots.due_moves``) in Redis, for every instance:

    <prefix>:{moves}:due     sorted set: game id → Unix time its next move is due (seconds)

One key, so each script runs atomically on one node, in Redis Cluster too; its hash tag
``{moves}`` names the slot, as the lobby's ``{lobby}`` does. ``take_due`` is one script: the due
entries and their lease in one step, so two sweepers never both take an entry whose lease holds.
The times are the instances' clocks (a turn's start is written by whichever instance committed
it): clocks kept by NTP agree to well under the lease.

A game that expires leaves its entry until a sweeper takes it, finds no game and removes it.
"""

from __future__ import annotations

from typing import Any, Final, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import sent

# KEYS: due. ARGV: now, now + lease, limit.
_TAKE_SCRIPT: Final = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, game in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], game)
end
return due
"""


def due_key(prefix: str) -> str:
    return f"{prefix}:{{moves}}:due"


class RedisDueMoves:
    """The due moves on the game store's Redis client."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, key_prefix: str) -> None:
        self._redis = client
        self._key = due_key(key_prefix)
        self._take = client.register_script(_TAKE_SCRIPT)

    async def schedule(self, game_id: str, due: float) -> None:
        await sent(self._redis, lambda: cast("Any", self._redis.zadd(self._key, {game_id: due})))

    async def remove(self, game_id: str) -> None:
        await sent(self._redis, lambda: cast("Any", self._redis.zrem(self._key, game_id)))

    async def take_due(self, now: float, lease: float, limit: int) -> list[str]:
        taken = await sent(
            self._redis, lambda: self._take(keys=[self._key], args=[now, now + lease, limit])
        )
        return [game_id.decode() for game_id in cast("list[bytes]", taken)]

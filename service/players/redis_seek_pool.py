"""The seek pools in Redis or a Redis Cluster, on the games' own client. Every key shares the
hash tag ``{seeks}`` (one slot on a cluster), so that adding and matching is one script:

    <prefix>:{seeks}:seek              hash: seek id → the seek's JSON (``SeekRecord``)
    <prefix>:{seeks}:state             hash: seek id → its state (``SeekState.text``)
    <prefix>:{seeks}:kept              sorted set: seek id → when it is forgotten
    <prefix>:{seeks}:pool:<terms>      sorted set: waiting seek id → its expiry (oldest first);
                                       the key expires with its newest seek
    <prefix>:{seeks}:player:<player>   sorted set: the player's waiting seek ids → expiry; the
                                       key expires with its newest seek

One slot carries every pool: matching is a few commands per seek, far below what one Redis
shard serves; pools of their own slots would need a match to span keys the script cannot name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.players.seek_pool import (
    SEEK_KEPT,
    SEEKS_PER_PLAYER,
    AlreadySeeking,
    SeekRecord,
    SeekState,
    TooManySeeks,
    decoded,
    encoded,
)
from service.storage.redis_connection import sent

_T = TypeVar("_T")

# KEYS: seeks, states, kept, pool, player. ARGV: id, record, now, expires, table size, cap,
# game id, forgotten at. {'seeking', id} | {'too-many'} | {'waiting'} | {'matched', state}.
# A seek id is new to each add, so one that has a state is this add sent again by redis-py after
# a lost answer: it answers what the first run left, and matches nothing twice.
_ADD_SCRIPT: Final = """
local seeks, states, kept, pool, mine = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, now, expires = ARGV[1], tonumber(ARGV[3]), ARGV[4]
local added = redis.call('HGET', states, id)
if added == 'waiting' then return {'waiting'} end
if added and string.sub(added, 1, 8) == 'matched ' then return {'matched', added} end
local wanted, cap = tonumber(ARGV[5]), tonumber(ARGV[6])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', kept, '-inf', now, 'LIMIT', 0, 50)) do
  redis.call('HDEL', seeks, gone)
  redis.call('HDEL', states, gone)
  redis.call('ZREM', kept, gone)
end
redis.call('ZREMRANGEBYSCORE', mine, '-inf', now)
local count = 0
for _, other in ipairs(redis.call('ZRANGE', mine, 0, -1)) do
  if redis.call('HGET', states, other) == 'waiting' then
    if redis.call('ZSCORE', pool, other) then return {'seeking', other} end
    count = count + 1
  else
    redis.call('ZREM', mine, other)
  end
end
if count >= cap then return {'too-many'} end
redis.call('HSET', seeks, id, ARGV[2])
redis.call('ZADD', kept, ARGV[8], id)
redis.call('ZREMRANGEBYSCORE', pool, '-inf', now)
local queue = {}
for _, other in ipairs(redis.call('ZRANGE', pool, 0, -1)) do
  if redis.call('HGET', states, other) == 'waiting' then
    table.insert(queue, other)
  else
    redis.call('ZREM', pool, other)
  end
end
table.insert(queue, id)
if #queue < wanted then
  redis.call('HSET', states, id, 'waiting')
  redis.call('ZADD', pool, expires, id)
  redis.call('ZADD', mine, expires, id)
  -- Every seek waits as long, so the newest one's expiry is its pool's and its player's last.
  local last = math.ceil(tonumber(expires)) + 1
  redis.call('EXPIREAT', pool, last)
  redis.call('EXPIREAT', mine, last)
  return {'waiting'}
end
local mates = {}
for i = 1, wanted do mates[i] = queue[i] end
local state = 'matched ' .. ARGV[7] .. ' ' .. table.concat(mates, ',')
for _, mate in ipairs(mates) do
  redis.call('HSET', states, mate, state)
  redis.call('ZREM', pool, mate)
end
return {'matched', state}
"""

# KEYS: states, pool, player. ARGV: id. The seek's state after.
_CANCEL_SCRIPT: Final = """
local state = redis.call('HGET', KEYS[1], ARGV[1])
if state == 'waiting' then
  redis.call('HSET', KEYS[1], ARGV[1], 'canceled')
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 'canceled'
end
return state
"""


class RedisSeekPool:
    """The ``SeekPool`` protocol on the games' Redis client, with its answer to an outage."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, key_prefix: str) -> None:
        self._redis = client
        self._prefix = f"{key_prefix}:{{seeks}}"
        self._add = client.register_script(_ADD_SCRIPT)
        self._cancel = client.register_script(_CANCEL_SCRIPT)

    async def add(self, seek: SeekRecord, game_id: str) -> SeekState:
        keys = [
            self._key("seek"),
            self._key("state"),
            self._key("kept"),
            self._key("pool", seek.pool),
            self._key("player", seek.player_id),
        ]
        args: list[bytes | str | int] = [
            seek.seek_id,
            encoded(seek),
            repr(seek.created),
            repr(seek.expires),
            seek.players,
            SEEKS_PER_PLAYER,
            game_id,
            repr(seek.created + SEEK_KEPT),
        ]
        answer = await self._call(lambda: self._add(keys=keys, args=args))
        outcome, *rest = [part.decode() for part in cast("list[bytes]", answer)]
        if outcome == "seeking":
            raise AlreadySeeking(rest[0])
        if outcome == "too-many":
            raise TooManySeeks()
        return SeekState("waiting") if outcome == "waiting" else SeekState.from_text(rest[0])

    async def get(self, seek_id: str) -> tuple[SeekRecord, SeekState] | None:
        data = await self._call(
            lambda: cast("Awaitable[bytes | None]", self._redis.hget(self._key("seek"), seek_id))
        )
        if data is None:
            return None
        state = await self._call(
            lambda: cast("Awaitable[bytes | None]", self._redis.hget(self._key("state"), seek_id))
        )
        if state is None:  # forgotten between the two reads
            return None
        return decoded(data), SeekState.from_text(state.decode())

    async def cancel(self, seek: SeekRecord) -> SeekState:
        keys = [
            self._key("state"),
            self._key("pool", seek.pool),
            self._key("player", seek.player_id),
        ]
        answer = await self._call(lambda: self._cancel(keys=keys, args=[seek.seek_id]))
        return SeekState.from_text(cast("bytes", answer).decode())

    def _key(self, *parts: str) -> str:
        return ":".join((self._prefix, *parts))

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self._redis, command)

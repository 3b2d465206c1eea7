"""The seek pools in Redis or a Redis Cluster, on the games' own client. Every key shares the
hash tag ``{seeks}`` (one slot on a cluster), so that adding and matching is one script:

    <prefix>:{seeks}:seek              hash: seek id → the seek's JSON (``SeekRecord``)
    <prefix>:{seeks}:state             hash: seek id → its state (``SeekState.text``)
    <prefix>:{seeks}:kept              sorted set: seek id → when it is forgotten
    <prefix>:{seeks}:pool:<terms>      sorted set: waiting seek id → its expiry (oldest first);
                                       the key expires with its newest seek
    <prefix>:{seeks}:player:<player>   sorted set: the player's waiting seek ids → expiry; the
                                       key expires with its newest seek
    <prefix>:{seeks}:rating            hash: rated seek id → "<rating> <entered>" (kept as the
                                       seek is)
    <prefix>:{seeks}:due               sorted set: "<table size> <terms>" → when the rated pool
                                       may match without a new seek (its windows widened)
    <prefix>:{seeks}:made:<game id>    a sweep's match, for a minute: a sweep sent again finds it

One slot carries every pool: matching is a few commands per seek, far below what one Redis
shard serves; pools of their own slots would need a match to span keys the script cannot name.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.players.seek_matching import WIDENING, Widening
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

_MADE_KEPT: Final = "60"
"""Seconds a sweep's match is remembered under its game id: far beyond a resend's delay."""

# The steps both scripts share: the pool's waiting seeks, and the table they make now
# (``service.players.seek_matching.choose``, line for line, so memory and Redis match alike).
_MATCHING: Final = """
local function waiting_in(pool, states, now)
  redis.call('ZREMRANGEBYSCORE', pool, '-inf', now)
  local queue = {}
  for _, other in ipairs(redis.call('ZRANGE', pool, 0, -1)) do
    if redis.call('HGET', states, other) == 'waiting' then
      table.insert(queue, other)
    else
      redis.call('ZREM', pool, other)
    end
  end
  return queue
end

local function choose(queue, ratings, size, now, must, start, per_second, anyone_after)
  local n = #queue
  if n < size then return nil, nil end
  if not redis.call('HGET', ratings, queue[1]) then
    local mates = {}
    for i = 1, size do mates[i] = queue[i] end
    return mates, nil
  end
  local rating, entered, order = {}, {}, {}
  for i = 1, n do
    local r, e = string.match(redis.call('HGET', ratings, queue[i]), '^(%S+) (%S+)$')
    rating[i], entered[i], order[i] = tonumber(r), tonumber(e), i
  end
  table.sort(order, function(a, b)
    if rating[a] ~= rating[b] then return rating[a] < rating[b] end
    return a < b
  end)
  local place, before, after = {}, {}, {}
  for at = 1, n do place[order[at]], before[at], after[at] = at, at - 1, at + 1 end
  after[n] = 0
  local due = nil
  for anchor = 1, n do
    if n - anchor + 1 < size then break end
    local at = place[anchor]
    local line, near, count = {at}, before[at], 0
    while near > 0 and count < size - 1 do
      table.insert(line, 1, near)
      near, count = before[near], count + 1
    end
    near, count = after[at], 0
    while near > 0 and count < size - 1 do
      table.insert(line, near)
      near, count = after[near], count + 1
    end
    local spread, first = nil, nil
    for s = 1, #line - size + 1 do
      local gap = rating[order[line[s + size - 1]]] - rating[order[line[s]]]
      if spread == nil or gap < spread then spread, first = gap, s end
    end
    if before[at] > 0 then after[before[at]] = after[at] end
    if after[at] > 0 then before[after[at]] = before[at] end
    local waited = now - entered[anchor]
    if waited >= anyone_after or spread <= start + per_second * waited then
      local members = {}
      for s = first, first + size - 1 do table.insert(members, order[line[s]]) end
      table.sort(members)
      local mates, with_must = {}, must == ''
      for i, m in ipairs(members) do
        mates[i] = queue[m]
        if queue[m] == must then with_must = true end
      end
      if with_must then return mates, nil end
      due = now
    else
      local reached = entered[anchor] + math.min(anyone_after, (spread - start) / per_second)
      if due == nil or reached < due then due = reached end
    end
  end
  return nil, due
end

-- Take a table out of the pool (if one was made) and keep the pool's due time.
local function matched(states, pool, due, member, queue, mates, later, now, size, game_id)
  local left = #queue - (mates and #mates or 0)
  if mates and left >= size then later = now end
  if later then redis.call('ZADD', due, later, member) else redis.call('ZREM', due, member) end
  if not mates then return nil end
  local state = 'matched ' .. game_id .. ' ' .. table.concat(mates, ',')
  for _, mate in ipairs(mates) do
    redis.call('HSET', states, mate, state)
    redis.call('ZREM', pool, mate)
  end
  return state
end
"""

# KEYS: seeks, states, kept, pool, player, ratings, due. ARGV: id, record, now, expires, table
# size, cap, game id, forgotten at, '<rating> <entered>' ('' unrated), window start, widening per
# second, anyone after, due member. {'seeking', id} | {'too-many'} | {'waiting'} |
# {'matched', state}. A seek id is new to each add, so one that has a state is this add sent
# again by redis-py after a lost answer: it answers what the first run left, and matches nothing
# twice.
_ADD_SCRIPT: Final = (
    _MATCHING
    + """
local seeks, states, kept, pool, mine = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ratings, due = KEYS[6], KEYS[7]
local id, now, expires = ARGV[1], tonumber(ARGV[3]), ARGV[4]
local added = redis.call('HGET', states, id)
if added == 'waiting' then return {'waiting'} end
if added and string.sub(added, 1, 8) == 'matched ' then return {'matched', added} end
local wanted, cap = tonumber(ARGV[5]), tonumber(ARGV[6])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', kept, '-inf', now, 'LIMIT', 0, 50)) do
  redis.call('HDEL', seeks, gone)
  redis.call('HDEL', states, gone)
  redis.call('HDEL', ratings, gone)
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
if ARGV[9] ~= '' then redis.call('HSET', ratings, id, ARGV[9]) end
local queue = waiting_in(pool, states, now)
table.insert(queue, id)
local mates, later = choose(
  queue, ratings, wanted, now, id, tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]))
local state = matched(states, pool, due, ARGV[13], queue, mates, later, now, wanted, ARGV[7])
if state then return {'matched', state} end
redis.call('HSET', states, id, 'waiting')
redis.call('ZADD', pool, expires, id)
redis.call('ZADD', mine, expires, id)
-- Every seek waits as long, so the newest one's expiry is its pool's and its player's last.
local last = math.ceil(tonumber(expires)) + 1
redis.call('EXPIREAT', pool, last)
redis.call('EXPIREAT', mine, last)
return {'waiting'}
"""
)

# KEYS: states, ratings, pool, due, made. ARGV: now, due member, table size, game id, window
# start, widening per second, anyone after, seconds the match is remembered. {'waiting'} |
# {'matched', state}. ``made`` is this game id's: a sweep sent again by redis-py after a lost
# answer finds the match its first run made, and makes no second match to the same game.
_SWEEP_SCRIPT: Final = (
    _MATCHING
    + """
local states, ratings, pool, due, made = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now, size = tonumber(ARGV[1]), tonumber(ARGV[3])
local before = redis.call('GET', made)
if before then return {'matched', before} end
local queue = waiting_in(pool, states, now)
local mates, later = choose(
  queue, ratings, size, now, '', tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]))
local state = matched(states, pool, due, ARGV[2], queue, mates, later, now, size, ARGV[4])
if not state then return {'waiting'} end
redis.call('SET', made, state, 'EX', ARGV[8])
return {'matched', state}
"""
)
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

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        key_prefix: str,
        clock: Callable[[], float] = time.time,
        widening: Widening = WIDENING,
    ) -> None:
        self._redis = client
        self._prefix = f"{key_prefix}:{{seeks}}"
        self._clock = clock
        self._window = [repr(float(part)) for part in widening]
        self._add = client.register_script(_ADD_SCRIPT)
        self._sweep = client.register_script(_SWEEP_SCRIPT)
        self._cancel = client.register_script(_CANCEL_SCRIPT)

    async def add(self, seek: SeekRecord, game_id: str) -> SeekState:
        keys = [
            self._key("seek"),
            self._key("state"),
            self._key("kept"),
            self._key("pool", seek.pool),
            self._key("player", seek.player_id),
            self._key("rating"),
            self._key("due"),
        ]
        args: list[bytes | str | int] = [
            seek.seek_id,
            encoded(seek),
            repr(self._clock()),
            repr(seek.expires),
            seek.players,
            SEEKS_PER_PLAYER,
            game_id,
            repr(seek.created + SEEK_KEPT),
            "" if seek.rating is None else f"{seek.rating!r} {seek.created!r}",
            *self._window,
            f"{seek.players} {seek.pool}",
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

    async def sweep(self, new_game_id: Callable[[], str], limit: int) -> list[SeekState]:
        now = repr(self._clock())
        due_key = self._key("due")
        due = await self._call(
            lambda: cast(
                "Awaitable[list[bytes]]",
                self._redis.zrangebyscore(due_key, "-inf", now, start=0, num=limit),
            )
        )
        made = []
        for member in (entry.decode() for entry in due):
            size, _, pool = member.partition(" ")
            while True:
                game_id = new_game_id()
                keys = [
                    self._key("state"),
                    self._key("rating"),
                    self._key("pool", pool),
                    due_key,
                    self._key("made", game_id),
                ]
                args = [now, member, size, game_id, *self._window, _MADE_KEPT]
                answer = await self._call(functools.partial(self._sweep, keys=keys, args=args))
                outcome, *rest = [part.decode() for part in cast("list[bytes]", answer)]
                state = SeekState.from_text(rest[0]) if outcome == "matched" else None
                if state is None or state in made:  # the latter only for a game id used twice
                    break
                made.append(state)
        return made

    def _key(self, *parts: str) -> str:
        return ":".join((self._prefix, *parts))

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self._redis, command)

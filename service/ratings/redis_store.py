"""Ratings in Redis or a Redis Cluster, on the games' own client. Every key of one rating key
shares its hash tag (one slot on a cluster), so that applying a game is one script:

    <prefix>:{ratings:<key>}:entries      hash: player id → its entry (msgpack ``Entry``)
    <prefix>:{ratings:<key>}:board        sorted set: established player id → rating
    <prefix>:{ratings:<key>}:provisional  sorted set: provisional player id → rating
    <prefix>:{ratings:<key>}:applied      hash: game id → its place in the journal (the marker)
    <prefix>:{ratings:<key>}:journal      list: each rated game's result, in the order applied
    <prefix>:{ratings:<key>}:history:<id> list: the player's history points, newest first

A game changes the entries of one key only, so the marker, the entries, the boards and the
journal of one game are always in one slot, whatever the cluster: a tag per player would put a
game's players in different slots, where no script can write them together. The rating keys
spread over the slots (a handful of presets, each in two modes); each game costs its key's
shard one short script.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.ratings.store import HISTORY_KEPT, Applied, Change, Page
from service.storage.redis_connection import sent

_T = TypeVar("_T")

# KEYS: entries, board, provisional, applied, journal, then each seat's history. ARGV: game id,
# result, points kept, then per seat: player, entry before ('' for none), entry after, rating,
# '1' when provisional, its history point.
_APPLY_SCRIPT: Final = """
local entries, board, provisional = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then return 'done' end
for i = 4, #ARGV, 6 do
  if (redis.call('HGET', entries, ARGV[i]) or '') ~= ARGV[i + 1] then return 'stale' end
end
local seat = 0
for i = 4, #ARGV, 6 do
  local player = ARGV[i]
  redis.call('HSET', entries, player, ARGV[i + 2])
  local on, off = board, provisional
  if ARGV[i + 4] == '1' then on, off = provisional, board end
  redis.call('ZADD', on, ARGV[i + 3], player)
  redis.call('ZREM', off, player)
  seat = seat + 1
  redis.call('LPUSH', KEYS[5 + seat], ARGV[i + 5])
  redis.call('LTRIM', KEYS[5 + seat], 0, tonumber(ARGV[3]) - 1)
end
local place = redis.call('RPUSH', KEYS[5], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[1], place)
return 'applied'
"""

# KEYS: board, entries. ARGV: first rank or '' , the player to centre on (when no rank), limit.
# {total, first rank, id, entry, id, entry, ...}; {total, -1} for a player not on the board.
_PAGE_SCRIPT: Final = """
local total = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[3])
local start = tonumber(ARGV[1])
if not start then
  local rank = redis.call('ZREVRANK', KEYS[1], ARGV[2])
  if not rank then return {total, -1} end
  start = math.max(0, math.min(rank - math.floor(limit / 2), total - limit))
end
local answer = {total, start}
local ids = redis.call('ZREVRANGE', KEYS[1], start, start + limit - 1)
if #ids == 0 then return answer end
local found = redis.call('HMGET', KEYS[2], unpack(ids))
for i, id in ipairs(ids) do
  answer[#answer + 1] = id
  answer[#answer + 1] = found[i] or ''
end
return answer
"""


class RedisRatingStore:
    """The ``RatingStore`` protocol on the games' Redis client, with its answer to an outage."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, key_prefix: str) -> None:
        self.redis = client
        self.key_prefix = key_prefix
        self._apply = client.register_script(_APPLY_SCRIPT)
        self._page = client.register_script(_PAGE_SCRIPT)

    def name(self, key: str, part: str) -> str:
        """The Redis key of a rating key's part (``entries``, ``board``, …)."""
        return f"{self.key_prefix}:{{ratings:{key}}}:{part}"

    async def entries(self, key: str, player_ids: Sequence[str]) -> list[bytes | None]:
        name = self.name(key, "entries")
        return await self._call(
            lambda: cast("Awaitable[list[bytes | None]]", self.redis.hmget(name, list(player_ids)))
        )

    async def apply(
        self, key: str, game_id: str, changes: Sequence[Change], result: bytes
    ) -> Applied:
        keys = [self.name(key, part) for part in ("entries", "board", "provisional")]
        keys += [self.name(key, "applied"), self.name(key, "journal")]
        keys += [self.name(key, f"history:{change.player_id}") for change in changes]
        args: list[bytes | str | int] = [game_id, result, HISTORY_KEPT]
        for change in changes:
            assert change.point is not None, "a game's change has its history point"
            args += [
                change.player_id,
                change.before or b"",
                change.after,
                repr(change.rating),
                "1" if change.provisional else "0",
                change.point,
            ]
        answer = await self._call(lambda: self._apply(keys=keys, args=args))
        return cast("Applied", cast("bytes", answer).decode())

    async def history(self, key: str, player_id: str) -> list[bytes]:
        name = self.name(key, f"history:{player_id}")
        return await self._call(
            lambda: cast("Awaitable[list[bytes]]", self.redis.lrange(name, 0, HISTORY_KEPT - 1))
        )

    async def is_applied(self, key: str, game_id: str) -> bool:
        name = self.name(key, "applied")
        return bool(
            await self._call(lambda: cast("Awaitable[int]", self.redis.hexists(name, game_id)))
        )

    async def player_entries(self, player_id: str, keys: Sequence[str]) -> dict[str, bytes]:
        async def entry(key: str) -> bytes | None:
            name = self.name(key, "entries")
            return await self._call(
                lambda: cast("Awaitable[bytes | None]", self.redis.hget(name, player_id))
            )

        found = await asyncio.gather(*(entry(key) for key in keys))
        return {key: data for key, data in zip(keys, found, strict=True) if data is not None}

    async def page(self, key: str, provisional: bool, start: int | str, limit: int) -> Page | None:
        keys = [
            self.name(key, "provisional" if provisional else "board"),
            self.name(key, "entries"),
        ]
        args: list[str | int] = ["", start, limit] if isinstance(start, str) else [start, "", limit]
        answer = cast(
            "list[int | bytes]", await self._call(lambda: self._page(keys=keys, args=args))
        )
        total, first = int(answer[0]), int(answer[1])
        if first < 0:
            return None
        rest = cast("list[bytes]", answer[2:])
        entries = [(rest[i].decode(), rest[i + 1]) for i in range(0, len(rest), 2) if rest[i + 1]]
        return Page(total, first, entries)

    async def journal(self, key: str) -> list[bytes]:
        name = self.name(key, "journal")
        return await self._call(
            lambda: cast("Awaitable[list[bytes]]", self.redis.lrange(name, 0, -1))
        )

    async def replace(self, key: str, changes: Sequence[Change]) -> None:
        entries, board, provisional = (
            self.name(key, part) for part in ("entries", "board", "provisional")
        )

        async def written() -> None:
            async with self.redis.pipeline(transaction=True) as pipe:  # one slot: the key's
                for change in changes:
                    pipe.hset(entries, change.player_id, change.after)
                    on, off = (provisional, board) if change.provisional else (board, provisional)
                    pipe.zadd(on, {change.player_id: change.rating})
                    pipe.zrem(off, change.player_id)
                await pipe.execute()

        await self._call(written)

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self.redis, command)

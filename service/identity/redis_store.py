"""Players in Redis or a Redis Cluster, on the games' own client:

    <prefix>:player:{p<player_id>}        the player's profile (msgpack ``PlayerRecord``)
    <prefix>:player:{p<player_id>}:games  sorted set: game id → creation time (its list)
    <prefix>:player:{p<player_id>}:key    the hash of the player's current key
    <prefix>:player:{p<player_id>}:events stream: the player's log of events, the newest
                                          ``EVENTS_KEPT``, kept a day after the last; the channel
                                          of the player's streams too (``events_key``)
    <prefix>:player-key:{<key hash>}      the id of the player whose key this is
    <prefix>:{players-online}             sorted set: "<player id> <stream id>" → Unix time its
                                          presence ends (bots with a stream open)

A player's profile and list share the hash tag of its id (one slot on a cluster); a key's entry
lives in the key hash's own slot. Replacing a key writes the new entry, then deletes the old one
only if it still names this player (a small script on one key): of two concurrent replacements
one deletes it and wins; the other takes its new entry back and answers that it lost.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Final, TypeVar, cast

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.identity.store import (
    EVENTS_KEPT,
    EVENTS_TTL,
    GAMES_KEPT,
    ONLINE_LISTED,
    PLAYER_CHANNEL_PREFIX,
    GameEntry,
    PlayerRecord,
    event_position,
    newest_first,
    player_channel,
)
from service.storage.redis_connection import sent

_T = TypeVar("_T")

# KEYS[1] = a key's entry. ARGV[1] = the player id it must name. 1 when deleted, else 0.
_DELETE_IF_NAMES_SCRIPT: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(PlayerRecord)


class RedisPlayerStore:
    """The ``PlayerStore`` protocol on the games' Redis client, with its answer to an outage."""

    announces_events = True

    def __init__(self, client: aioredis.Redis | RedisCluster, *, key_prefix: str) -> None:
        self.redis = client
        self.key_prefix = key_prefix
        self._delete_if_names = client.register_script(_DELETE_IF_NAMES_SCRIPT)

    def _player_key(self, player_id: str) -> str:
        return f"{self.key_prefix}:player:{{p{player_id}}}"

    def _games_key(self, player_id: str) -> str:
        return f"{self._player_key(player_id)}:games"

    def events_key(self, channel: str) -> str:
        """The Redis stream of a player's channel (``player_channel``): its log, which the
        channels backend reads to wake the player's streams."""
        return f"{self._player_key(channel.removeprefix(PLAYER_CHANNEL_PREFIX))}:events"

    def _key_entry(self, key_hash: bytes) -> str:
        return f"{self.key_prefix}:player-key:{{{key_hash.hex()}}}"

    async def create(self, player: PlayerRecord, key_hash: bytes) -> None:
        profile = _encoder.encode(player)
        name = self._player_key(player.player_id)

        async def stored() -> None:
            async with self.redis.pipeline(transaction=True) as pipe:  # one slot: the player's
                pipe.set(name, profile)
                pipe.set(f"{name}:key", key_hash)
                await pipe.execute()

        await self._call(stored)
        await self._call(lambda: self.redis.set(self._key_entry(key_hash), player.player_id))

    async def player_of_key(self, key_hash: bytes) -> str | None:
        name = self._key_entry(key_hash)
        found = await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))
        return None if found is None else found.decode()

    async def get(self, player_id: str) -> PlayerRecord | None:
        name = self._player_key(player_id)
        found = await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))
        return None if found is None else _decoder.decode(found)

    async def key_hash_of(self, player_id: str) -> bytes | None:
        name = f"{self._player_key(player_id)}:key"
        return await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))

    async def replace_key(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        new_entry, old_entry = self._key_entry(new_hash), self._key_entry(old_hash)
        await self._call(lambda: self.redis.set(new_entry, player_id))
        deleted = await self._call(
            lambda: cast(
                "Awaitable[int]", self._delete_if_names(keys=[old_entry], args=[player_id])
            )
        )
        if not deleted:
            await self._call(lambda: self.redis.delete(new_entry))
            return False
        current = f"{self._player_key(player_id)}:key"
        await self._call(lambda: self.redis.set(current, new_hash))
        return True

    async def add_game(self, player_id: str, entry: GameEntry) -> None:
        created, game_id = entry
        name = self._games_key(player_id)

        async def added() -> None:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zadd(name, {game_id: created})
                pipe.zremrangebyrank(name, 0, -GAMES_KEPT - 1)
                await pipe.execute()

        await self._call(added)

    async def games(self, player_id: str, after: GameEntry | None, count: int) -> list[GameEntry]:
        name = self._games_key(player_id)
        top = "+inf" if after is None else repr(after[0])
        window = count + 1
        while True:  # ties with ``after``'s time come first: widen the window past them
            raw = await self._newest(name, top, window)
            entries = newest_first(
                ((score, member.decode()) for member, score in raw), after, count
            )
            if len(entries) == count or len(raw) < window:
                return entries
            window *= 2

    async def _newest(self, name: str, top: str, count: int) -> list[tuple[bytes, float]]:
        """The first ``count`` entries of a list at or below the time ``top``, newest first."""
        return await self._call(
            lambda: cast(
                "Awaitable[list[tuple[bytes, float]]]",
                self.redis.zrevrangebyscore(name, top, "-inf", start=0, num=count, withscores=True),
            )
        )

    async def game_count(self, player_id: str) -> int:
        name = self._games_key(player_id)
        return await self._call(lambda: self.redis.zcard(name))

    async def drop_games(self, player_id: str, game_ids: Iterable[str]) -> None:
        gone = list(game_ids)
        if gone:
            name = self._games_key(player_id)
            await self._call(lambda: self.redis.zrem(name, *gone))

    async def log_event(self, player_id: str, event: bytes) -> None:
        name = self.events_key(player_channel(player_id))
        ttl = int(EVENTS_TTL * 1000)

        async def logged() -> None:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.xadd(name, {"data": event}, maxlen=EVENTS_KEPT, approximate=False)
                pipe.pexpire(name, ttl)
                await pipe.execute()

        await self._call(logged)

    async def events_after(
        self, player_id: str, after: tuple[int, int] | None
    ) -> list[tuple[str, bytes]]:
        name = self.events_key(player_channel(player_id))
        start = "-" if after is None else f"({after[0]}-{after[1]}"
        entries = await self._call(
            lambda: cast(
                "Awaitable[list[tuple[bytes, dict[bytes, bytes]]]]",
                self.redis.xrange(name, start, "+"),
            )
        )
        return [(entry_id.decode(), fields[b"data"]) for entry_id, fields in entries]

    async def last_event(self, player_id: str) -> tuple[int, int] | None:
        name = self.events_key(player_channel(player_id))
        entries = await self._call(
            lambda: cast(
                "Awaitable[list[tuple[bytes, dict[bytes, bytes]]]]",
                self.redis.xrevrange(name, "+", "-", count=1),
            )
        )
        return event_position(entries[0][0].decode()) if entries else None

    def _online_key(self) -> str:
        return f"{self.key_prefix}:{{players-online}}"

    async def present(self, player_id: str, stream_id: str, until: float) -> None:
        name = self._online_key()
        await self._call(lambda: self.redis.zadd(name, {f"{player_id} {stream_id}": until}))

    async def absent(self, player_id: str, stream_id: str) -> None:
        name = self._online_key()
        await self._call(lambda: self.redis.zrem(name, f"{player_id} {stream_id}"))

    async def online(self, now: float) -> list[str]:
        name = self._online_key()

        async def current() -> list[bytes]:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zremrangebyscore(name, "-inf", repr(now))
                pipe.zrevrange(name, 0, 4 * ONLINE_LISTED)
                return cast("list[bytes]", (await pipe.execute())[1])

        players = dict.fromkeys(
            entry.decode().split(" ", 1)[0] for entry in await self._call(current)
        )
        return list(players)[:ONLINE_LISTED]

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self.redis, command)

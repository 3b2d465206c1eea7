"""Games in Redis, for many service instances behind one load balancer.

Every key of one game, and the due moves of its shard, carry one hash tag (the layout:
``service.storage.redis_keys``), so in Redis Cluster a game lives in one slot and its
compare-and-set script writes the game and its due entry in one step.

An action costs two round trips: ``load`` (HMGET and an LRANGE of the segments the caller does
not hold yet, pipelined) and ``commit`` (one EVALSHA that checks the version, writes record and
version, appends the new segments, writes the idempotency record and the game's due entry and
refreshes the TTLs, all in one atomic step). Its write is the record (a bounded head) and at most
a segment or two, however long the game. redis-py's ``Script`` loads the script again and
retries if a restarted Redis answers NOSCRIPT.

Connection failures and timeouts surface as ``StoreUnavailable`` (the service answers 503). The
client reconnects by itself once Redis is back: nothing needs a restart. redis-py sends a command
again once after a timeout or a lost connection, and the first attempt may have run: each create
and commit therefore writes a random write token beside the version (field ``w``), and a script
that finds the game already moved by its own token answers that it applied, doing nothing again.
An action is never applied twice, nor refused after being applied.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

from service.settings import DEFAULT_REDIS_KEY_PREFIX
from service.storage.channels import game_of_channel
from service.storage.game_store import GameExists, StoredGame, StoreUnavailable
from service.storage.redis_connection import UNAVAILABLE_MESSAGE, outage_log, sent, write_token
from service.storage.redis_keys import (
    due_key,
    events_key,
    game_key,
    idempotency_key,
    log_key,
)

_T = TypeVar("_T")
_log = logging.getLogger(__name__)

DEFAULT_KEY_PREFIX: Final = DEFAULT_REDIS_KEY_PREFIX

# Seconds: long enough for a loaded Redis on a busy machine, short enough that a dead one turns
# into a prompt 503 rather than a hung request.
DEFAULT_TIMEOUT: Final = 2.0
DEFAULT_POOL_SIZE: Final = 256
DEFAULT_EVENT_HISTORY: Final = 64
_EVENT_CONNECTIONS: Final = 66
"""Connections the event notices may hold beside the store's: up to 64 publishing at once
(``GameEventsBackend.max_in_flight``) and the reader."""

# The game's due entry: ARGV[due] is its time, '' for none.
_SET_DUE: Final = """
local function set_due(key, game, due)
  if due == '' then redis.call('ZREM', key, game) else redis.call('ZADD', key, due, game) end
end
"""

# KEYS[1] = game hash, KEYS[2] = segments list, KEYS[3] = the shard's due moves,
# KEYS[4] = idempotency key (optional).
# ARGV: record, idle TTL in ms, game id, due, write token, n, n segments, [response, idempotency
# TTL in ms]. A new game is idle (``i``) until a person's commit. A game that exists answers 0,
# or 1 if its version 0 was written with this token (this create, sent again).
_CREATE_SCRIPT: Final = (
    _SET_DUE
    + """
local version = redis.call('HGET', KEYS[1], 'v')
if version then
  if version == '0' and redis.call('HGET', KEYS[1], 'w') == ARGV[5] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', '0', 'r', ARGV[1], 'i', '1', 'w', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
local n = tonumber(ARGV[6])
if n > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 7, 6 + n))
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
set_due(KEYS[3], ARGV[3], ARGV[4])
if #KEYS == 4 then redis.call('SET', KEYS[4], ARGV[7 + n], 'PX', ARGV[8 + n]) end
return 1
"""
)

# KEYS[1] = game hash, KEYS[2] = segments list, KEYS[3] = the shard's due moves,
# KEYS[4] = the game's event stream, KEYS[5] = idempotency key (optional).
# ARGV: expected version, new version, record, game TTL in ms, idle TTL in ms, '1' if a person
# acted, game id, due, notices kept, write token, n, n segments, [response, idempotency TTL in
# ms]. Versions travel as decimal strings and are compared as strings: Lua's numbers are doubles.
# A game already at the new version by this token's write answers 1 (this commit, sent again).
_COMMIT_SCRIPT: Final = (
    _SET_DUE
    + """
local version = redis.call('HGET', KEYS[1], 'v')
if version ~= ARGV[1] then
  if version == ARGV[2] and redis.call('HGET', KEYS[1], 'w') == ARGV[10] then return 1 end
  return 0
end
local ttl = ARGV[4]
if ARGV[6] == '1' then
  redis.call('HDEL', KEYS[1], 'i')
elseif redis.call('HEXISTS', KEYS[1], 'i') == 1 then
  ttl = ARGV[5]
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3], 'w', ARGV[10])
redis.call('PEXPIRE', KEYS[1], ttl)
local n = tonumber(ARGV[11])
if n > 0 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 12, 11 + n)) end
redis.call('PEXPIRE', KEYS[2], ttl)
set_due(KEYS[3], ARGV[7], ARGV[8])
redis.call('XADD', KEYS[4], 'MAXLEN', ARGV[9], '*', 'data', ARGV[2])
redis.call('PEXPIRE', KEYS[4], ttl)
if #KEYS == 5 then redis.call('SET', KEYS[5], ARGV[12 + n], 'PX', ARGV[13 + n]) end
return 1
"""
)


class InvalidKeyPrefix(ValueError):
    """A key prefix that would break the hash tags (braces) or is empty."""

    def __init__(self, prefix: str) -> None:
        super().__init__(f"key prefix must be non-empty and contain no '{{' or '}}': {prefix!r}")


class InvalidTtl(ValueError):
    """A TTL that is not a positive number of seconds."""

    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(f"{name} must be a positive number of seconds, got {seconds!r}")


def due_arg(due: float | None) -> str:
    """A due time as a script argument: ``''`` for none, else its ``repr`` (exact)."""
    return "" if due is None else repr(due)


def _milliseconds(name: str, seconds: float) -> int:
    if not seconds > 0:
        raise InvalidTtl(name, seconds)
    return max(1, round(seconds * 1000))


class RedisStore:
    """The ``Store`` protocol on a Redis server or a Redis Cluster.

    ``redis`` is the client (with its one connection pool for this process); the service hands it
    to Litestar's channels backend so events share the pool.

    Each commit also appends the new version to the game's event stream (``events_key``, the
    last ``event_history`` notices kept), in its own atomic step: the notice that wakes every
    instance's streams of the game cannot be lost apart from the action, to an instance killed
    just after committing or to Redis refusing a separate write under load. The channels read
    it there (``GameEventsBackend`` with ``key_of=store.events_key_of``).
    """

    announces_commits = True

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        game_ttl: float,
        idempotency_ttl: float,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        idle_game_ttl: float | None = None,
        event_history: int = DEFAULT_EVENT_HISTORY,
    ) -> None:
        if not key_prefix or "{" in key_prefix or "}" in key_prefix:
            raise InvalidKeyPrefix(key_prefix)
        self.redis = client
        self.key_prefix = key_prefix
        self._event_history = event_history
        self._game_ttl_ms = _milliseconds("game_ttl", game_ttl)
        idle = game_ttl if idle_game_ttl is None else min(idle_game_ttl, game_ttl)
        self._idle_ttl_ms = _milliseconds("idle_game_ttl", idle)
        self._idempotency_ttl_ms = _milliseconds("idempotency_ttl", idempotency_ttl)
        self._create = client.register_script(_CREATE_SCRIPT)
        self._commit = client.register_script(_COMMIT_SCRIPT)
        self._slots: asyncio.Semaphore | None = None
        self._slot_timeout = DEFAULT_TIMEOUT

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        game_ttl: float,
        idempotency_ttl: float,
        idle_game_ttl: float | None = None,
        cluster: bool = False,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
        pool_size: int = DEFAULT_POOL_SIZE,
        pool_timeout: float = DEFAULT_TIMEOUT,
        event_history: int = DEFAULT_EVENT_HISTORY,
    ) -> RedisStore:
        """A store on ``url`` (``redis://host:port/db``; with ``cluster``, any node of the cluster).

        Connecting is lazy: a store made while Redis is down works once Redis is up.

        At most ``pool_size`` connections (per node of a cluster); a command that finds them all
        busy waits up to ``pool_timeout`` seconds for one. redis-py's default pool raises
        ``MaxConnectionsError`` at once instead, which under a burst of a hundred requests
        answered 503 with Redis healthy, and made /readyz pull healthy instances at peak.
        """
        # One quick retry rides over a connection that died with a restarted Redis: the pool
        # hands out the stale connection once, the retry reconnects.
        retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.25), retries=1)
        options: dict[str, Any] = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry": retry,
        }
        client: aioredis.Redis | RedisCluster
        if cluster:
            # The cluster client has no blocking pool: the store's own commands wait for one of
            # ``pool_size`` slots, and each node's pool has room for them and the event notices.
            client = RedisCluster.from_url(
                url, max_connections=pool_size + _EVENT_CONNECTIONS, **options
            )
        else:
            pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=pool_size, timeout=pool_timeout, **options
            )
            client = aioredis.Redis(connection_pool=pool)
        store = cls(
            client,
            game_ttl=game_ttl,
            idempotency_ttl=idempotency_ttl,
            key_prefix=key_prefix,
            idle_game_ttl=idle_game_ttl,
            event_history=event_history,
        )
        if cluster:
            store._slots = asyncio.Semaphore(pool_size)
            store._slot_timeout = pool_timeout
        return store

    async def create(
        self,
        game_id: str,
        record: bytes,
        *,
        segments: Sequence[bytes] = (),
        idempotency: tuple[str, bytes] | None = None,
        due: float | None = None,
    ) -> None:
        keys = self._keys(game_id)
        args: list[bytes | int | str] = [
            record,
            self._idle_ttl_ms,
            game_id,
            due_arg(due),
            write_token(),
            len(segments),
            *segments,
        ]
        if idempotency is not None:
            key, response = idempotency
            keys.append(idempotency_key(self.key_prefix, game_id, key))
            args += [response, self._idempotency_ttl_ms]
        created = await self._call(lambda: self._create(keys=keys, args=args))
        if not created:
            raise GameExists(game_id)

    async def load(
        self, game_id: str, *, recall: str | None = None, segments_from: int = 0
    ) -> StoredGame | None:
        # Every key shares the game's hash tag, so one pipeline is one round trip, on a cluster
        # too. The segments are read after the record: a commit in between only appends more.
        pipeline = self.redis.pipeline(transaction=False)
        pipeline.hmget(game_key(self.key_prefix, game_id), ["v", "r"])
        pipeline.lrange(log_key(self.key_prefix, game_id), segments_from, -1)
        if recall is not None:
            pipeline.get(idempotency_key(self.key_prefix, game_id, recall))
        answers = await self._call(lambda: cast("Awaitable[list[Any]]", pipeline.execute()))
        (version, record), segments = answers[0], answers[1]
        saved = answers[2] if recall is not None else None
        if version is None or record is None:
            return None
        return StoredGame(int(version), record, saved, tuple(segments))

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: bytes,
        *,
        segments: Sequence[bytes] = (),
        idempotency: tuple[str, bytes] | None = None,
        due: float | None = None,
        acted: bool = True,
    ) -> bool:
        keys = [*self._keys(game_id), events_key(self.key_prefix, game_id)]
        args: list[bytes | int | str] = [
            str(expected_version),
            str(expected_version + 1),
            record,
            self._game_ttl_ms,
            self._idle_ttl_ms,
            "1" if acted else "0",
            game_id,
            due_arg(due),
            self._event_history,
            write_token(),
            len(segments),
            *segments,
        ]
        if idempotency is not None:
            key, response = idempotency
            keys.append(idempotency_key(self.key_prefix, game_id, key))
            args += [response, self._idempotency_ttl_ms]
        applied = await self._call(lambda: self._commit(keys=keys, args=args))
        return bool(applied)

    def events_key_of(self, channel: str) -> str:
        """The event stream of a game's channel (``service.storage.channels``), where its
        commits append their notices."""
        return events_key(self.key_prefix, game_of_channel(channel))

    def _keys(self, game_id: str) -> list[str]:
        """The keys every create and commit writes: the game, its segments, its shard's due."""
        prefix = self.key_prefix
        return [game_key(prefix, game_id), log_key(prefix, game_id), due_key(prefix, game_id)]

    async def recall(self, game_id: str, key: str) -> bytes | None:
        return await self._call(
            lambda: cast(
                "Awaitable[bytes | None]",
                self.redis.get(idempotency_key(self.key_prefix, game_id, key)),
            )
        )

    async def expiry(self, game_id: str) -> float | None:
        name = game_key(self.key_prefix, game_id)
        at = await self._call(lambda: self.redis.pexpiretime(name))
        return at / 1000 if at > 0 else None  # -2: no such game (-1, no expiry: never)

    async def ping(self) -> None:
        await self._call(lambda: cast("Awaitable[Any]", self.redis.ping()))

    async def close(self) -> None:
        await self.redis.aclose()

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        if self._slots is None:
            return await self._send(command)
        try:
            async with asyncio.timeout(self._slot_timeout):
                await self._slots.acquire()
        except TimeoutError as error:
            outage_log.note(error)
            raise StoreUnavailable(UNAVAILABLE_MESSAGE) from error
        try:
            return await self._send(command)
        finally:
            self._slots.release()

    async def _send(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self.redis, command)

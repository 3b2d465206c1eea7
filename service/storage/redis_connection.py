"""Talking to Redis or a Redis Cluster when it may be down: which errors mean "unavailable", the
one way every store on the games' client sends a command (``sent``), and the rate-limited log of
outages."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

import redis.asyncio as aioredis
import redis.exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster

from service.storage.game_store import StoreUnavailable

_T = TypeVar("_T")
_log = logging.getLogger(__name__)

# What "Redis cannot serve us right now" looks like from redis-py: refused or dropped connections,
# timeouts, a server still loading its AOF, a cluster without a master for the slot, a replica
# promoted mid-write, a full memory.
UNAVAILABLE_ERRORS: Final = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.ClusterError,
    redis_errors.TryAgainError,
    redis_errors.RedisClusterException,
    redis_errors.ReadOnlyError,
    redis_errors.OutOfMemoryError,
    OSError,
    asyncio.TimeoutError,
)


def write_token() -> bytes:
    """A create's or commit's own mark on what it writes, kept beside the version: redis-py
    sends a command again once after a timeout or a lost connection, when the first attempt may
    have run, and only the same write sent again finds its token there. Random, 64 bits."""
    return os.urandom(8)


async def topology_loaded(client: aioredis.Redis | RedisCluster) -> None:
    """Load a cluster client's slot map before a command (a no-op once loaded).

    redis-py 8.1's async cluster client lets concurrent first commands (on a fresh client, or
    after an error made it reload the map) each replace the default node, closing connections
    that other commands are opening ("'NoneType' object has no attribute 'writelines'"). Loading
    the map first, under the client's own lock, leaves the commands nothing to race over.
    """
    if isinstance(client, RedisCluster):
        await client.initialize()


UNAVAILABLE_MESSAGE: Final = "the game store (Redis) cannot be reached; try again shortly"


class OutageLog:
    """Logs why Redis is unavailable at most once per ``every`` seconds: during an outage every
    request fails the same way."""

    def __init__(self, every: float = 5.0) -> None:
        self._every = every
        self._last = -every

    def note(self, error: BaseException) -> None:
        now = time.monotonic()
        if now - self._last >= self._every:
            self._last = now
            _log.warning("Redis is unavailable: %r", error)


outage_log = OutageLog()


async def sent(client: aioredis.Redis | RedisCluster, command: Callable[[], Awaitable[_T]]) -> _T:
    """``command``'s answer, with an unreachable Redis turned into ``StoreUnavailable`` (503)
    and noted in the rate-limited outage log. Every store on the games' client sends this way."""
    try:
        await topology_loaded(client)
        return await command()
    except UNAVAILABLE_ERRORS as error:
        if being_cancelled():  # a cancelled command may surface as redis-py's own error
            raise asyncio.CancelledError from error
        outage_log.note(error)
        # The message reaches clients (503 detail): no host, port or driver text in it.
        raise StoreUnavailable(UNAVAILABLE_MESSAGE) from error


def being_cancelled() -> bool:
    """Whether the running task has been asked to stop: redis-py may turn the cancellation of a
    command into a connection error, and a caller that handled that error as an outage would
    swallow the cancellation and run on (a sweeper that never stops, a shutdown that hangs)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0

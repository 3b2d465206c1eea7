"""A game's event notices on Redis streams, for many service instances: a ``ChannelsBackend``
(Litestar's public interface for channels) of our own.

One stream per channel, trimmed to ``history`` entries and expiring ``stream_ttl_ms`` after its
last notice. ``key_of`` names it: the channels are the game store's event streams, to which each
commit appends its notice in the commit's own atomic step (``RedisStore.events_key_of``), so
the service never publishes a game's notice separately.
Beside what a plain streams backend does, this one keeps reading after Redis comes back (the
loop waits and reads again, whatever the error), does not spin (XREAD blocks for up to
``block_ms``), reads a Redis Cluster one slot at a time (a multi-key XREAD across slots is
refused there), publishes side by side (one at a time, notices fall seconds behind under load),
and drops a notice that cannot be published during an outage rather than killing the publisher.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import Any, Final, cast

import redis.asyncio as aioredis
from litestar.channels.backends.base import ChannelsBackend
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import (
    UNAVAILABLE_ERRORS,
    being_cancelled,
    topology_loaded,
)

_log = logging.getLogger(__name__)

# KEYS[1] = the channel's stream. ARGV: data, history (entries kept), TTL in ms.
_PUBLISH_SCRIPT: Final = """
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '*', 'data', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
"""

_StreamBatch = tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]


class GameEventsBackend(ChannelsBackend):
    """Channels on Redis streams that survive outages and work on a Redis Cluster.

    Make it with the store's client and streams: ``GameEventsBackend(redis=store.redis,
    history=..., key_of=store.events_key_of)``.
    """

    def __init__(
        self,
        *,
        redis: aioredis.Redis | RedisCluster,
        history: int,
        stream_ttl_ms: int,
        key_of: Callable[[str], str],
        block_ms: int = 100,
        retry_delay: float = 0.5,
        max_in_flight: int = 64,
    ) -> None:
        self._client = redis
        self._history = history
        self._stream_ttl_ms = stream_ttl_ms
        self._key_of = key_of
        self._block_ms = block_ms
        self._retry_delay = retry_delay
        self._publish_script = redis.register_script(_PUBLISH_SCRIPT)
        self._channel_of_key: dict[str, str] = {}
        """The subscribed channels, by their streams' keys (kept here, not worked out for each
        read: the reader reads a thousand streams many times a second)."""
        self._subscribed = asyncio.Event()
        self._in_flight: set[asyncio.Task[None]] = set()
        self._in_flight_slots = asyncio.Semaphore(max_in_flight)

    def stream_key(self, channel: str) -> str:
        """The Redis stream of ``channel``."""
        return self._key_of(channel)

    async def on_startup(self) -> None:
        """Nothing to open: the client connects on its first command."""

    async def on_shutdown(self) -> None:
        await asyncio.gather(*self._in_flight, return_exceptions=True)

    async def subscribe(self, channels: Iterable[str]) -> None:
        self._channel_of_key.update((self.stream_key(channel), channel) for channel in channels)
        if self._channel_of_key:
            self._subscribed.set()

    async def unsubscribe(self, channels: Iterable[str]) -> None:
        for channel in channels:
            self._channel_of_key.pop(self.stream_key(channel), None)
        if not self._channel_of_key:
            self._subscribed.clear()

    async def publish(self, data: bytes, channels: Iterable[str]) -> None:
        """Send the notice in the background and return at once.

        The channels plugin publishes one notice at a time, each waiting for its answer: under
        load that is slower than actions are applied, and notices (so events) fall seconds
        behind. Notices only wake streams, which render from the game itself, so their order
        does not matter: up to ``max_in_flight`` go out side by side.
        """
        await self._in_flight_slots.acquire()
        task = asyncio.create_task(self._publish_now(data, list(channels)))
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)

    async def _publish_now(self, data: bytes, channels: list[str]) -> None:
        try:
            await topology_loaded(self._client)
            for channel in channels:  # one key per script: each may live in its own slot
                await self._publish_script(
                    keys=[self.stream_key(channel)],
                    args=[data, self._history, self._stream_ttl_ms],
                )
        except UNAVAILABLE_ERRORS as error:
            _log.warning("event notice not published, Redis is unavailable: %s", error)
        except Exception:  # nobody awaits this task: say what went wrong, lose only this notice
            _log.exception("event notice not published")
        finally:
            self._in_flight_slots.release()

    async def get_history(self, channel: str, limit: int | None = None) -> list[bytes]:
        """The last ``limit`` notices of ``channel`` (all it keeps when None), oldest first."""
        key = self.stream_key(channel)
        await topology_loaded(self._client)
        if limit:
            entries = list(reversed(_entries(await self._client.xrevrange(key, count=limit))))
        else:
            entries = _entries(await self._client.xrange(key))
        return [fields[b"data"] for _, fields in entries]

    async def stream_events(self) -> AsyncGenerator[tuple[str, Any], None]:
        last_ids: dict[str, bytes] = {}
        while True:
            await self._subscribed.wait()
            keys = list(self._channel_of_key)
            # A key unsubscribed and subscribed again later starts from its retained history.
            last_ids = {key: last_ids[key] for key in keys if key in last_ids}
            try:
                batches = await self._read(keys, last_ids)
            # This loop is the only reader of notices for the whole process: whatever goes
            # wrong (an outage, a cluster resharding), it must wait and read again, not die.
            except Exception as error:
                if being_cancelled():  # a cancelled read may surface as redis-py's own error
                    raise asyncio.CancelledError from error
                _log.warning("cannot read event notices, retrying: %r", error)
                await asyncio.sleep(self._retry_delay)
                continue
            if being_cancelled():  # redis-py's cluster client can swallow a cancellation
                raise asyncio.CancelledError
            for stream_key, entries in batches:
                key = stream_key.decode()
                for entry_id, fields in entries:
                    last_ids[key] = entry_id
                    channel = self._channel_of_key.get(key)
                    if channel is not None:  # else unsubscribed since the read was sent
                        yield channel, fields[b"data"]

    async def _read(self, keys: list[str], last_ids: dict[str, bytes]) -> list[_StreamBatch]:
        if not isinstance(self._client, RedisCluster):
            streams = {key: last_ids.get(key, b"0") for key in keys}
            return _batches(await self._client.xread(streams, block=self._block_ms))  # type: ignore[arg-type]
        # A cluster refuses one XREAD over keys of several slots, and a blocking read per slot
        # would hold a connection per slot: poll slot by slot (one round trip each, sent
        # straight to the slot's node), then wait as long as a blocking read would have.
        await topology_loaded(self._client)
        by_slot: dict[int, list[str]] = defaultdict(list)
        for key in keys:
            by_slot[self._client.keyslot(key)].append(key)
        batches: list[_StreamBatch] = []
        for slot_keys in by_slot.values():
            node = self._client.get_node_from_key(slot_keys[0])
            ids = [last_ids.get(key, b"0") for key in slot_keys]
            data = await self._client.execute_command(
                "XREAD", "STREAMS", *slot_keys, *ids, target_nodes=node
            )
            batches += _batches(data)
        if not batches:
            await asyncio.sleep(self._block_ms / 1000)
        return batches


def _entries(data: object) -> list[tuple[bytes, dict[bytes, bytes]]]:
    return cast("list[tuple[bytes, dict[bytes, bytes]]]", data or [])


def _batches(data: object) -> list[_StreamBatch]:
    return cast("list[_StreamBatch]", data or [])

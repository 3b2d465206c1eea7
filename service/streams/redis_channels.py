"""A game's event notices on Redis streams, for many service instances.

``GameEventsBackend`` is Litestar's Redis streams channels backend made fit for this: it keeps
reading after Redis comes back (Litestar's own stops for good at the first connection error), it
does not spin (XREAD blocks for up to ``block_ms`` instead of 1 ms), it reads a Redis Cluster one
slot at a time (a multi-key XREAD across slots is refused there), it publishes notices side by
side (one at a time, they fall seconds behind under load), and a notice that cannot be published
during an outage is dropped rather than killing the publisher: streams re-sync from the game
itself on the next notice or reconnection.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncGenerator, Iterable
from typing import Any, cast

import redis.asyncio as aioredis
from litestar.channels.backends.redis import RedisChannelsStreamBackend
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import UNAVAILABLE_ERRORS, topology_loaded

_log = logging.getLogger(__name__)


class GameEventsBackend(RedisChannelsStreamBackend):
    """Litestar channels on Redis streams that survive outages and work on a Redis Cluster.

    Make it with the store's client: ``GameEventsBackend(redis=store.redis, history=...)``.
    """

    def __init__(
        self,
        *,
        redis: aioredis.Redis | RedisCluster,
        history: int,
        stream_ttl_ms: int,
        key_prefix: str = "ttt_events",
        block_ms: int = 100,
        retry_delay: float = 0.5,
        max_in_flight: int = 64,
    ) -> None:
        # Litestar passes its "sleep when nothing is subscribed" as XREAD's BLOCK: at 1 ms (its
        # default) an instance with one open stream asks Redis a thousand times a second.
        super().__init__(
            history,
            redis=redis,  # type: ignore[arg-type]  # the backend only calls commands both share
            stream_sleep_no_subscriptions=block_ms,
            stream_ttl=stream_ttl_ms,
            key_prefix=key_prefix,
        )
        self._client = redis
        self._retry_delay = retry_delay
        self._in_flight: set[asyncio.Task[None]] = set()
        self._in_flight_slots = asyncio.Semaphore(max_in_flight)

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
            await super().publish(data, channels)
        except UNAVAILABLE_ERRORS as error:
            _log.warning("event notice not published, Redis is unavailable: %s", error)
        except Exception:  # nobody awaits this task: say what went wrong, lose only this notice
            _log.exception("event notice not published")
        finally:
            self._in_flight_slots.release()

    async def on_shutdown(self) -> None:
        await asyncio.gather(*self._in_flight, return_exceptions=True)
        await super().on_shutdown()

    async def stream_events(self) -> AsyncGenerator[tuple[str, Any], None]:
        last_ids: dict[str, bytes] = {}
        while True:
            keys = [self._make_key(c) for c in await self._get_subscribed_channels()]
            # A key unsubscribed and subscribed again later starts from its retained history.
            last_ids = {key: last_ids[key] for key in keys if key in last_ids}
            try:
                batches = await self._read(keys, last_ids)
            # This loop is the only reader of notices for the whole process: whatever goes
            # wrong (an outage, a cluster resharding), it must wait and read again, not die.
            except Exception as error:
                if _being_cancelled():  # a cancelled read may surface as redis-py's own error
                    raise asyncio.CancelledError from error
                _log.warning("cannot read event notices, retrying: %r", error)
                await asyncio.sleep(self._retry_delay)
                continue
            if _being_cancelled():  # redis-py's cluster client can swallow a cancellation
                raise asyncio.CancelledError
            for stream_key, entries in batches:
                for entry_id, fields in entries:
                    last_ids[stream_key.decode()] = entry_id
                    yield fields[b"channel"].decode(), fields[b"data"]

    async def _read(self, keys: list[str], last_ids: dict[str, bytes]) -> list[_StreamBatch]:
        block = self._stream_sleep_no_subscriptions
        if not isinstance(self._client, RedisCluster):
            streams = {key: last_ids.get(key, b"0") for key in keys}
            return _batches(await self._client.xread(streams, block=block))  # type: ignore[arg-type]
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
            await asyncio.sleep(block / 1000)
        return batches


_StreamBatch = tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _batches(data: object) -> list[_StreamBatch]:
    return cast("list[_StreamBatch]", data or [])

"""Event notices across processes through ``GameEventsBackend`` (Litestar channels on Redis
streams): two ChannelsPlugins on separate clients stand for two service instances, each on the
game store's event streams as the service sets them up (``key_of=store.events_key_of``)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable

import pytest
from litestar.channels import ChannelsPlugin

from service.settings import Settings
from service.storage.channels import channel_of
from service.storage.redis_game_store import RedisStore
from service.storage.redis_keys import events_key
from service.streams.redis_channels import GameEventsBackend
from tests.redis_servers import RedisServer
from tests.waiting import WAIT_SECONDS, eventually_async

pytestmark = pytest.mark.redis

StartServer = Callable[..., RedisServer]


def instance(
    url: str, *, cluster: bool = False, prefix: str, timeout: float = 5.0
) -> tuple[RedisStore, ChannelsPlugin]:
    """An instance's store and event channels; ``timeout`` bounds each Redis command (generous
    by default: a busy machine may take a while to connect to a cluster's nodes)."""
    store = RedisStore.from_url(
        url, game_ttl=60, idempotency_ttl=60, cluster=cluster, key_prefix=prefix, timeout=timeout
    )
    backend = GameEventsBackend(
        redis=store.redis,
        history=10,
        stream_ttl_ms=60_000,
        key_of=store.events_key_of,
        retry_delay=0.1,
    )
    return store, ChannelsPlugin(backend=backend, arbitrary_channels_allowed=True)


async def expect(
    subscriber_events: object, wanted: set[bytes], seconds: float = WAIT_SECONDS
) -> None:
    """Wait until every notice in ``wanted`` has arrived (others may arrive too)."""
    iterator = subscriber_events
    assert hasattr(iterator, "__anext__")
    missing = set(wanted)
    async with asyncio.timeout(seconds):
        while missing:
            missing.discard(await anext(iterator))


async def notices_cross_between_instances(on: Settings) -> None:
    url, cluster, prefix = on.redis_url, on.redis_cluster, on.redis_key_prefix
    channels = [f"game:{n}-{uuid.uuid4().hex[:6]}" for n in range(24)]  # many slots
    listener_store, listener = instance(url, cluster=cluster, prefix=prefix)
    speaker_store, speaker = instance(url, cluster=cluster, prefix=prefix)
    async with listener, speaker, listener.start_subscription(channels) as subscriber:
        events = subscriber.iter_events()
        for number, channel in enumerate(channels):
            await speaker.wait_published(f"{number}".encode(), channel)
        await expect(events, {f"{n}".encode() for n in range(len(channels))})
    await listener_store.close()
    await speaker_store.close()


def test_notices_published_by_one_instance_reach_another(redis_settings: Settings) -> None:
    asyncio.run(notices_cross_between_instances(redis_settings))


def test_notices_on_channels_in_many_cluster_slots_reach_another_instance(
    redis_cluster_settings: Settings,
) -> None:
    asyncio.run(notices_cross_between_instances(redis_cluster_settings))


async def commits_wake_another_instance(on: Settings) -> None:
    """Game ``n`` committed ``n + 1`` times by one instance that publishes nothing (its channels
    never start): the other instance's subscriber hears every game's last version, because each
    commit wrote its notice in its own atomic step. A stale commit writes none."""
    url, cluster, prefix = on.redis_url, on.redis_cluster, on.redis_key_prefix
    games = [f"{n}-{uuid.uuid4().hex[:6]}" for n in range(24)]  # many slots
    listener_store, listener = instance(url, cluster=cluster, prefix=prefix)
    speaker_store, _ = instance(url, cluster=cluster, prefix=prefix)
    subscribed = listener.start_subscription([channel_of(game_id) for game_id in games])
    async with listener, subscribed as subscriber:
        for number, game_id in enumerate(games):
            await speaker_store.create(game_id, b"record")
            for version in range(number + 1):
                assert await speaker_store.commit(game_id, version, b"record")
        assert not await speaker_store.commit(games[0], 0, b"stale")
        await expect(subscriber.iter_events(), {b"%d" % (n + 1) for n in range(len(games))})
    for number, game_id in enumerate(games):
        assert await speaker_store.redis.xlen(events_key(prefix, game_id)) == number + 1
    await listener_store.close()
    await speaker_store.close()


def test_a_commit_wakes_another_instance_with_nothing_published_after_it(
    redis_settings: Settings,
) -> None:
    asyncio.run(commits_wake_another_instance(redis_settings))


def test_a_commit_wakes_another_instance_on_a_cluster(redis_cluster_settings: Settings) -> None:
    asyncio.run(commits_wake_another_instance(redis_cluster_settings))


def test_notices_flow_again_after_redis_comes_back(
    start_redis_server: StartServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis dies while a stream is subscribed and a notice is published: neither the reader nor
    the publisher of either instance stops for good, and later notices arrive."""
    server = start_redis_server()
    caplog.set_level(logging.WARNING, logger="service.streams.redis_channels")

    def reads_failed() -> int:
        return sum("cannot read event notices" in r.getMessage() for r in caplog.records)

    async def check() -> None:
        # Short command timeouts: while Redis is down, each attempt fails fast.
        listener_store, listener = instance(server.url, prefix="outage", timeout=0.5)
        speaker_store, speaker = instance(server.url, prefix="outage", timeout=0.5)
        async with listener, speaker, listener.start_subscription(["game:g"]) as subscriber:
            events = subscriber.iter_events()
            await speaker.wait_published(b"before", "game:g")
            await expect(events, {b"before"})
            server.kill()
            await speaker.wait_published(b"lost", "game:g")  # dropped, not raised
            await eventually_async(lambda: reads_failed() >= 3, "the reader to fail a few times")
            server.start()

            # A notice published while a connection is still being made again is dropped, as
            # any during an outage: publish until one arrives.
            async def published_and_arrived() -> bool:
                await speaker.wait_published(b"after", "game:g")
                try:
                    await expect(events, {b"after"}, seconds=1)  # else publish it again
                except TimeoutError:
                    return False
                return True

            await eventually_async(published_and_arrived, "a notice to arrive after the outage")
        await listener_store.close()
        await speaker_store.close()

    asyncio.run(check())

"""Redis for the tests: the machine's server when one answers on 127.0.0.1:6379 (a DB of our own
and a key prefix per test, cleaned up after), otherwise a redis-server started for the session;
a three-master Redis Cluster started for the session; and private servers a test may kill.

Registered from tests/conftest.py (``pytest_plugins``) so every test directory can use them.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from service.settings import Settings
from service.storage.redis_game_store import RedisStore
from tests.redis_servers import (
    RedisClusterServers,
    RedisServer,
    redis_answers,
    redis_server_installed,
)

# Where the machine's own Redis would be; point it at an unused port to try the suite as on a
# machine without one (the session then starts its own redis-server).
MACHINE_REDIS_PORT = int(os.environ.get("TEST_MACHINE_REDIS_PORT", "6379"))
# The store tests' own database on the machine's Redis, away from DB 0 where people poke around.
TEST_DB = 9


def _require_redis_server() -> None:
    if not redis_server_installed():
        pytest.skip("redis-server and redis-cli are not installed (.ci/run installs them)")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A reachable single Redis: the machine's, or one started for this session."""
    if redis_answers(MACHINE_REDIS_PORT):
        yield f"redis://127.0.0.1:{MACHINE_REDIS_PORT}/{TEST_DB}"
        return
    _require_redis_server()
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Any node of a three-master Redis Cluster started for this session."""
    _require_redis_server()
    cluster = RedisClusterServers(tmp_path_factory.mktemp("redis-cluster")).start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


UNLINK_PAGE = 500
"""Keys unlinked by one command on a single Redis."""


def new_key_prefix() -> str:
    """A key prefix no other test (nor any other run of the suite) uses."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def key_prefix() -> str:
    """This test's own key prefix; ``delete_prefixed`` removes its keys afterwards (the
    ``redis_settings`` fixtures do it themselves)."""
    return new_key_prefix()


def delete_prefixed(url: str, prefix: str, *, cluster: bool = False) -> int:
    """Delete every key whose name starts with ``prefix`` (its ``<prefix>:…`` keys and its rate
    limits' ``<prefix>_rate_limit:…``), on every master of a cluster; the count deleted."""
    client: redis.Redis | redis.RedisCluster = (
        redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    )
    pattern = f"{prefix}*"
    deleted = 0
    with client:
        if isinstance(client, redis.RedisCluster):
            # One UNLINK a key: the keys of one page lie in many slots.
            for key in client.scan_iter(match=pattern, count=1000, target_nodes="primaries"):
                deleted += int(client.unlink(key))
            return deleted
        page: list[bytes] = []
        for key in client.scan_iter(match=pattern, count=1000):
            page.append(key)
            if len(page) == UNLINK_PAGE:
                deleted += int(client.unlink(*page))
                page.clear()
        if page:
            deleted += int(client.unlink(*page))
    return deleted


def prefixed_settings(url: str, prefix: str, *, cluster: bool = False, **changes: Any) -> Settings:
    """An app's settings on the tests' Redis under ``prefix``; games kept ten minutes at most,
    so a run that dies before its clean-up leaves nothing for long."""
    return Settings(
        redis_url=url, redis_cluster=cluster, redis_key_prefix=prefix, game_ttl=600, **changes
    )


@pytest.fixture
def redis_settings(redis_url: str, key_prefix: str) -> Iterator[Settings]:
    """Settings on the tests' Redis under this test's own key prefix, every key under it
    deleted after the test. Two apps made from them are two instances of one deployment."""
    yield prefixed_settings(redis_url, key_prefix)
    delete_prefixed(redis_url, key_prefix)


@pytest.fixture
def redis_cluster_settings(redis_cluster_url: str, key_prefix: str) -> Iterator[Settings]:
    """``redis_settings`` on the session's Redis Cluster."""
    yield prefixed_settings(redis_cluster_url, key_prefix, cluster=True)
    delete_prefixed(redis_cluster_url, key_prefix, cluster=True)


@pytest.fixture
def start_redis_server(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """Start private redis-servers (``appendonly=True`` for AOF); all are killed after the test."""
    _require_redis_server()
    servers: list[RedisServer] = []

    def start(*, appendonly: bool = False) -> RedisServer:
        server = RedisServer(tmp_path / f"redis{len(servers)}", appendonly=appendonly).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.kill()


StoreClients = Callable[[int], Awaitable[list[Any]]]
"""``n`` clients (instances) of one shared store."""


@dataclass(frozen=True)
class StoreFamily:
    """Where a suite that runs on every family of store runs now: memory, a single Redis or a
    Redis Cluster (``store_family``), with this test's own key prefix."""

    kind: str
    url: str
    key_prefix: str

    def run(
        self,
        check: Callable[[StoreClients], Awaitable[None]],
        *,
        memory: Callable[[], Any],
        on_redis: Callable[[Any, str], Any],
    ) -> None:
        """Run ``check`` in an event loop of its own, given how to make ``n`` clients of one
        store: the same ``memory()`` store for all in memory, else ``on_redis(client,
        key_prefix)`` on a Redis client of its own each (closed afterwards)."""

        async def checked() -> None:
            games: list[RedisStore] = []

            async def clients(count: int) -> list[Any]:
                if self.kind == "memory":
                    return [memory()] * count
                made = [
                    RedisStore.from_url(
                        self.url,
                        game_ttl=600,
                        idempotency_ttl=600,
                        cluster=self.kind == "cluster",
                        key_prefix=self.key_prefix,
                    )
                    for _ in range(count)
                ]
                games.extend(made)
                return [on_redis(store.redis, self.key_prefix) for store in made]

            try:
                await check(clients)
            finally:
                for store in games:
                    await store.close()

        asyncio.run(checked())


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.redis),
    ]
)
def store_family(request: pytest.FixtureRequest, key_prefix: str) -> Iterator[StoreFamily]:
    """Each family of store in turn, its Redis keys under this test's prefix, deleted after."""
    kind: str = request.param
    if kind == "memory":
        yield StoreFamily(kind, "", key_prefix)
        return
    url: str = request.getfixturevalue("redis_cluster_url" if kind == "cluster" else "redis_url")
    yield StoreFamily(kind, url, key_prefix)
    delete_prefixed(url, key_prefix, cluster=kind == "cluster")

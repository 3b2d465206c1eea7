"""Redis for the tests: the machine's server when one answers on 127.0.0.1:6379 (a DB of our own
and a key prefix per test, cleaned up after), otherwise a redis-server started for the session;
a three-master Redis Cluster started for the session; and private servers a test may kill.

Registered from tests/conftest.py (``pytest_plugins``) so every test directory can use them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.settings import Settings
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


def shared_redis_settings(url: str, **changes: Any) -> Settings:
    """An app's settings on the tests' Redis under the default key prefix, as two instances of
    one deployment share it: the daily quotas off (they count per address for a day in that
    Redis, so every run of the suite in a day would add to the same counts), the games kept ten
    minutes."""
    return Settings(redis_url=url, game_ttl=600, creations_per_day=0, claims_per_day=0, **changes)


@pytest.fixture
def key_prefix() -> str:
    """A key prefix no other test uses; ``delete_prefixed`` removes its keys afterwards."""
    return f"test-{uuid.uuid4().hex[:12]}"


def delete_prefixed(url: str, prefix: str, *, cluster: bool = False) -> int:
    """Delete every key under ``prefix`` (on every master of a cluster); the count deleted."""
    client: redis.Redis | redis.RedisCluster = (
        redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    )
    deleted = 0
    with client:
        if isinstance(client, redis.RedisCluster):
            keys = client.scan_iter(match=f"{prefix}:*", count=1000, target_nodes="primaries")
        else:
            keys = client.scan_iter(match=f"{prefix}:*", count=1000)
        for key in keys:
            deleted += int(client.delete(key))
    return deleted


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

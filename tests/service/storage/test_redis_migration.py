"""The key-layout migration (``service.storage.redis_migration``), run as an operator runs it (its
command, in a process of its own) on the real Redis and on a Redis Cluster: games written in the
layout before shards load afterwards exactly as they were written, with their times to live and
saved answers, and each is in its shard's due moves (its old entry, else due now), so a sweep
drives it; nothing is left under the old names, a dry run writes nothing, a run stopped half
way is finished by the next, and a second run finds nothing to move."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from typing import cast

import pytest
import redis

from service.storage import redis_keys
from service.storage.game_store import StoredGame
from service.storage.redis_game_store import RedisStore
from service.storage.redis_migration import old_due_key
from tests.service.conftest_redis import delete_prefixed

pytestmark = pytest.mark.redis

Client = redis.Redis | redis.RedisCluster
GAME_TTL = 3600
NEW_KEY = re.compile(r"(?P<prefix>.+?):\{g\d+\}:(?P<game>[^:]+):(?P<part>game|log|idem:.+)")


def client_for(url: str, cluster: bool) -> Client:
    return redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)


def every_key(client: Client, prefix: str) -> list[str]:
    if isinstance(client, redis.RedisCluster):
        keys = client.scan_iter(match=f"{prefix}:*", target_nodes="primaries")
    else:
        keys = client.scan_iter(match=f"{prefix}:*")
    return sorted(key.decode() for key in keys)


async def written(url: str, cluster: bool, prefix: str) -> dict[str, StoredGame]:
    """Two games as the service writes them: one with a saved answer and no due move, one with
    its bot's move due a minute ago; each as a load gives it back."""
    store = RedisStore.from_url(
        url, game_ttl=GAME_TTL, idempotency_ttl=GAME_TTL, cluster=cluster, key_prefix=prefix
    )
    try:
        await store.create("GameWithAnswer01", b"record-a", segments=[b"s1", b"s2"])
        assert await store.commit(
            "GameWithAnswer01", 0, b"record-a1", segments=[b"s3"], idempotency=("key", b"saved")
        )
        await store.create("GameWithABotDue2", b"record-b", due=time.time() - 60)
        return {
            game_id: stored
            for game_id in ("GameWithAnswer01", "GameWithABotDue2")
            if (stored := await store.load(game_id, recall="key")) is not None
        }
    finally:
        await store.close()


def into_the_old_layout(client: Client, prefix: str) -> None:
    """Every game key moved to its name before shards, every due entry into the one old set."""
    for key in every_key(client, prefix):
        match = NEW_KEY.fullmatch(key)
        if match is not None:
            old = f"{prefix}:{{{match['game']}}}:{match['part']}"
            dumped = client.dump(key)
            assert dumped is not None
            client.restore(old, max(int(client.pttl(key)), 0), dumped)
            client.delete(key)
        elif key.endswith(":due") and "{g" in key:
            entries = cast("list[tuple[str, float]]", client.zrange(key, 0, -1, withscores=True))
            client.zadd(old_due_key(prefix), dict(entries))
            client.delete(key)


def run_migration(url: str, cluster: bool, prefix: str, *options: str) -> str:
    env = {
        **os.environ,
        "REDIS_URL": url,
        "REDIS_CLUSTER": "true" if cluster else "false",
        "REDIS_KEY_PREFIX": prefix,
    }
    done = subprocess.run(
        [sys.executable, "-m", "service.storage.redis_migration", *options],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def loaded(url: str, cluster: bool, prefix: str, game_id: str) -> StoredGame | None:
    store = RedisStore.from_url(
        url, game_ttl=GAME_TTL, idempotency_ttl=GAME_TTL, cluster=cluster, key_prefix=prefix
    )
    try:
        return await store.load(game_id, recall="key")
    finally:
        await store.close()


@pytest.mark.parametrize("cluster", [False, True], ids=["redis", "cluster"])
def test_games_in_the_old_layout_load_as_written_and_are_due_after_the_migration(
    request: pytest.FixtureRequest, key_prefix: str, cluster: bool
) -> None:
    url: str = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    client = client_for(url, cluster)
    try:
        before = asyncio.run(written(url, cluster, key_prefix))
        assert set(before) == {"GameWithAnswer01", "GameWithABotDue2"}
        bot_due = client.zscore(
            redis_keys.due_key(key_prefix, "GameWithABotDue2"), "GameWithABotDue2"
        )
        into_the_old_layout(client, key_prefix)
        # A run stopped half way: one game's key copied to its new name, nothing else done.
        half_moved = f"{key_prefix}:{{GameWithABotDue2}}:game"
        dumped = client.dump(half_moved)
        assert dumped is not None
        new_name = redis_keys.game_key(key_prefix, "GameWithABotDue2")
        client.restore(new_name, max(int(client.pttl(half_moved)), 0), dumped)
        old_keys = every_key(client, key_prefix)
        assert f"{key_prefix}:{{GameWithAnswer01}}:idem:key" in old_keys
        assert asyncio.run(loaded(url, cluster, key_prefix, "GameWithAnswer01")) is None

        dry = run_migration(url, cluster, key_prefix, "--dry-run")
        assert dry == (
            "would move: 2 games, 1 logs, 1 saved answers; due entries: 1 carried over, 1 due now"
        )
        assert every_key(client, key_prefix) == old_keys

        started = time.time()
        assert run_migration(url, cluster, key_prefix) == (
            "moved: 2 games, 1 logs, 1 saved answers; due entries: 1 carried over, 1 due now"
        )
        for game_id, stored in before.items():
            assert asyncio.run(loaded(url, cluster, key_prefix, game_id)) == stored
            ttl = int(client.pttl(redis_keys.game_key(key_prefix, game_id)))
            assert 0 < ttl <= GAME_TTL * 1000
        assert not [key for key in every_key(client, key_prefix) if "{GameWith" in key]
        assert client.exists(old_due_key(key_prefix)) == 0
        due = {
            game_id: client.zscore(redis_keys.due_key(key_prefix, game_id), game_id)
            for game_id in before
        }
        assert due["GameWithABotDue2"] == bot_due
        assert due["GameWithAnswer01"] is not None
        assert started <= due["GameWithAnswer01"] <= time.time()

        assert run_migration(url, cluster, key_prefix) == (
            "moved: 0 games, 0 logs, 0 saved answers; due entries: 0 carried over, 0 due now"
        )
    finally:
        client.close()
        delete_prefixed(url, key_prefix, cluster=cluster)


def test_without_a_redis_url_the_migration_says_so_and_writes_nothing() -> None:
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "service.storage.redis_migration"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "REDIS_URL is not set" in done.stderr

"""The records' store of write-once values, on memory, Redis and a Redis Cluster: the first
value written under a key is kept and answered to every later writer (two instances racing to
keep a review or the seed secret agree on one), values expire after the TTL unless kept for
good, and memory holds a bounded number of them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine, Iterator

import pytest

from service.app.redis_backends import backends_beside
from service.records.store import (
    SEED_SECRET_KEY,
    MemoryRecordStore,
    RecordStore,
    claim_key,
    quota_key,
    record_key,
    review_key,
)
from service.settings import Settings
from service.storage.game_store import StoreFull
from service.storage.redis_game_store import RedisStore
from tests.service.conftest_redis import delete_prefixed
from tests.waiting import eventually_async

DAY = 86400.0
Make = Callable[[float], RecordStore]


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.redis),
    ]
)
def make(request: pytest.FixtureRequest, key_prefix: str) -> Iterator[Make]:
    if request.param == "memory":
        yield lambda ttl: MemoryRecordStore(ttl=ttl)
        return
    cluster = request.param == "cluster"
    url: str = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")

    def on_redis(ttl: float) -> RecordStore:
        games = RedisStore.from_url(
            url, game_ttl=DAY, idempotency_ttl=DAY, cluster=cluster, key_prefix=key_prefix
        )
        return backends_beside(games, Settings(game_ttl=ttl)).records

    yield on_redis
    delete_prefixed(url, key_prefix, cluster=cluster)


def run(coroutine: Coroutine[object, object, None]) -> None:
    asyncio.run(coroutine)


def test_the_first_value_is_kept_and_answered_to_every_writer(make: Make) -> None:
    async def check() -> None:
        store = make(DAY)
        key = review_key("game", uuid.uuid4().hex)
        assert await store.get(key) is None
        answers = await asyncio.gather(*(store.put_new(key, b"%d" % n) for n in range(8)))
        assert len(set(answers)) == 1
        assert await store.get(key) == answers[0]
        secret = await store.put_new(SEED_SECRET_KEY + uuid.uuid4().hex, b"s", expires=False)
        assert secret == b"s"

    run(check())


def test_values_expire_after_the_ttl_unless_kept_for_good(make: Make) -> None:
    async def check() -> None:
        store = make(0.2)
        key, kept = record_key(uuid.uuid4().hex), record_key(uuid.uuid4().hex)
        await store.put_new(key, b"soon gone")
        await store.put_new(kept, b"kept", expires=False)
        await eventually_async(
            lambda: store.get(key), "the value to expire", until=lambda value: value is None
        )
        assert await store.get(kept) == b"kept"

    run(check())


def test_memory_keeps_a_bounded_number_of_values() -> None:
    async def check() -> None:
        store = MemoryRecordStore(ttl=DAY, max_values=2)
        await store.put_new("a", b"1")
        await store.put_new("b", b"2")
        assert await store.put_new("a", b"again") == b"1"  # no new value: no room needed
        with pytest.raises(StoreFull):
            await store.put_new("c", b"3")

    run(check())


def test_a_claim_is_taken_once_until_it_is_given_back_or_runs_out(make: Make) -> None:
    """The claim on computing a review (``service.records.reviews``): of instances racing for
    it, one takes it; given back, or past its lease, it can be taken again."""

    async def check() -> None:
        store = make(DAY)
        claim = claim_key(review_key("game", uuid.uuid4().hex))
        taken = await asyncio.gather(*(store.claim(claim, 60) for _ in range(8)))
        assert sorted(taken) == [False] * 7 + [True]
        await store.release(claim)
        assert await store.claim(claim, 0.05)
        await eventually_async(
            lambda: store.claim(claim, 60), "the short claim to run out", seconds=30
        )

    run(check())


def test_an_answer_is_saved_with_the_value_it_came_with_and_only_then(make: Make) -> None:
    """Of eight writers racing with their own answers, the one whose value is kept has its
    answer saved beside it (on a cluster, in the value's slot); the others' are not."""

    async def check() -> None:
        store = make(DAY)
        key = record_key(uuid.uuid4().hex)
        writes = [
            store.put_new(key, b"value %d" % n, idempotency=(f"saved {n}", b"answer %d" % n))
            for n in range(8)
        ]
        kept = set(await asyncio.gather(*writes))
        assert len(kept) == 1
        winner = int(kept.pop().split()[-1])
        for n in range(8):
            saved = await store.recall(key, f"saved {n}")
            assert saved == (b"answer %d" % n if n == winner else None)
        assert await store.recall(record_key(uuid.uuid4().hex), f"saved {winner}") is None

    run(check())


def test_a_daily_budget_is_spent_until_it_runs_out_and_is_whole_the_next_day(make: Make) -> None:
    """A client's bytes of records (``IMPORT_BYTES_PER_DAY``): what would pass the budget is
    refused, taking nothing, with the seconds until the day is over; then it is whole again."""

    async def check() -> None:
        store = make(DAY)
        key = quota_key(uuid.uuid4().hex)
        assert await store.spend(key, 60, 100, 60) is None
        assert await store.spend(key, 40, 100, 60) is None
        refused = await store.spend(key, 1, 100, 60)
        assert refused is not None
        assert 0 < refused <= 60
        other = quota_key(uuid.uuid4().hex)  # another client's is its own
        assert await store.spend(other, 100, 100, 60) is None
        short = quota_key(uuid.uuid4().hex)
        assert await store.spend(short, 100, 100, 0.05) is None
        await eventually_async(
            lambda: store.spend(short, 100, 100, 60),
            "the short day to end",
            until=lambda waiting: waiting is None,
            seconds=30,
        )

    run(check())

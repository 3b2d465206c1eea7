"""One suite for the tournaments' store: in memory, a single Redis, and a Redis Cluster. Of many
clients replacing the same record at once exactly one wins; a due entry goes with each record
and is taken by one taker at a time (moved on by a lease); the list pages newest first, and each
creator's list holds the creator's own."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable

import pytest

from service.tournaments.redis_store import RedisTournamentStore
from service.tournaments.store import MemoryTournamentStore, TournamentExists, TournamentStore
from tests.service.conftest_redis import StoreFamily

Stores = Callable[[int], Awaitable[list[TournamentStore]]]
Check = Callable[[Stores], Awaitable[None]]


@pytest.fixture
def on_stores(store_family: StoreFamily) -> Callable[[Check], None]:
    """Runs a check against fresh stores of the family, in an event loop of its own."""
    return functools.partial(
        store_family.run,
        memory=MemoryTournamentStore,
        on_redis=lambda client, prefix: RedisTournamentStore(client, key_prefix=prefix, ttl=600),
    )


def test_of_many_replacing_one_record_at_once_exactly_one_wins(
    on_stores: Callable[[Check], None],
) -> None:
    async def check(stores: Stores) -> None:
        clients = await stores(4)
        await clients[0].create("t1", b"v0", creator="ann", created=1.0, due=100.0)
        with pytest.raises(TournamentExists):
            await clients[1].create("t1", b"other", creator="bob", created=2.0, due=100.0)
        won = await asyncio.gather(
            *(c.replace("t1", b"v0", f"v1-{i}".encode(), due=200.0) for i, c in enumerate(clients))
        )
        assert sorted(won) == [False, False, False, True]
        winner = won.index(True)
        assert await clients[2].get("t1") == f"v1-{winner}".encode()
        assert await clients[3].get("nothing") is None

    on_stores(check)


def test_a_due_entry_goes_with_its_record_and_one_taker_takes_it_per_lease(
    on_stores: Callable[[Check], None],
) -> None:
    async def check(stores: Stores) -> None:
        one, two = await stores(2)
        await one.create("soon", b"a", creator="ann", created=1.0, due=10.0)
        await one.create("later", b"b", creator="ann", created=2.0, due=50.0)
        assert await two.take_due(5.0, 30.0, 10) == []
        taken = await asyncio.gather(one.take_due(20.0, 30.0, 10), two.take_due(20.0, 30.0, 10))
        assert sorted(taken, key=len) == [[], ["soon"]]
        # Moved on by the lease: due again at 50, with "later".
        assert sorted(await one.take_due(51.0, 30.0, 10)) == ["later", "soon"]
        # A replace sets the entry; None takes it away.
        assert await one.replace("soon", b"a", b"a2", due=None)
        assert await one.replace("later", b"b", b"b2", due=60.0)
        assert await two.take_due(1000.0, 30.0, 10) == ["later"]

    on_stores(check)


def test_the_list_pages_newest_first_and_each_creator_has_its_own(
    on_stores: Callable[[Check], None],
) -> None:
    async def check(stores: Stores) -> None:
        [store] = await stores(1)
        for n in range(7):
            creator = "ann" if n % 2 else "bob"
            await store.create(f"t{n}", b"x", creator=creator, created=float(n), due=1e12)
        first, after = await store.page(3, None)
        assert first == ["t6", "t5", "t4"]
        assert after is not None
        second, after = await store.page(3, after)
        assert second == ["t3", "t2", "t1"]
        assert after is not None
        last, end = await store.page(3, after)
        assert (last, end) == (["t0"], None)
        assert await store.created_by("ann", 10) == ["t5", "t3", "t1"]
        assert await store.created_by("bob", 2) == ["t6", "t4"]
        assert await store.created_by("cat", 2) == []

    on_stores(check)


def test_memory_keeps_at_most_its_bound_dropping_the_oldest_first() -> None:
    async def check() -> None:
        store = MemoryTournamentStore(max_kept=2)
        for n in range(3):
            await store.create(f"t{n}", b"x", creator="ann", created=float(n), due=1e12)
        assert await store.get("t0") is None
        assert (await store.page(10, None))[0] == ["t2", "t1"]
        # A finished one (no due entry) goes before older ones still due.
        assert await store.replace("t2", b"x", b"done", due=None)
        await store.create("t3", b"x", creator="ann", created=3.0, due=1e12)
        assert (await store.page(10, None))[0] == ["t3", "t1"]

    asyncio.run(check())

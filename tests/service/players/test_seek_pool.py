"""One suite for the seek pools: in memory, a single Redis, and a Redis Cluster. Seeks matched
oldest first by their terms, a player never matched with themself; two clients of one Redis
adding seeks at once put each in exactly one match; expired and canceled seeks are never matched;
and a player's seeks bounded. Rated pools match by rating on a manual clock: near ratings at
once, the nearest among many, far ones only once the window has widened, by a sweep with no
new seek; a sweep sent again after its answer was lost makes no second match."""

from __future__ import annotations

import asyncio
import functools
import itertools
import random
import time
from collections.abc import Awaitable, Callable

import msgspec
import pytest

from service.identity import keys
from service.players.redis_seek_pool import RedisSeekPool
from service.players.seek_matching import ANYONE_AFTER, WIDENING_PER_SECOND, WINDOW_START
from service.players.seek_pool import (
    SEEKS_PER_PLAYER,
    WAITING,
    AlreadySeeking,
    MemorySeekPool,
    SeekPool,
    SeekRecord,
    TooManySeeks,
)
from tests.service.conftest_redis import StoreFamily
from tests.service.manual_clock import ManualClock

Pools = Callable[[int], Awaitable[list[SeekPool]]]
"""Clients of one shared pool store: ``n`` of them (instances)."""
Check = Callable[[Pools], Awaitable[None]]


@pytest.fixture
def on_pools(store_family: StoreFamily) -> Callable[[Check], None]:
    """Runs a check against fresh pools of the family, in an event loop of its own."""
    return functools.partial(
        store_family.run,
        memory=MemorySeekPool,
        on_redis=lambda client, prefix: RedisSeekPool(client, key_prefix=prefix),
    )


@pytest.fixture
def clock() -> ManualClock:
    """The pools' clock, from the machine's time: Redis expires the pools' keys on its own."""
    clock = ManualClock()
    clock.now = time.time()
    return clock


@pytest.fixture
def on_clocked_pools(store_family: StoreFamily, clock: ManualClock) -> Callable[[Check], None]:
    """``on_pools`` with every pool on ``clock``."""
    return functools.partial(
        store_family.run,
        memory=lambda: MemorySeekPool(clock=clock),
        on_redis=lambda client, prefix: RedisSeekPool(client, key_prefix=prefix, clock=clock),
    )


def a_seek(
    player_id: str, *, players: int = 2, pool: str = "classic-2", expires: float = 600
) -> SeekRecord:
    now = time.time()
    return SeekRecord(
        seek_id=keys.new_player_id(),
        player_id=player_id,
        name=player_id,
        pool=pool,
        rules=b"{}",
        players=players,
        rated=False,
        turn_seconds=None,
        created=now,
        expires=now + expires,
    )


def a_rated_seek(
    player_id: str, rating: float, now: float, *, players: int = 2, pool: str = "rated"
) -> SeekRecord:
    """A rated seek made at ``now`` on the pools' clock."""
    seek = a_seek(player_id, players=players, pool=pool)
    return msgspec.structs.replace(seek, rated=True, rating=rating, created=now, expires=now + 600)


def test_seeks_are_matched_oldest_first_by_their_terms(on_pools: Callable[[Check], None]) -> None:
    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        ann, bob, cat, dan = (a_seek(p, players=3, pool="p3") for p in ("ann", "bob", "cat", "dan"))
        elsewhere = a_seek("eve", players=2, pool="p2")
        assert (await pool.add(ann, "g1")).status == "waiting"
        assert (await pool.add(elsewhere, "g2")).status == "waiting"
        assert (await pool.add(bob, "g3")).status == "waiting"
        matched = await pool.add(cat, "g4")
        assert (matched.status, matched.game_id, matched.mates) == (
            "matched",
            "g4",
            (ann.seek_id, bob.seek_id, cat.seek_id),
        )
        for seek in (ann, bob, cat):
            found = await pool.get(seek.seek_id)
            assert found is not None
            assert found == (seek, matched)
        assert (await pool.add(dan, "g5")).status == "waiting"
        found = await pool.get(elsewhere.seek_id)
        assert found is not None
        assert found[1].status == "waiting"
        assert await pool.get("unknown") is None

    on_pools(check)


def test_a_player_waits_once_per_terms_and_a_bounded_number_in_all(
    on_pools: Callable[[Check], None],
) -> None:
    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        first = a_seek("ann")
        await pool.add(first, "g")
        with pytest.raises(AlreadySeeking) as taken:
            await pool.add(a_seek("ann"), "g")
        assert taken.value.seek_id == first.seek_id
        for n in range(1, SEEKS_PER_PLAYER):
            await pool.add(a_seek("ann", pool=f"other-{n}"), "g")
        with pytest.raises(TooManySeeks):
            await pool.add(a_seek("ann", pool="one-more"), "g")
        assert (await pool.cancel(first)).status == "canceled"
        assert (await pool.add(a_seek("ann", pool="one-more"), "g")).status == "waiting"

    on_pools(check)


def test_canceled_and_expired_seeks_are_never_matched(on_pools: Callable[[Check], None]) -> None:
    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        canceled, expired = a_seek("ann"), a_seek("bob", expires=-1)
        await pool.add(canceled, "g1")
        await pool.cancel(canceled)
        await pool.add(expired, "g2")
        waiting = a_seek("cat")
        assert (await pool.add(waiting, "g3")).status == "waiting"
        matched = await pool.add(a_seek("dan"), "g4")
        assert matched.mates[0] == waiting.seek_id
        assert (await pool.cancel(waiting)).status == "matched"  # too late: left as it is

    on_pools(check)


def test_seeks_added_at_once_on_two_clients_are_each_in_exactly_one_match(
    on_pools: Callable[[Check], None],
) -> None:
    async def check(pools: Pools) -> None:
        clients = await pools(2)
        seeks = [a_seek(f"player-{n}", players=4, pool="p4") for n in range(200)]
        order = random.Random(7)
        states = await asyncio.gather(
            *(clients[order.randrange(2)].add(seek, f"game-{n}") for n, seek in enumerate(seeks))
        )
        matches = {s.game_id: s.mates for s in states if s.status == "matched"}
        assert len(matches) == 50
        matched = [mate for mates in matches.values() for mate in mates]
        assert sorted(matched) == sorted(s.seek_id for s in seeks)  # each once, none left
        for game_id, mates in matches.items():
            for mate in mates:
                found = await clients[0].get(mate)
                assert found is not None
                assert (found[1].game_id, found[1].mates) == (game_id, mates)

    on_pools(check)


def game_ids(prefix: str = "swept") -> Callable[[], str]:
    """Fresh game ids, as a sweep is given: none used twice under one ``prefix``."""
    numbers = itertools.count(1)
    return lambda: f"{prefix}-{next(numbers)}"


def test_near_ratings_match_at_once_and_far_ones_once_the_window_has_widened(
    on_clocked_pools: Callable[[Check], None], clock: ManualClock
) -> None:
    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        far = 10.0  # the window takes it in after (far - WINDOW_START) / WIDENING_PER_SECOND
        ann = a_rated_seek("ann", 20.0, clock.now)
        assert await pool.add(ann, "g1") == WAITING
        clock.advance(1)
        bob = a_rated_seek("bob", 20.0 + far, clock.now)
        assert await pool.add(bob, "g2") == WAITING
        assert await pool.sweep(game_ids(), 10) == []
        widened = (far - WINDOW_START) / WIDENING_PER_SECOND
        clock.advance(widened - 1 - 0.5)  # Ann has waited half a second short of it
        assert await pool.sweep(game_ids(), 10) == []
        clock.advance(0.5)
        [matched] = await pool.sweep(game_ids(), 10)
        assert (matched.game_id, matched.mates) == ("swept-1", (ann.seek_id, bob.seek_id))
        for seek in (ann, bob):
            assert await pool.get(seek.seek_id) == (seek, matched)
        assert await pool.sweep(game_ids(), 10) == []  # nothing due is left
        # Near ratings: matched by the add, at once.
        cat = a_rated_seek("cat", 24.0, clock.now)
        dan = a_rated_seek("dan", 24.0 + WINDOW_START, clock.now)
        assert await pool.add(cat, "g3") == WAITING
        assert (await pool.add(dan, "g4")).mates == (cat.seek_id, dan.seek_id)

    on_clocked_pools(check)


def test_the_nearest_ratings_are_matched_among_many(
    on_clocked_pools: Callable[[Check], None], clock: ManualClock
) -> None:
    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        seeks = {}
        for name, rating in (("ann", 10.0), ("bob", 40.0), ("cat", 24.0), ("dan", 27.5)):
            seeks[name] = a_rated_seek(name, rating, clock.now, players=3, pool="rated-3")
            assert await pool.add(seeks[name], "g") == WAITING
            clock.advance(0.1)
        # Eve (25) makes 24, 25, 27.5: a spread of 3.5, within Cat's window after a fraction
        # of a second more; not the oldest (Ann, Bob) nor a wider table with them.
        clock.advance((3.5 - WINDOW_START) / WIDENING_PER_SECOND)
        eve = a_rated_seek("eve", 25.0, clock.now, players=3, pool="rated-3")
        matched = await pool.add(eve, "g-eve")
        assert matched.mates == (seeks["cat"].seek_id, seeks["dan"].seek_id, eve.seek_id)
        # Ann and Bob wait on: two are not a table of three, however long they wait.
        clock.advance(ANYONE_AFTER)
        assert await pool.sweep(game_ids(), 10) == []
        fay = a_rated_seek("fay", 90.0, clock.now, players=3, pool="rated-3")
        late = await pool.add(fay, "g-fay")  # anyone, now that Ann has waited long enough
        assert late.mates == (seeks["ann"].seek_id, seeks["bob"].seek_id, fay.seek_id)

    on_clocked_pools(check)


def test_a_table_of_older_seeks_that_widened_is_left_to_the_sweep(
    on_clocked_pools: Callable[[Check], None], clock: ManualClock
) -> None:
    """An add matches only a table with the new seek: older seeks whose windows widened since
    the last sweep are matched by the next one."""

    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        ann = a_rated_seek("ann", 10.0, clock.now)
        await pool.add(ann, "g1")
        clock.advance(1)
        bob = a_rated_seek("bob", 20.0, clock.now)
        await pool.add(bob, "g2")
        clock.advance(19)  # Ann's window now takes Bob in, Bob's not Cat
        cat = a_rated_seek("cat", 50.0, clock.now)
        assert await pool.add(cat, "g3") == WAITING
        [matched] = await pool.sweep(game_ids(), 10)
        assert matched.mates == (ann.seek_id, bob.seek_id)
        assert await pool.get(cat.seek_id) == (cat, WAITING)

    on_clocked_pools(check)


def test_every_pool_matches_as_the_memory_pool_does(
    on_clocked_pools: Callable[[Check], None], clock: ManualClock
) -> None:
    """The Redis script repeats ``seek_matching.choose`` in Lua: random arrivals, ratings and
    sweeps give the same matches, in the same order, as the memory pool on the same clock."""

    async def check(pools: Pools) -> None:
        [pool] = await pools(1)
        reference = MemorySeekPool(clock=clock)
        order = random.Random(45)
        ids = itertools.count()
        made = {"sweep": 0, "add": 0}
        for n in range(120):
            clock.advance(order.uniform(0.05, 4))
            if order.random() < 0.2:
                # The game ids apart: the Redis pool takes one for each pool it looks at.
                swept = await pool.sweep(game_ids(f"sweep-{n}"), 100)
                expected = await reference.sweep(game_ids(f"sweep-{n}"), 100)
                assert sorted(s.mates for s in swept) == sorted(s.mates for s in expected)
                made["sweep"] += len(swept)
                continue
            size = order.choice((2, 3))
            rating = order.uniform(0, 50)
            seek = a_rated_seek(f"p{n}", rating, clock.now, players=size, pool=f"rated-{size}")
            game_id = f"g{next(ids)}"
            added = await pool.add(seek, game_id)
            assert added == await reference.add(seek, game_id)
            made["add"] += added.status == "matched"
        assert min(made.values()) >= 5, made  # both ways of matching were tried

    on_clocked_pools(check)

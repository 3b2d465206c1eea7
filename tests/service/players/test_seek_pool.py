"""One suite for the seek pools: in memory, a single Redis, and a Redis Cluster. Seeks matched
oldest first by their terms, a player never matched with themself; two clients of one Redis
adding seeks at once put each in exactly one match; expired and canceled seeks are never matched;
and a player's seeks bounded."""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Awaitable, Callable

import pytest

from service.identity import keys
from service.players.redis_seek_pool import RedisSeekPool
from service.players.seek_pool import (
    SEEKS_PER_PLAYER,
    AlreadySeeking,
    MemorySeekPool,
    SeekPool,
    SeekRecord,
    TooManySeeks,
)
from tests.service.conftest_redis import StoreFamily

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

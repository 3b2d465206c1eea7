"""One suite for the players' store: in memory, a single Redis, and a Redis Cluster. Keys,
replacing them (one of two concurrent replacements wins), and a player's list of games: newest
first, paged without loss or repeat (ties in time included), at most ``GAMES_KEPT``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator

import pytest

from service.identity import keys
from service.identity.redis_store import RedisPlayerStore
from service.identity.store import GAMES_KEPT, MemoryPlayerStore, PlayerRecord, PlayerStore
from service.storage.game_store import StoreFull
from service.storage.redis_game_store import RedisStore
from tests.service.conftest_redis import delete_prefixed


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.redis),
    ]
)
def store_kind(request: pytest.FixtureRequest, key_prefix: str) -> Iterator[tuple[str, str]]:
    """The kind of store and, for Redis, its URL; its keys under this test's own prefix."""
    if request.param == "memory":
        yield "memory", ""
        return
    cluster = request.param == "cluster"
    url: str = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    yield request.param, url
    delete_prefixed(url, key_prefix, cluster=cluster)


Check = Callable[[PlayerStore], Awaitable[None]]
OnStore = Callable[[Check], None]


@pytest.fixture
def on_store(store_kind: tuple[str, str], key_prefix: str) -> OnStore:
    """Runs a check against a fresh store of the kind, in an event loop of its own."""
    kind, url = store_kind

    async def checked(check: Check) -> None:
        if kind == "memory":
            await check(MemoryPlayerStore())
            return
        games = RedisStore.from_url(
            url,
            game_ttl=600,
            idempotency_ttl=600,
            cluster=kind == "cluster",
            key_prefix=key_prefix,
        )
        try:
            await check(RedisPlayerStore(games.redis, key_prefix=key_prefix))
        finally:
            await games.close()

    return lambda check: asyncio.run(checked(check))


def player(name: str = "Ann") -> PlayerRecord:
    return PlayerRecord(keys.new_player_id(), name, bot=False, created=1.0)


def test_a_player_is_found_by_its_key_and_by_its_id(on_store: OnStore) -> None:
    async def check(store: PlayerStore) -> None:
        ann, key = player(), keys.new_key()
        await store.create(ann, keys.key_hash(key))
        assert await store.player_of_key(keys.key_hash(key)) == ann.player_id
        assert await store.get(ann.player_id) == ann
        assert await store.player_of_key(keys.key_hash(keys.new_key())) is None
        assert await store.get(keys.new_player_id()) is None

    on_store(check)


def test_a_replaced_key_stops_working_and_the_new_one_works(on_store: OnStore) -> None:
    async def check(store: PlayerStore) -> None:
        ann, old, new = player(), keys.new_key(), keys.new_key()
        await store.create(ann, keys.key_hash(old))
        assert await store.replace_key(ann.player_id, keys.key_hash(old), keys.key_hash(new))
        assert await store.player_of_key(keys.key_hash(old)) is None
        assert await store.player_of_key(keys.key_hash(new)) == ann.player_id
        # The old key cannot be replaced again: it is no longer the player's.
        third = keys.new_key()
        assert not await store.replace_key(ann.player_id, keys.key_hash(old), keys.key_hash(third))
        assert await store.player_of_key(keys.key_hash(third)) is None

    on_store(check)


def test_of_concurrent_replacements_exactly_one_wins(on_store: OnStore) -> None:
    async def check(store: PlayerStore) -> None:
        ann, old = player(), keys.new_key()
        await store.create(ann, keys.key_hash(old))
        new_keys = [keys.new_key() for _ in range(8)]
        won = await asyncio.gather(
            *(
                store.replace_key(ann.player_id, keys.key_hash(old), keys.key_hash(k))
                for k in new_keys
            )
        )
        assert sum(won) == 1
        holders = [await store.player_of_key(keys.key_hash(k)) for k in new_keys]
        assert holders == [ann.player_id if w else None for w in won]

    on_store(check)


def test_a_player_s_games_page_newest_first_without_loss_or_repeat(on_store: OnStore) -> None:
    async def check(store: PlayerStore) -> None:
        ann = player()
        await store.create(ann, keys.key_hash(keys.new_key()))
        # Ties in time: several games created at the same moment.
        entries = [(float(n // 3), f"game-{n:02}") for n in range(25)]
        for entry in reversed(entries):
            await store.add_game(ann.player_id, entry)
        await store.add_game(ann.player_id, entries[4])  # added twice: listed once
        seen: list[tuple[float, str]] = []
        after = None
        while True:
            page = await store.games(ann.player_id, after, 4)
            seen += page
            if len(page) < 4:
                break
            after = page[-1]
        assert seen == sorted(entries, reverse=True)
        assert await store.game_count(ann.player_id) == 25
        await store.drop_games(ann.player_id, ["game-00", "game-24", "no-such-game"])
        assert [gid for _, gid in await store.games(ann.player_id, None, 100)] == [
            f"game-{n:02}" for n in range(23, 0, -1)
        ]

    on_store(check)


def test_a_player_s_list_keeps_the_newest_games(on_store: OnStore) -> None:
    async def check(store: PlayerStore) -> None:
        ann = player()
        for n in range(GAMES_KEPT + 5):
            await store.add_game(ann.player_id, (float(n), f"g{n}"))
        assert await store.game_count(ann.player_id) == GAMES_KEPT
        oldest = (await store.games(ann.player_id, None, GAMES_KEPT))[-1]
        assert oldest == (5.0, "g5")

    on_store(check)


def test_memory_holds_at_most_its_players() -> None:
    async def check() -> None:
        store = MemoryPlayerStore(max_players=2)
        await store.create(player("A"), b"a")
        await store.create(player("B"), b"b")
        with pytest.raises(StoreFull):
            await store.create(player("C"), b"c")

    asyncio.run(check())


def test_a_player_is_online_while_a_stream_s_presence_lasts(on_store: OnStore) -> None:
    async def check(store: PlayerStore) -> None:
        ann, bob = player("Ann"), player("Bob")
        await store.present(ann.player_id, "s1", until=100.0)
        await store.present(ann.player_id, "s2", until=300.0)
        await store.present(bob.player_id, "s3", until=200.0)
        assert await store.online(50.0) == [ann.player_id, bob.player_id]
        await store.absent(ann.player_id, "s2")
        assert await store.online(50.0) == [bob.player_id, ann.player_id]
        assert await store.online(150.0) == [bob.player_id]  # s1 lapsed
        await store.absent(bob.player_id, "s3")
        assert await store.online(150.0) == []

    on_store(check)

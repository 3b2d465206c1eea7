"""One test suite for every store: in memory, a single Redis, and a three-master Redis Cluster.

Each test runs against all three (``store`` is parametrised). The property test plays random
sequences of creates, commits and recalls against a dictionary model of what the protocol
promises, including binary records and idempotency keys.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.app.backends import Backends, memory_backends_beside
from service.app.redis_backends import backends_beside
from service.settings import Settings
from service.storage.game_store import GameExists, MemoryStore, Store, StoredGame
from service.storage.redis_game_store import RedisStore
from service.storage.redis_keys import game_key, log_key
from tests.service.conftest_redis import delete_prefixed
from tests.service.manual_clock import ManualClock

StoreFactory = Callable[..., Store]
"""Makes a fresh store: keyword arguments ``game_ttl``, ``idempotency_ttl`` and
``idle_game_ttl`` (seconds)."""

DAY = 86400.0


@dataclass
class StoreKind:
    name: str
    make: StoreFactory
    elapse: Callable[[float], Awaitable[None]] = asyncio.sleep
    """Let ``seconds`` pass for the stores' expiry: on Redis, real time (its server keeps the
    TTLs); in memory, the stores' own clock, moved by hand, so no check races the machine."""


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.redis),
    ]
)
def store_kind(request: pytest.FixtureRequest, key_prefix: str) -> Iterator[StoreKind]:
    """How to make stores of one kind; Redis keys live under this test's own prefix."""
    if request.param == "memory":
        clock = ManualClock()

        async def elapse(seconds: float) -> None:
            clock.advance(seconds)

        yield StoreKind("memory", partial(MemoryStore, clock=clock), elapse)
        return
    cluster = request.param == "cluster"
    url: str = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")

    def make(
        *, game_ttl: float = DAY, idempotency_ttl: float = DAY, idle_game_ttl: float | None = None
    ) -> Store:
        return RedisStore.from_url(
            url,
            game_ttl=game_ttl,
            idempotency_ttl=idempotency_ttl,
            idle_game_ttl=idle_game_ttl,
            cluster=cluster,
            key_prefix=key_prefix,
        )

    yield StoreKind(request.param, make)
    delete_prefixed(url, key_prefix, cluster=cluster)


def beside(store: Store, settings: Settings | None = None) -> Backends:
    """The backends a deployment keeps beside ``store``, as ``build_backends`` pairs them."""
    settings = settings or Settings()
    if isinstance(store, RedisStore):
        return backends_beside(store, settings)
    assert isinstance(store, MemoryStore)
    return memory_backends_beside(store, settings)


def run(coroutine: Coroutine[object, object, None]) -> None:
    asyncio.run(coroutine)


def new_id() -> str:
    return uuid.uuid4().hex


# --- create and load ---------------------------------------------------------------------------


def test_a_created_game_loads_at_version_zero(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        await store.create(game, b"first record")
        assert await store.load(game) == StoredGame(0, b"first record")
        await store.close()

    run(check())


def test_creating_a_taken_id_raises_game_exists_and_keeps_the_first(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        await store.create(game, b"one")
        with pytest.raises(GameExists, match=game):
            await store.create(game, b"two")
        assert await store.load(game) == StoredGame(0, b"one")
        await store.close()

    run(check())


def test_an_unknown_game_loads_as_none(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        assert await store.load(new_id()) is None
        await store.close()

    run(check())


def test_records_are_binary_safe(store_kind: StoreKind) -> None:
    record = bytes(range(256)) * 40  # NULs, invalid UTF-8, 10 kB

    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        await store.create(game, record)
        assert await store.commit(game, 0, record[::-1], idempotency=("k", record))
        assert await store.load(game) == StoredGame(1, record[::-1])
        assert await store.recall(game, "k") == record
        await store.close()

    run(check())


# --- compare-and-set ---------------------------------------------------------------------------


def test_commit_at_the_current_version_moves_it_on_by_one(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        await store.create(game, b"v0")
        for version in range(5):
            assert await store.commit(game, version, f"v{version + 1}".encode())
        assert await store.load(game) == StoredGame(5, b"v5")
        await store.close()

    run(check())


@pytest.mark.parametrize("stale", [0, 2, 3, -1])
def test_commit_at_any_other_version_changes_nothing(store_kind: StoreKind, stale: int) -> None:
    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        await store.create(game, b"v0")
        assert await store.commit(game, 0, b"v1")
        assert not await store.commit(game, stale, b"lost", idempotency=("retry", b"lost"))
        assert await store.load(game) == StoredGame(1, b"v1")
        assert await store.recall(game, "retry") is None
        await store.close()

    run(check())


def test_commit_to_an_unknown_game_creates_nothing(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        assert not await store.commit(game, 0, b"ghost", idempotency=("k", b"ghost"))
        assert await store.load(game) is None
        assert await store.recall(game, "k") is None
        await store.close()

    run(check())


def test_of_many_concurrent_commits_at_one_version_exactly_one_wins(store_kind: StoreKind) -> None:
    """Forty writers read version v and race to commit: one succeeds per version, and the stored
    record is the winner's, over ten versions in a row."""

    async def check() -> None:
        store = store_kind.make()
        game = new_id()
        await store.create(game, b"start")
        for version in range(10):
            results = await asyncio.gather(
                *(
                    store.commit(
                        game,
                        version,
                        f"{version}:{writer}".encode(),
                        idempotency=(f"w{writer}-{version}", f"{writer}".encode()),
                    )
                    for writer in range(40)
                )
            )
            winners = [writer for writer, won in enumerate(results) if won]
            assert len(winners) == 1
            assert await store.load(game) == StoredGame(
                version + 1, f"{version}:{winners[0]}".encode()
            )
            saved = [await store.recall(game, f"w{w}-{version}") for w in range(40)]
            assert saved == [str(w).encode() if w == winners[0] else None for w in range(40)]
        await store.close()

    run(check())


def test_a_fresh_store_serves_many_concurrent_first_requests(store_kind: StoreKind) -> None:
    """The first requests of a new process arrive together (a cluster client must not trip over
    its own start-up)."""

    async def check() -> None:
        for _ in range(3):
            store = store_kind.make()
            games = [new_id() for _ in range(40)]
            await asyncio.gather(*(store.create(game, game.encode()) for game in games))
            loaded = await asyncio.gather(*(store.load(game) for game in games))
            assert loaded == [StoredGame(0, game.encode()) for game in games]
            await store.close()

    run(check())


# --- idempotency -------------------------------------------------------------------------------


def test_the_response_saved_with_a_commit_is_recalled_per_game_and_key(
    store_kind: StoreKind,
) -> None:
    async def check() -> None:
        store = store_kind.make()
        game, other = new_id(), new_id()
        await store.create(game, b"g")
        await store.create(other, b"o")
        assert await store.commit(game, 0, b"g1", idempotency=("key-1", b"response one"))
        assert await store.commit(game, 1, b"g2")
        assert await store.recall(game, "key-1") == b"response one"
        assert await store.recall(game, "key-2") is None
        assert await store.recall(other, "key-1") is None
        await store.close()

    run(check())


def test_a_load_can_recall_a_saved_response_in_the_same_answer(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        game, other = new_id(), new_id()
        await store.create(game, b"g")
        await store.create(other, b"o")
        assert await store.commit(game, 0, b"g1", idempotency=("key-1", b"response one"))
        assert await store.load(game, recall="key-1") == StoredGame(1, b"g1", b"response one")
        assert await store.load(game, recall="key-2") == StoredGame(1, b"g1", None)
        assert await store.load(other, recall="key-1") == StoredGame(0, b"o", None)
        assert await store.load(new_id(), recall="key-1") is None
        await store.close()

    run(check())


# --- expiry ------------------------------------------------------------------------------------


def test_games_and_saved_responses_expire_after_their_ttls(store_kind: StoreKind) -> None:
    async def check() -> None:
        # On Redis, seconds of margin where something must still be there (a busy machine only
        # makes more time pass, which cannot make a "gone" check fail).
        store = store_kind.make(game_ttl=3.0, idempotency_ttl=0.3)
        game = new_id()
        await store.create(game, b"v0")
        assert await store.commit(game, 0, b"v1", idempotency=("k", b"r"))
        await store_kind.elapse(0.5)
        assert await store.recall(game, "k") is None
        assert await store.load(game) == StoredGame(1, b"v1")
        await store_kind.elapse(3.0)
        assert await store.load(game) is None
        assert not await store.commit(game, 1, b"v2")
        await store.close()

    run(check())


def test_each_commit_refreshes_the_game_ttl(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make(game_ttl=3.0, idempotency_ttl=3.0)
        game = new_id()
        await store.create(game, b"v0")
        for version in range(4):  # 4 s in all: longer than the TTL, each gap well within it
            await store_kind.elapse(1.0)
            assert await store.commit(game, version, f"v{version + 1}".encode())
        assert await store.load(game) == StoredGame(4, b"v4")
        await store.close()

    run(check())


IDLE = 60.0


def test_a_game_no_person_acted_in_expires_after_the_idle_ttl(store_kind: StoreKind) -> None:
    """A game nobody acted in (created, or moved only by bots and clocks) is kept
    ``idle_game_ttl``; a person's first commit keeps it ``game_ttl`` from then on, whoever
    commits after. In memory the store's clock moves; on Redis the keys' TTLs are read."""

    async def check() -> None:
        store = store_kind.make(game_ttl=DAY, idle_game_ttl=IDLE)
        idle, botted, played = new_id(), new_id(), new_id()
        for game in (idle, botted, played):
            await store.create(game, b"v0", segments=[b"s0"])
        assert await store.commit(botted, 0, b"v1", segments=[b"s1"], acted=False)
        assert await store.commit(played, 0, b"v1", acted=True)
        assert await store.commit(played, 1, b"v2", acted=False)  # a bot after the person
        if isinstance(store, RedisStore):
            for game, kept in ((idle, IDLE), (botted, IDLE), (played, DAY)):
                for key in (game_key(store.key_prefix, game), log_key(store.key_prefix, game)):
                    left = await store.redis.pttl(key)
                    assert kept * 1000 - 10_000 < left <= kept * 1000, (key, left)
        else:
            await store_kind.elapse(IDLE + 1)
            assert await store.load(idle) is None
            assert await store.load(botted) is None
            assert await store.load(played) == StoredGame(2, b"v2", segments=(b"s0",))
            await store.create(new_id(), b"v0")  # drops the expired from the store's count
            assert len(cast("MemoryStore", store)) == 2
        await store.close()

    run(check())


def test_a_game_s_expiry_is_when_it_expires_as_its_commits_move_it(store_kind: StoreKind) -> None:
    """What is kept beside a game expires with it (``Store.expiry``): an idle game's expiry
    is ``idle_game_ttl`` after its last write, a person's commit moves it ``game_ttl`` on; a
    game that is not there has none."""

    async def check() -> None:
        store = store_kind.make(game_ttl=DAY, idle_game_ttl=IDLE)
        game = new_id()
        assert await store.expiry(game) is None
        await store.create(game, b"v0")
        idle = await store.expiry(game)
        assert await store.commit(game, 0, b"v1", acted=True)
        played = await store.expiry(game)
        assert idle is not None
        assert played is not None
        assert DAY - IDLE - 10 < played - idle <= DAY - IDLE + 10
        assert await store.expiry(game) == played  # a read does not move it
        await store.close()

    run(check())


# --- health ------------------------------------------------------------------------------------


def test_a_reachable_store_pings_and_closes(store_kind: StoreKind) -> None:
    async def check() -> None:
        store = store_kind.make()
        await store.ping()
        await store.close()

    run(check())


# --- property: random histories against a dictionary model -------------------------------------

GAMES = ["g0", "g1", "g2"]
KEYS = ["k0", "k1"]

operations = st.lists(
    st.one_of(
        st.tuples(st.just("create"), st.sampled_from(GAMES), st.binary(max_size=40)),
        st.tuples(
            st.just("commit"),
            st.sampled_from(GAMES),
            st.integers(-1, 4),
            st.binary(max_size=40),
            st.none() | st.tuples(st.sampled_from(KEYS), st.binary(max_size=20)),
        ),
        st.tuples(st.just("recall"), st.sampled_from(GAMES), st.sampled_from(KEYS)),
    ),
    max_size=25,
)


@dataclass
class Model:
    """What the protocol promises, as plainly as it can be said (no expiry: TTLs are a day)."""

    games: dict[str, StoredGame] = field(default_factory=dict)
    saved: dict[tuple[str, str], bytes] = field(default_factory=dict)


async def play(
    store: Store, model: Model, ops: list[tuple[object, ...]], ids: dict[str, str]
) -> None:
    for op in ops:
        match op:
            case ("create", str(game), bytes(record)):
                expect_exists = game in model.games
                try:
                    await store.create(ids[game], record)
                    created = True
                except GameExists:
                    created = False
                assert created is not expect_exists
                model.games.setdefault(game, StoredGame(0, record))
            case ("commit", str(game), int(version), bytes(record), idem):
                current = model.games.get(game)
                expect = current is not None and current.version == version
                key_response = None if idem is None else (idem[0], idem[1])  # type: ignore[index]
                assert (
                    await store.commit(ids[game], version, record, idempotency=key_response)
                    is expect
                )
                if expect:
                    model.games[game] = StoredGame(version + 1, record)
                    if key_response is not None:
                        model.saved[game, key_response[0]] = key_response[1]
            case ("recall", str(game), str(key)):
                assert await store.recall(ids[game], key) == model.saved.get((game, key))
        for game in GAMES:
            assert await store.load(ids[game]) == model.games.get(game)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=operations)
def test_random_histories_match_the_model(
    store_kind: StoreKind, ops: list[tuple[object, ...]]
) -> None:
    async def check() -> None:
        store = store_kind.make()
        ids = {game: new_id() for game in GAMES}  # fresh games for every example
        await play(store, Model(), ops, ids)
        await store.close()

    run(check())

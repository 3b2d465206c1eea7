"""One test suite for every sheet store: in memory, on a single Redis, and on a three-master Redis
Cluster (the Redis ones on a games' ``RedisStore`` client, as the app builds them), then the
whole HTTP flow on Redis and Redis Cluster: a sheet written through one app and read through
another, and two writers racing without losing an update."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass

import msgspec
import pytest
import redis
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.app.redis_backends import backends_beside
from service.settings import Settings
from service.sheets import lifecycle as scoresheets
from service.sheets import wire as sheet_wire
from service.sheets.store import (
    MemorySheetStore,
    SheetExists,
    SheetStore,
    StoredSheet,
)
from service.storage.game_store import StoreFull
from service.storage.redis_game_store import RedisStore
from tests.service.conftest_redis import delete_prefixed
from tests.service.games.test_games_api import assert_problem
from tests.service.manual_clock import ManualClock

DAY = 86400.0


@dataclass
class SheetStoreKind:
    name: str
    make: Callable[..., SheetStore]
    """Makes a fresh store; keyword argument ``ttl`` (seconds)."""
    url: str = ""
    key_prefix: str = ""
    elapse: Callable[[float], Awaitable[None]] = asyncio.sleep
    """Let ``seconds`` pass for expiry: real time on Redis, the memory store's own clock (moved
    by hand) in memory."""


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.redis),
    ]
)
def kind(request: pytest.FixtureRequest, key_prefix: str) -> Iterator[SheetStoreKind]:
    if request.param == "memory":
        clock = ManualClock()

        async def elapse(seconds: float) -> None:
            clock.advance(seconds)

        def make_in_memory(ttl: float = DAY) -> SheetStore:
            return MemorySheetStore(ttl=ttl, clock=clock)

        yield SheetStoreKind("memory", make_in_memory, elapse=elapse)
        return
    cluster = request.param == "cluster"
    url: str = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")

    def make(ttl: float = DAY) -> SheetStore:
        games = RedisStore.from_url(
            url, game_ttl=DAY, idempotency_ttl=DAY, cluster=cluster, key_prefix=key_prefix
        )
        return backends_beside(games, Settings(game_ttl=ttl)).sheets

    yield SheetStoreKind(request.param, make, url, key_prefix)
    delete_prefixed(url, key_prefix, cluster=cluster)


def run(coroutine: Coroutine[object, object, None]) -> None:
    asyncio.run(coroutine)


def new_id() -> str:
    return uuid.uuid4().hex


def test_a_created_sheet_loads_at_version_zero(kind: SheetStoreKind) -> None:
    async def check() -> None:
        store = kind.make()
        sheet = new_id()
        await store.create(sheet, b"\x00first\xff")
        assert await store.load(sheet) == StoredSheet(0, b"\x00first\xff")
        assert await store.load(new_id()) is None

    run(check())


def test_creating_a_taken_id_raises_and_keeps_the_first(kind: SheetStoreKind) -> None:
    async def check() -> None:
        store = kind.make()
        sheet = new_id()
        await store.create(sheet, b"one")
        with pytest.raises(SheetExists):
            await store.create(sheet, b"two")
        assert await store.load(sheet) == StoredSheet(0, b"one")

    run(check())


def test_commits_are_a_compare_and_set_on_the_version(kind: SheetStoreKind) -> None:
    async def check() -> None:
        store = kind.make()
        sheet = new_id()
        await store.create(sheet, b"v0")
        for version in range(3):
            assert await store.commit(sheet, version, f"v{version + 1}".encode())
        for stale in (0, 2, 4, -1):
            assert not await store.commit(sheet, stale, b"lost")
        assert await store.load(sheet) == StoredSheet(3, b"v3")
        assert not await store.commit(new_id(), 0, b"nowhere")

    run(check())


def test_a_sheet_expires_after_its_ttl_and_every_write_refreshes_it(kind: SheetStoreKind) -> None:
    async def check() -> None:
        # On Redis, a second or more of margin where the sheet must still be there.
        store = kind.make(ttl=4.0)
        sheet = new_id()
        await store.create(sheet, b"v0")
        await kind.elapse(1.5)
        assert await store.commit(sheet, 0, b"v1")  # refreshed: 4 s from now
        await kind.elapse(3.0)  # 4.5 s since the create
        assert await store.load(sheet) == StoredSheet(1, b"v1")
        await kind.elapse(1.5)
        assert await store.load(sheet) is None

    run(check())


@pytest.mark.redis
@pytest.mark.parametrize("cluster", [False, True], ids=["redis", "cluster"])
def test_on_redis_a_sheet_is_one_hash_under_the_games_prefix(
    request: pytest.FixtureRequest, cluster: bool
) -> None:
    on: Settings = request.getfixturevalue(
        "redis_cluster_settings" if cluster else "redis_settings"
    )
    url, key_prefix = on.redis_url, on.redis_key_prefix
    games = RedisStore.from_url(
        url, game_ttl=DAY, idempotency_ttl=DAY, cluster=cluster, key_prefix=key_prefix
    )
    store = backends_beside(games, Settings(game_ttl=DAY)).sheets
    assert getattr(store, "redis", None) is games.redis, "the games' client, not a second pool"
    sheet = new_id()
    run(store.create(sheet, b"v0"))
    client: redis.Redis | redis.RedisCluster = (
        redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    )
    with client:
        key = f"{key_prefix}:sheet:{{{sheet}}}"
        stored = client.hgetall(key)
        # The version, the record, and the write's token (service.storage.redis_connection).
        assert stored.keys() == {b"v", b"r", b"w"}
        assert (stored[b"v"], stored[b"r"], len(stored[b"w"])) == (b"0", b"v0", 8)
        assert 0 < int(client.pttl(key)) <= DAY * 1000


# -- through the app, on Redis ----------------------------------------------------------------


@pytest.fixture(params=[False, True], ids=["redis", "cluster"])
def two_apps(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[TestClient[Litestar], TestClient[Litestar]]]:
    """Two app instances on one Redis (or one Redis Cluster), as behind a load balancer."""
    cluster: bool = request.param
    settings: Settings = request.getfixturevalue(
        "redis_cluster_settings" if cluster else "redis_settings"
    )
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        yield first, second


@pytest.mark.redis
def test_a_sheet_entered_through_one_instance_reads_the_same_through_another(
    two_apps: tuple[TestClient[Litestar], TestClient[Litestar]],
) -> None:
    first, second = two_apps
    created = first.post("/v1/scoresheets", json={"players": ["Ann", "Bob"]}).json()
    auth = {"Authorization": f"Bearer {created['edit_token']}"}
    path = f"/v1/scoresheets/{created['sheet_id']}"
    body = {
        "out_seat": 0,
        "entries": [{"seat": 0, "cards": ["AH", "2H", "3H"]}, {"seat": 1, "points": 9}],
    }
    entered = second.put(f"{path}/rounds/1", json=body, headers=auth)
    assert entered.status_code == 200, entered.text
    read = first.get(path).json()
    assert read == entered.json()
    assert read["totals"] == [0, 9]
    assert read["version"] == 1


class InterleavingStore:
    """A memory sheet store whose loads yield to the event loop, so that two writers both load
    the same version before either commits: the race a compare-and-set has to settle."""

    def __init__(self) -> None:
        self.inner = MemorySheetStore(ttl=DAY)
        self.lost_commits = 0

    async def create(
        self, sheet_id: str, record: bytes, *, idempotency: tuple[str, bytes] | None = None
    ) -> None:
        await self.inner.create(sheet_id, record, idempotency=idempotency)

    async def load(self, sheet_id: str) -> StoredSheet | None:
        loaded = await self.inner.load(sheet_id)
        await asyncio.sleep(0)
        return loaded

    async def commit(
        self,
        sheet_id: str,
        expected_version: int,
        record: bytes,
        *,
        idempotency: tuple[str, bytes] | None = None,
    ) -> bool:
        committed = await self.inner.commit(
            sheet_id, expected_version, record, idempotency=idempotency
        )
        self.lost_commits += not committed
        return committed

    async def recall(self, sheet_id: str, key: str) -> bytes | None:
        return await self.inner.recall(sheet_id, key)


def test_two_writers_at_once_both_land() -> None:
    """Two corrections of different rounds, both loaded at the same version: the one whose
    commit loses enters its round again on the newer sheet, so neither is lost."""
    run(_two_writers())


async def _two_writers() -> None:
    store = InterleavingStore()
    answer = await scoresheets.create_sheet(
        store, sheet_wire.CreateSheetRequest(players=["Ann", "Bob"], first_dealer=0)
    )
    created = msgspec.json.decode(answer.body, type=sheet_wire.SheetCreated)

    async def enter(round_number: int, request: sheet_wire.EnterRoundRequest) -> None:
        editor = await scoresheets.load_sheet(store, created.sheet_id)
        editor.check_token(created.edit_token)
        await scoresheets.enter_round(store, scoresheets.SheetEditor(editor), round_number, request)

    def points(a: int, b: int) -> sheet_wire.EnterRoundRequest:
        return sheet_wire.EnterRoundRequest(
            entries=[sheet_wire.EntryIn(seat=0, points=a), sheet_wire.EntryIn(seat=1, points=b)]
        )

    for r in (1, 2):
        await enter(r, points(1, 1))
    await asyncio.gather(enter(1, points(10, 0)), enter(2, points(0, 20)))
    assert store.lost_commits >= 1, "the writers did race"
    final = await scoresheets.load_sheet(store, created.sheet_id)
    assert final.sheet.totals == (10, 20)
    assert final.version == 4


def test_memory_store_forgets_expired_sheets_when_it_creates() -> None:
    async def check() -> None:
        clock = ManualClock()
        store = MemorySheetStore(ttl=0.05, clock=clock)
        await store.create("old", b"x")
        clock.advance(0.1)
        await store.create("new", b"y")
        assert "old" not in store._sheets  # the memory it holds is the point

    run(check())


def test_memory_store_holds_at_most_max_sheets_and_frees_room_as_they_expire() -> None:
    """Issue 32, finding 8: sheets in memory had no cap."""

    async def check() -> None:
        clock = ManualClock()
        store = MemorySheetStore(ttl=0.05, max_sheets=2, clock=clock)
        await store.create("a", b"x")
        await store.create("b", b"x")
        with pytest.raises(StoreFull):
            await store.create("c", b"x")
        assert len(store) == 2
        clock.advance(0.1)
        assert await store.load("a") is None  # expired, by the store's own clock
        await store.create("c", b"x")
        assert len(store) == 1

    run(check())


def test_a_full_memory_store_answers_a_new_sheet_503() -> None:
    app = create_app(Settings(max_sheets=1))
    with TestClient(app) as client:
        body = {"players": ["a", "b"]}
        assert client.post("/v1/scoresheets", json=body).status_code == 201
        refused = client.post("/v1/scoresheets", json=body)
        assert_problem(refused, 503, "store-full")

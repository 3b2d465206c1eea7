"""The tables' storage on every store (in memory, a single Redis, a three-master Redis Cluster):
the invite-code and lobby indexes, and claims racing through the store's compare-and-set.

The claims run the service's own flow (``service.tables.seating``) on the store of each kind, many
at once in one event loop: the store's atomic commit is what lets exactly one take the last seat.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import pytest
import redis
from litestar.channels import ChannelsPlugin
from litestar.channels.backends.memory import MemoryChannelsBackend

from service.app.services import Services
from service.bots.tasks import BotTasks
from service.games.decoded_cache import DecodedGames
from service.games.wire import CreateGameRequest, GameCreated, PlayerIn
from service.http.client_address import TrustedProxies
from service.http.problems import TableFull
from service.settings import Settings
from service.sheets.store import MemorySheetStore
from service.storage.game_store import Store
from service.streams.limits import StreamSlots
from service.tables import creation, seating
from service.tables.index import TableIndex
from service.tables.wire import ClaimRequest, SeatClaimed
from service.workers.pool import WorkerPool
from tests.service.storage.test_store import DAY, StoreKind, beside, new_id, run, store_kind

__all__ = ["store_kind"]  # the fixture, shared with the store suite

TableTest = Callable[[Store, TableIndex], Awaitable[None]]


def indexed(store_kind: StoreKind, check: TableTest, *, game_ttl: float = DAY) -> None:
    async def go() -> None:
        store = store_kind.make(game_ttl=game_ttl)
        try:
            await check(store, beside(store, Settings(game_ttl=game_ttl)).tables)
        finally:
            await store.close()

    run(go())


def test_a_code_is_reserved_once_and_resolves_to_its_game(store_kind: StoreKind) -> None:
    async def check(_: Store, index: TableIndex) -> None:
        first, second = new_id(), new_id()
        code = f"K{new_id()[:5].upper()}"
        assert await index.game_of_code(code) is None
        assert await index.reserve_code(code, first)
        assert not await index.reserve_code(code, second)
        assert await index.game_of_code(code) == first

    indexed(store_kind, check)


def test_codes_expire_with_their_table_or_when_kept_shorter(store_kind: StoreKind) -> None:
    async def check(_: Store, index: TableIndex) -> None:
        lapsing, shortened, kept = (f"{n}{new_id()[:5]}" for n in "ABC")
        for code in (lapsing, shortened, kept):
            assert await index.reserve_code(code, new_id())
        await index.keep_code(shortened, 0.1)
        await index.keep_code(kept, DAY)
        await store_kind.elapse(0.2)
        assert await index.game_of_code(shortened) is None
        await store_kind.elapse(0.5)
        assert await index.game_of_code(lapsing) is None
        assert await index.game_of_code(kept) is not None
        assert await index.reserve_code(lapsing, new_id())  # free again

    indexed(store_kind, check, game_ttl=0.6)


def test_the_lobby_lists_newest_first_updates_and_forgets(store_kind: StoreKind) -> None:
    async def check(_: Store, index: TableIndex) -> None:
        games = [new_id() for _ in range(3)]
        for game_id in games:
            await index.list_table(game_id, f'{{"g":"{game_id}"}}'.encode())
            await store_kind.elapse(0.002)  # distinct expiry times, on Redis's millisecond clock
        assert await index.listed() == [f'{{"g":"{g}"}}'.encode() for g in games[::-1]]
        await index.list_table(games[0], b'{"g":"updated"}')
        assert (await index.listed())[0] == b'{"g":"updated"}'
        await index.unlist_table(games[1])
        assert len(await index.listed()) == 2
        assert len(await index.listed(limit=1)) == 1

    indexed(store_kind, check)


def test_lobby_entries_expire_and_leave_no_key_behind(
    store_kind: StoreKind, request: pytest.FixtureRequest, key_prefix: str
) -> None:
    async def check(_: Store, index: TableIndex) -> None:
        await index.list_table(new_id(), b"{}")
        await index.list_table(new_id(), b"{}")
        assert len(await index.listed()) == 2
        await store_kind.elapse(0.5)
        assert await index.listed() == []

    indexed(store_kind, check, game_ttl=0.3)
    if store_kind.name != "memory":
        cluster = store_kind.name == "cluster"
        url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
        client: Any = redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
        with client:
            pattern = f"{key_prefix}:*"
            if cluster:
                keys = list(client.scan_iter(match=pattern, target_nodes="primaries"))
            else:
                keys = list(client.scan_iter(match=pattern))
        assert keys == []


@asynccontextmanager
async def services_on(
    store: Store, index: TableIndex, game_ttl: float = DAY
) -> AsyncIterator[Services]:
    """What the app's handlers get, on this store and index, with the app's own channels."""
    channels = ChannelsPlugin(backend=MemoryChannelsBackend(), arbitrary_channels_allowed=True)
    await channels._on_startup()  # what the app's startup does for its plugin
    try:
        yield Services(
            settings=Settings(game_ttl=game_ttl),
            store=store,
            store_kind="memory",
            channels=channels,
            decoded=DecodedGames(),
            analyses=WorkerPool(processes=1, queue=1),
            streams=StreamSlots(per_instance=8, per_client=8),
            proxies=TrustedProxies(()),
            tables=index,
            sheets=MemorySheetStore(ttl=game_ttl),
            due=beside(store).due,
            bots=BotTasks(WorkerPool(processes=1, queue=1)),
        )
    finally:
        await channels._on_shutdown()


async def create(services: Services, request: CreateGameRequest) -> GameCreated:
    """``creation.create``'s answer, as its client reads it."""
    answer = await creation.create(services, request)
    return msgspec.json.decode(answer.body, type=GameCreated)


async def claim(services: Services, code: str, name: str) -> SeatClaimed:
    answer = await seating.claim(services, code, ClaimRequest(name=name))
    return msgspec.json.decode(answer.body, type=SeatClaimed)


def open_table(seats: int, *, listed: bool = True) -> CreateGameRequest:
    players = [PlayerIn(name="host")] + [PlayerIn(open=True)] * (seats - 1)
    return CreateGameRequest(players=players, listed=listed)


def test_sixteen_claims_for_the_last_seat_seat_exactly_one(store_kind: StoreKind) -> None:
    async def check(store: Store, index: TableIndex) -> None:
        async with services_on(store, index) as services:
            for _ in range(3):
                created = await create(services, open_table(3))
                code = created.invite_code
                assert code is not None
                first = await claim(services, code, "early")
                assert first.view.status == "waiting"
                outcomes = await asyncio.gather(
                    *(claim(services, code, f"racer{n}") for n in range(16)),
                    return_exceptions=True,
                )
                won = [o for o in outcomes if isinstance(o, SeatClaimed)]
                lost = [o for o in outcomes if isinstance(o, TableFull)]
                assert (len(won), len(lost)) == (1, 15), outcomes
                assert won[0].seat == 2
                assert won[0].view.status == "playing"
                assert created.game_id not in [
                    t.game_id for t in (await seating.lobby(services)).tables
                ]

    indexed(store_kind, check)


def test_claims_for_several_open_seats_fill_each_seat_once(store_kind: StoreKind) -> None:
    """Twelve people claim the five open seats of one table at once: five are seated, in five
    different seats, and the table is dealt; nobody's claim is lost to a race it could win."""

    async def check(store: Store, index: TableIndex) -> None:
        async with services_on(store, index) as services:
            created = await create(services, open_table(6))
            assert created.invite_code is not None
            outcomes = await asyncio.gather(
                *(claim(services, created.invite_code, f"p{n}") for n in range(12)),
                return_exceptions=True,
            )
            won = [o for o in outcomes if isinstance(o, SeatClaimed)]
            assert sorted(o.seat for o in won) == [1, 2, 3, 4, 5]
            assert all(isinstance(o, TableFull) for o in outcomes if o not in won)
            stored = await store.load(created.game_id)
            assert stored is not None
            record = msgspec.msgpack.decode(stored.record)
            assert record[3] is None  # dealt: no seating left in the record

    indexed(store_kind, check)


def test_a_listed_table_shows_in_the_lobby_of_every_store_user(store_kind: StoreKind) -> None:
    """On Redis, a second store and index (another instance's) see the same lobby and codes."""

    async def check(store: Store, index: TableIndex) -> None:
        shared = store_kind.name == "memory"  # one process: one store, one index
        second = store if shared else store_kind.make()
        second_index = index if shared else beside(second, Settings(game_ttl=DAY)).tables
        async with services_on(store, index) as one, services_on(second, second_index) as other:
            created = await create(one, open_table(3))
            seen = [t.game_id for t in (await seating.lobby(other)).tables]
            assert created.game_id in seen
            assert created.invite_code is not None
            await claim(other, created.invite_code, "x")
            (entry,) = [
                t for t in (await seating.lobby(one)).tables if t.game_id == created.game_id
            ]
            assert (entry.seats_taken, entry.seats_open) == (2, 1)
        if not shared:
            await second.close()

    indexed(store_kind, check)


def test_a_waiting_table_expires_like_a_game(store_kind: StoreKind) -> None:
    async def check(store: Store, index: TableIndex) -> None:
        async with services_on(store, index, game_ttl=0.3) as services:
            created = await create(services, open_table(2))
            await store_kind.elapse(0.45)  # the game's TTL: Redis's clock, or the memory store's
            assert await store.load(created.game_id) is None
            assert (await seating.lobby(services)).tables == []

    indexed(store_kind, check, game_ttl=0.3)

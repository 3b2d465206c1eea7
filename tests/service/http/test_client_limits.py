"""Limits per client address: open event streams (429 past a client's share, 503 past the
instance's) and rate limits on the routes that need no token (429 with Retry-After and the
RateLimit headers), the address taken from X-Forwarded-For only behind a trusted proxy."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx
import pytest
from litestar import Litestar, Request
from litestar.stores.memory import MemoryStore
from litestar.testing import TestClient

from service.app import create_app
from service.http.client_address import TrustedProxies
from service.http.rate_limits import STORE_NAME
from service.http.route_policy import Limit, declares_limits, limits_of
from service.settings import Settings
from service.tables import invite_codes
from tests.service.games.test_games_api import assert_problem
from tests.waiting import WAIT_SECONDS, eventually_async

TWO = {"players": [{"name": "a"}, {"name": "b"}]}


async def _open_streams(
    url: str, game_id: str, count: int, headers: dict[str, str] | None = None
) -> tuple[list[int], list[httpx.Response], contextlib.AsyncExitStack]:
    """Open ``count`` streams at once; the statuses, the refusals (read whole), and the open
    ones' stack (closing it closes them)."""
    stack = contextlib.AsyncExitStack()
    client = await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=WAIT_SECONDS))
    statuses: list[int] = []
    refused: list[httpx.Response] = []
    for _ in range(count):
        response = await stack.enter_async_context(
            client.stream("GET", f"/v1/games/{game_id}/events", headers=headers)
        )
        statuses.append(response.status_code)
        if response.status_code != 200:
            await response.aread()
            refused.append(response)
    return statuses, refused, stack


def test_streams_past_a_clients_share_are_refused_429_and_freed_when_closed(
    live_server_for: Callable[[Litestar], str],
) -> None:
    app = create_app(Settings(max_streams_per_client=3, max_streams=100))
    url = live_server_for(app)

    async def scenario() -> tuple[list[int], list[httpx.Response], list[int]]:
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_SECONDS) as client:
            game_id = (await client.post("/v1/games", json=TWO)).json()["game_id"]
        statuses, refused, stack = await _open_streams(url, game_id, 5)
        await stack.aclose()
        # The server sees the disconnections.
        streams = app.state["services"].streams
        await eventually_async(lambda: not streams.open, "the closed streams' slots to be freed")
        again, _, stack = await _open_streams(url, game_id, 3)
        await stack.aclose()
        return statuses, refused, again

    statuses, refused, again = asyncio.run(scenario())
    assert statuses == [200, 200, 200, 429, 429]
    for response in refused:
        assert_problem(response, 429, "too-many-streams")
        assert int(response.headers["retry-after"]) > 0
    assert again == [200, 200, 200]


def test_streams_past_the_instances_bound_are_refused_503(
    live_server_for: Callable[[Litestar], str],
) -> None:
    app = create_app(Settings(max_streams_per_client=10, max_streams=2))
    url = live_server_for(app)

    async def scenario() -> tuple[list[int], list[httpx.Response]]:
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_SECONDS) as client:
            game_id = (await client.post("/v1/games", json=TWO)).json()["game_id"]
        statuses, refused, stack = await _open_streams(url, game_id, 3)
        await stack.aclose()
        return statuses, refused

    statuses, refused = asyncio.run(scenario())
    assert statuses == [200, 200, 503]
    assert_problem(refused[0], 503, "streams-full")
    assert int(refused[0].headers["retry-after"]) > 0


def test_rate_limits_refuse_429_with_retry_after_on_every_costly_route() -> None:
    app = create_app(Settings(rate_limit_per_minute=4))
    with TestClient(app) as client:
        created = [client.post("/v1/games", json=TWO) for _ in range(2)]
        assert [r.status_code for r in created] == [201, 201]
        assert created[0].headers["ratelimit-limit"] == "4"
        assert [r.headers["ratelimit-remaining"] for r in created] == ["3", "2"]
        game = created[0].json()
        # A seat's actions are not limited: one seat acts at a time, the game bounds them.
        token = game["seats"][game["view"]["turn"]]["token"]
        for _ in range(3):
            action = client.post(
                f"/v1/games/{game['game_id']}/actions",
                json={"type": "draw", "source": "stock"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert action.status_code in (200, 409)
            assert "ratelimit-limit" not in action.headers
        # The views and the lobby are, though they only read.
        assert client.get(f"/v1/games/{game['game_id']}").status_code == 200
        assert client.get("/v1/tables").status_code == 200
        refused = client.get(f"/v1/games/{game['game_id']}/log")
        body = assert_problem(refused, 429, "too-many-requests")
        assert "4 requests a minute" in body["detail"]
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert refused.headers["ratelimit-remaining"] == "0"
        assert client.post("/v1/analyse", json={"hand": ["4H"], "wild": "8"}).status_code == 429
        assert client.get("/healthz").status_code == 200


UNLIMITED_OPERATIONS = {"applyAction", "listRules", "healthz", "readyz", "metrics"}
"""A seat's actions (the game bounds them), the static rule presets and the probes."""


def test_every_operation_that_costs_work_is_rate_limited(client: TestClient[Litestar]) -> None:
    """Every route of the document says which limits count its calls (its ``opt``): a new
    route that said nothing would be unlimited, silently. Only the exempt count against none;
    what the service keeps counts against the daily quota, invite codes against theirs."""
    document = client.get("/schema/openapi.json").json()
    served = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    handlers = {
        handler.operation_id: handler
        for route in client.app.routes
        for handler in route.route_handlers
        if handler.operation_id in served
    }
    assert set(handlers) == served
    assert {op for op, handler in handlers.items() if not declares_limits(handler)} == set()
    limits = {op: limits_of(handler) for op, handler in handlers.items()}
    assert {op for op, counted in limits.items() if not counted} == UNLIMITED_OPERATIONS
    assert {op for op, counted in limits.items() if Limit.CREATIONS in counted} == {
        "createChallenge",
        "createGame",
        "createPlayer",
        "createScoreSheet",
        "createTournament",
        "importRecord",
        "rematchGame",
    }
    assert {op for op, counted in limits.items() if Limit.CLAIMS in counted} == {"claimInvite"}
    assert {op for op, counted in limits.items() if Limit.INVITATIONS in counted} == {
        "createChallenge",
        "createSeek",
        "createTournament",
    }
    assert all(Limit.PER_MINUTE in counted for counted in limits.values() if counted)


def test_challenges_and_seeks_are_limited_per_player_not_only_per_address() -> None:
    """Two players behind one address: the first one's invitations past the hour's count are
    refused, naming the player; the second still makes theirs."""
    app = create_app(Settings(invitations_per_hour=2))
    with TestClient(app) as client:
        ann, bob = (client.post("/v1/players", json={"name": n}).json() for n in ("Ann", "Bob"))
        ann_auth = {"Authorization": f"Bearer {ann['key']}"}
        made = [
            client.post("/v1/seeks", json={"players": 3}, headers=ann_auth),
            client.post("/v1/challenges", json={}, headers=ann_auth),
            client.post("/v1/seeks", json={"players": 4}, headers=ann_auth),
        ]
        assert [r.status_code for r in made] == [201, 201, 429]
        assert "by this player" in made[2].json()["detail"]
        assert made[2].headers["Retry-After"]
        bob_auth = {"Authorization": f"Bearer {bob['key']}"}
        assert client.post("/v1/seeks", json={}, headers=bob_auth).status_code == 201


def test_a_join_by_invite_code_is_rate_limited() -> None:
    app = create_app(Settings(rate_limit_per_minute=2))
    with TestClient(app) as client:
        claims = [client.post("/v1/invites/FFFFFF", json={"name": "Bo"}) for _ in range(3)]
        assert [r.status_code for r in claims] == [404, 404, 429]


def test_guessing_one_of_10000_waiting_tables_codes_takes_an_address_more_than_a_year() -> None:
    """Finding 1 of issue 32: six symbols and no daily quota were guessed in 30 s."""
    tries_for_one_seat = len(invite_codes.ALPHABET) ** invite_codes.LENGTH / 10_000
    assert tries_for_one_seat / Settings().claims_per_day > 365


def test_invite_codes_tried_past_the_daily_quota_are_refused_found_or_not() -> None:
    app = create_app(Settings(rate_limit_per_minute=1000, claims_per_day=3))
    with TestClient(app) as client:
        table = client.post("/v1/games", json={"players": [{"name": "a"}, {"open": True}]})
        code = table.json()["invite_code"]
        assert len(code) == invite_codes.LENGTH
        tries = [client.post(f"/v1/invites/{c}", json={"name": "Bo"}) for c in ("F" * 8,) * 3]
        assert [r.status_code for r in tries] == [404, 404, 404]
        refused = client.post(f"/v1/invites/{code}", json={"name": "Bo"})
        body = assert_problem(refused, 429, "too-many-requests")
        assert "3 invite codes tried a day" in body["detail"]
        assert 3600 < int(refused.headers["retry-after"]) <= 86400
        assert client.get(f"/v1/games/{table.json()['game_id']}").json()["status"] == "waiting"


def test_limits_are_on_out_of_the_box_and_0_turns_them_off() -> None:
    assert Settings().rate_limit_per_minute > 0
    assert Settings().creations_per_day > 0
    with TestClient(create_app(Settings())) as client:
        response = client.post("/v1/games", json=TWO)
        assert response.headers["ratelimit-limit"] == str(Settings().rate_limit_per_minute)
    with TestClient(create_app(Settings(rate_limit_per_minute=0))) as client:
        responses = [client.post("/v1/games", json=TWO) for _ in range(30)]
        assert {r.status_code for r in responses} == {201}
        assert "w=60" not in responses[0].headers["ratelimit-policy"]  # the daily quota's


def test_a_client_may_create_its_daily_quota_of_games_and_sheets_and_no_more() -> None:
    """Finding 3 of issue 32: one client filled the store's cap (200,000 games) at 441 a second;
    now it meets its quota long before."""
    app = create_app(Settings(rate_limit_per_minute=1000, creations_per_day=3))
    sheet = {"players": ["a", "b"]}
    with TestClient(app) as client:
        made = [client.post("/v1/games", json=TWO).status_code for _ in range(2)]
        made.append(client.post("/v1/scoresheets", json=sheet).status_code)
        assert made == [201, 201, 201]
        refused = client.post("/v1/games", json=TWO)
        body = assert_problem(refused, 429, "too-many-requests")
        assert "3 games, tables and score sheets created a day" in body["detail"]
        assert 3600 < int(refused.headers["retry-after"]) <= 86400
        assert client.post("/v1/scoresheets", json=sheet).status_code == 429
        assert client.get("/v1/tables").status_code == 200  # reads go on


def _request(peer: str, forwarded: str | None) -> Request[Any, Any, Any]:
    headers = [] if forwarded is None else [(b"x-forwarded-for", forwarded.encode())]
    scope: Any = {"type": "http", "client": (peer, 5000), "headers": headers}
    return Request(scope)


@pytest.mark.parametrize(
    ("trusted", "peer", "forwarded", "client"),
    [
        ((), "203.0.113.9", "198.51.100.1", "203.0.113.9"),
        (("10.0.0.0/8",), "203.0.113.9", "198.51.100.1", "203.0.113.9"),
        (("10.0.0.0/8",), "10.1.2.3", "198.51.100.1", "198.51.100.1"),
        (("10.0.0.0/8",), "10.1.2.3", "6.6.6.6, 198.51.100.1, 10.9.9.9", "198.51.100.1"),
        (("10.0.0.0/8",), "10.1.2.3", None, "10.1.2.3"),
        (("10.0.0.0/8", "::1"), "::1", "2001:db8::7", "2001:db8::7"),
    ],
    ids=["no-proxy", "untrusted-peer", "trusted", "spoofed-left", "no-header", "ipv6"],
)
def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(
    trusted: tuple[str, ...], peer: str, forwarded: str | None, client: str
) -> None:
    assert TrustedProxies(trusted).client_of(_request(peer, forwarded)) == client


class _HeldStore(MemoryStore):
    """The limits' store, holding one client's count read until the test lets it go."""

    def __init__(self, held_client: str) -> None:
        super().__init__()
        self.held_client = held_client
        self.holding = threading.Event()
        self.released = threading.Event()

    async def get(self, key: str, renew_for: int | timedelta | None = None) -> bytes | None:
        if self.held_client in key and not self.released.is_set():
            self.holding.set()
            # Released from the test's thread.
            await eventually_async(self.released.is_set, "the test to release the held client")
        return await super().get(key, renew_for)


def test_a_clients_count_never_waits_for_another_clients(
    live_server_for: Callable[[Litestar], str],
) -> None:
    """Litestar's limit counts every client under one lock per process: a client whose count
    was slow to read held up every other's limited request."""
    app = create_app(Settings(rate_limit_per_minute=100, trusted_proxies=("127.0.0.1",)))
    store = _HeldStore(held_client="198.18.0.1")
    app.stores.register(STORE_NAME, store, allow_override=True)
    url = live_server_for(app)

    def lobby(client: str) -> httpx.Response:
        return httpx.get(f"{url}/v1/tables", headers={"X-Forwarded-For": client}, timeout=60)

    with ThreadPoolExecutor(max_workers=1) as background:
        held = background.submit(lobby, "198.18.0.1")
        assert store.holding.wait(timeout=60)
        other = lobby("198.18.0.2")  # answered while the first client's count is held
        assert other.status_code == 200, other.text
        assert other.headers["ratelimit-remaining"] == "99"
        assert not held.done()
        store.released.set()
        assert held.result(timeout=60).status_code == 200


class _CountingStore(MemoryStore):
    """The limits' store, remembering each key it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    async def get(self, key: str, renew_for: int | timedelta | None = None) -> bytes | None:
        self.read.append(key)
        await asyncio.sleep(0)  # another request's count may run here
        return await super().get(key, renew_for)


def test_one_middleware_counts_each_declared_limit_once_and_no_other_route_reads_the_store(
    live_server_for: Callable[[Litestar], str],
) -> None:
    """A route that declares no limit costs no look at the store; a creation counts once
    against the rate and once against the day's quota; one client's requests on several routes
    at once lose no count (its counts are locked per client, not per route)."""
    app = create_app(Settings(rate_limit_per_minute=100, creations_per_day=50))
    store = _CountingStore()
    app.stores.register(STORE_NAME, store, allow_override=True)
    url = live_server_for(app)
    with httpx.Client(base_url=url, timeout=WAIT_SECONDS) as client:
        for path in ("/healthz", "/v1/rules"):
            assert client.get(path).status_code == 200
        assert store.read == []
        assert client.post("/v1/games", json=TWO).status_code == 201
        assert sorted(store.read) == ["limit:creations:127.0.0.1", "limit:per_minute:127.0.0.1"]

    async def at_once() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_SECONDS) as client:
            paths = ["/v1/tables", "/v1/challenges", "/v1/tournaments"] * 10
            return await asyncio.gather(*(client.get(path) for path in paths))

    answers = asyncio.run(at_once())
    assert [a.status_code for a in answers] == [200] * 30
    remaining = sorted(int(a.headers["ratelimit-remaining"]) for a in answers)
    assert remaining == list(range(69, 99))  # 100, less the creation and these 30, each once

"""Several real service processes (``python -m service``) on one Redis: races, retries, events and
faults across instances, over HTTP.

Each module-level fixture runs its own append-only redis-server, so tests can kill it without
touching the machine's Redis.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.app.backends import build_backends
from service.settings import Settings
from service.streams.redis_channels import GameEventsBackend
from tests.redis_servers import (
    LIMITS_OFF,
    HttpResponse,
    LeanHttpClient,
    RedisServer,
    ServiceInstance,
    redis_server_installed,
)
from tests.waiting import WAIT_SECONDS, eventually_async

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = [
    pytest.mark.xdist_group("test_redis_instances"),
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]

Json = dict[str, Any]


@dataclass
class Deployment:
    redis: RedisServer
    instances: list[ServiceInstance]

    @property
    def urls(self) -> list[str]:
        return [instance.url for instance in self.instances]


"""These tests race many clients from one address (127.0.0.1) through the instances: the
per-client limits (tested in tests/service/http/test_client_limits.py) would refuse them."""


STREAM_LIFETIME = "3600"
"""The instances' streams live as long as the idle timeout allows: a stream that sees an action
within its idle timeout was woken by a notice, not reconnected, however long a busy machine
takes (a test's idle timeout, far above its wait, says so)."""


def deploy(directory: Path, count: int) -> Deployment:
    redis = RedisServer(directory / "redis", appendonly=True).start()
    instances: list[ServiceInstance] = []
    try:
        for number in range(count):
            instance = ServiceInstance(
                directory / f"service{number}.log",
                env={"REDIS_URL": redis.url, "STREAM_LIFETIME": STREAM_LIFETIME, **LIMITS_OFF},
            )
            instances.append(instance.start())
    except BaseException:
        for instance in instances:
            instance.kill()
        redis.kill()
        raise
    return Deployment(redis, instances)


def reads_failed(instance: ServiceInstance) -> int:
    """How often ``instance`` has logged failing to read the event notices (it retries)."""
    return instance.log_file.read_text(errors="replace").count("cannot read event notices")


def tear_down(deployment: Deployment) -> None:
    for instance in deployment.instances:
        instance.stop()
    deployment.redis.stop()


@pytest.fixture(scope="module")
def two_instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    deployment = deploy(tmp_path_factory.mktemp("two-instances"), 2)
    yield deployment
    tear_down(deployment)


@dataclass
class Game:
    game_id: str
    tokens: dict[int, str]

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}


async def create_game(client: LeanHttpClient, players: int = 2) -> Game:
    response = await client.post(
        "/v1/games", {"players": [{"name": f"p{n}"} for n in range(players)]}
    )
    assert response.status == 201, response.body
    created = response.json()
    return Game(created["game_id"], {s["seat"]: s["token"] for s in created["seats"]})


async def seat_view(client: LeanHttpClient, game: Game, seat: int | None) -> Json:
    response = await client.get(
        f"/v1/games/{game.game_id}", {} if seat is None else game.auth(seat)
    )
    assert response.status == 200, response.body
    view: Json = response.json()
    return view


async def view_of_turn(client: LeanHttpClient, game: Game) -> Json:
    public = await seat_view(client, game, None)
    return await seat_view(client, game, public["turn"])


def a_legal_action(view: Json, choice: int = 0) -> Json:
    """An action the seat on turn may take: draw from the stock, or discard one of its cards."""
    if view["phase"] == "draw":
        return {"type": "draw", "source": "stock"}
    hand = view["hand"]
    return {"type": "discard", "card": hand[choice % len(hand)]}


async def act(
    client: LeanHttpClient, game: Game, seat: int, body: Json, *, key: str | None = None
) -> HttpResponse:
    headers = game.auth(seat) | ({} if key is None else {"Idempotency-Key": key})
    return await client.post(f"/v1/games/{game.game_id}/actions", body, headers)


async def play_one(client: LeanHttpClient, game: Game) -> Json:
    view = await view_of_turn(client, game)
    response = await act(client, game, view["turn"], a_legal_action(view))
    assert response.status == 200, response.body
    played: Json = response.json()
    return played


async def game_log(client: LeanHttpClient, game: Game) -> Json:
    response = await client.get(f"/v1/games/{game.game_id}/log")
    assert response.status == 200, response.body
    log: Json = response.json()
    return log


def run(coroutine: Any) -> None:
    asyncio.run(coroutine)


async def with_clients(deployment: Deployment, test: Any) -> None:
    """Run ``test(first, second, ...)`` with one lean client per instance."""
    clients = [LeanHttpClient(url) for url in deployment.urls]
    try:
        await test(*clients)
    finally:
        for client in clients:
            await client.close()


# --- races -------------------------------------------------------------------------------------

RACERS = 50
ROUNDS = 200


def test_fifty_clients_racing_on_two_instances_apply_exactly_one_action_per_version(
    two_instances: Deployment,
) -> None:
    """200 times in a row, 50 clients (25 per instance) send the seat on turn's action with the
    same expected_version: a draw, or each its own discard. Exactly one is applied (200), the
    others answer 409, and the game's log holds exactly the winners' actions, in order."""

    async def race(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        winners: list[Json] = []
        for number in range(ROUNDS):
            view = await view_of_turn((first, second)[number % 2], game)
            assert view["version"] == number
            bodies = [
                a_legal_action(view, choice=racer) | {"expected_version": number}
                for racer in range(RACERS)
            ]
            responses = await asyncio.gather(
                *(
                    act((first, second)[racer % 2], game, view["turn"], body)
                    for racer, body in enumerate(bodies)
                )
            )
            statuses = [r.status for r in responses]
            losers = {r.body for r in responses if r.status != 200}
            assert statuses.count(200) == 1, (number, view, losers)
            assert statuses.count(409) == RACERS - 1, (number, view, losers)
            winner = statuses.index(200)
            assert responses[winner].json()["version"] == number + 1
            winners.append(bodies[winner])

        log = await game_log(second, game)
        assert log["version"] == ROUNDS
        assert [entry["version"] for entry in log["entries"]] == list(range(1, ROUNDS + 1))
        for entry, body in zip(log["entries"], winners, strict=True):
            assert entry["action"]["type"] == body["type"]
            if body["type"] == "discard":  # discards are public: the winner's card, no other
                assert entry["card"] == body["card"]

    run(with_clients(two_instances, race))


# --- idempotency -------------------------------------------------------------------------------


def test_an_idempotent_retry_on_the_other_instance_returns_the_first_response(
    two_instances: Deployment,
) -> None:
    async def retry(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        view = await view_of_turn(first, game)
        body = a_legal_action(view)
        original = await act(first, game, view["turn"], body, key="retry-1")
        assert original.status == 200
        retried = await act(second, game, view["turn"], body, key="retry-1")
        assert retried.status == 200
        assert retried.body == original.body
        assert (await seat_view(second, game, None))["version"] == 1
        assert len((await game_log(second, game))["entries"]) == 1

    run(with_clients(two_instances, retry))


def test_the_same_keyed_request_sent_to_both_instances_at_once_applies_once(
    two_instances: Deployment,
) -> None:
    """A client that gives up waiting and retries on another instance while its first attempt is
    still running: both get the same 200 response and the action is applied once, 20 times over."""

    async def both(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        for number in range(20):
            view = await view_of_turn(second, game)
            body = a_legal_action(view)
            key = f"twice-{number}"
            responses = await asyncio.gather(
                act(first, game, view["turn"], body, key=key),
                act(second, game, view["turn"], body, key=key),
            )
            assert [r.status for r in responses] == [200, 200]
            assert responses[0].body == responses[1].body
            assert responses[0].json()["version"] == number + 1
        assert (await seat_view(first, game, None))["version"] == 20

    run(with_clients(two_instances, both))


# --- events ------------------------------------------------------------------------------------


@dataclass
class Event:
    id: int | None
    event: str
    data: Json


async def read_events(response: httpx.Response) -> AsyncIterator[Event]:
    """The server-sent events of a streaming response, as they arrive."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                raw_id = fields.get("id")
                yield Event(
                    int(raw_id) if raw_id else None,
                    fields.get("event", "message"),
                    json.loads(fields["data"]),
                )
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = fields.get(name, "") + value.removeprefix(" ")


async def stream_until(
    url: str, version: int, connected: asyncio.Event, headers: dict[str, str] | None = None
) -> list[Event]:
    """The events of the stream at ``url`` up to the action event of ``version``. Like a
    browser's EventSource, it reconnects with ``Last-Event-ID`` when the stream drops or ends."""
    events: list[Event] = []
    last_id: int | None = None
    async with httpx.AsyncClient(timeout=WAIT_SECONDS) as http:
        while True:
            resume = {} if last_id is None else {"Last-Event-ID": str(last_id)}
            try:
                async with http.stream("GET", url, headers=(headers or {}) | resume) as response:
                    if response.status_code == 200:
                        async for event in read_events(response):
                            connected.set()  # the stream has read the game: it is listening
                            events.append(event)
                            last_id = event.id if event.id is not None else last_id
                            if event.id == version and event.event == "action":
                                return events
                    else:
                        assert response.status_code == 503, response.status_code
            except (httpx.TransportError, httpx.RemoteProtocolError):
                pass  # dropped: reconnect, as EventSource does
            # EventSource's retry delay: the client's pacing between reconnections (a 503 comes
            # back at once), not a wait for anything.
            await asyncio.sleep(0.2)


async def listen(url: str, version: int) -> asyncio.Task[list[Event]]:
    """Start streaming ``url`` in the background; returns once its first event arrived."""
    connected = asyncio.Event()
    listener = asyncio.create_task(stream_until(url, version, connected))
    await asyncio.wait_for(connected.wait(), WAIT_SECONDS)
    return listener


def test_an_event_stream_on_one_instance_sees_actions_taken_on_another(
    two_instances: Deployment,
) -> None:
    first_url, second_url = two_instances.urls

    async def stream(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        listener = await listen(f"{second_url}/v1/games/{game.game_id}/events?idle_timeout=3600", 4)
        for _ in range(4):
            await play_one(first, game)
        # Within the idle timeout: notices woke it.
        events = await asyncio.wait_for(listener, WAIT_SECONDS)
        assert events[0].event == "snapshot"
        actions = [e for e in events if e.event == "action"]
        assert [e.id for e in actions] == [1, 2, 3, 4]
        assert [e.data["view"]["version"] for e in actions] == [1, 2, 3, 4]

        # Resuming on the first instance from event 2 replays 3 and 4, no snapshot.
        resumed = await asyncio.wait_for(
            stream_until(
                f"{first_url}/v1/games/{game.game_id}/events?idle_timeout=2",
                4,
                asyncio.Event(),
                headers={"Last-Event-ID": "2"},
            ),
            WAIT_SECONDS,
        )
        assert [(e.event, e.id) for e in resumed] == [("action", 3), ("action", 4)]

    run(with_clients(two_instances, stream))


# --- faults ------------------------------------------------------------------------------------


async def until_ready(client: LeanHttpClient) -> None:
    await eventually_async(
        lambda: client.get("/readyz"),
        f"port {client.port} to be ready",
        until=lambda response: response.status == 200,
    )


def test_with_redis_down_instances_answer_503_and_recover_without_restart(
    tmp_path: Path,
) -> None:
    deployment = deploy(tmp_path, 2)

    async def outage(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        await play_one(first, game)
        view = await view_of_turn(first, game)
        deployment.redis.kill()

        for client in (first, second):
            refused = await act(client, game, view["turn"], a_legal_action(view))
            assert refused.status == 503
            assert refused.headers["content-type"].startswith("application/problem+json")
            assert refused.json()["status"] == 503
            assert (await client.get("/readyz")).status == 503
            assert (await client.get(f"/v1/games/{game.game_id}")).status == 503
            created = await client.post("/v1/games", {"players": [{"name": "a"}, {"name": "b"}]})
            assert created.status == 503
            assert (await client.get("/healthz")).status == 200

        deployment.redis.start()
        for client in (first, second):
            await until_ready(client)
        # Nothing of the refused actions was applied; play goes on where it was.
        assert (await seat_view(second, game, None))["version"] == 1
        played = await act(second, game, view["turn"], a_legal_action(view))
        assert played.status == 200
        assert played.json()["version"] == 2

    try:
        run(with_clients(deployment, outage))
    finally:
        tear_down(deployment)


def test_the_app_reads_events_through_the_outage_proof_backend() -> None:
    """Litestar's stock Redis streams backend stops reading for good at the first Redis error
    (and polls every millisecond, and cannot read a cluster): the app must use ours."""
    settings = Settings(redis_url="redis://127.0.0.1:1/0")
    assert isinstance(build_backends(settings).channels, GameEventsBackend)


def test_event_streams_across_instances_recover_after_a_redis_outage(tmp_path: Path) -> None:
    """A stream open on one instance while Redis is down, and one opened after, both see the
    actions taken on the other instance once Redis is back (each reconnecting like EventSource)."""
    deployment = deploy(tmp_path, 2)

    async def outage(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        await play_one(first, game)
        events_url = f"{deployment.urls[0]}/v1/games/{game.game_id}/events?idle_timeout=3600"
        across_the_outage = await listen(events_url, 3)
        streaming = deployment.instances[0]
        failed = reads_failed(streaming)
        deployment.redis.kill()
        await eventually_async(
            lambda: reads_failed(streaming) >= failed + 2,
            "the instance with the open stream to fail to read events, and retry",
        )
        deployment.redis.start()
        for client in (first, second):
            await until_ready(client)
        await play_one(second, game)
        await play_one(second, game)
        events = await asyncio.wait_for(across_the_outage, WAIT_SECONDS)
        assert [e.id for e in events if e.event == "action"] == [2, 3]

        after_the_outage = await listen(events_url, 4)
        await play_one(second, game)
        events = await asyncio.wait_for(after_the_outage, WAIT_SECONDS)
        assert events[-1].id == 4

    try:
        run(with_clients(deployment, outage))
    finally:
        tear_down(deployment)


def test_every_game_is_intact_after_an_append_only_redis_restarts(tmp_path: Path) -> None:
    deployment = deploy(tmp_path, 2)

    async def restart(first: LeanHttpClient, second: LeanHttpClient) -> None:
        games = [await create_game(first, players=2 + n % 3) for n in range(12)]
        for number, game in enumerate(games):
            for _ in range(number % 5):
                await play_one((first, second)[number % 2], game)
        before = [await seat_view(first, game, 0) for game in games]
        deployment.redis.kill()
        deployment.redis.start()
        for client in (first, second):
            await until_ready(client)
        for game, seen in zip(games, before, strict=True):
            assert await seat_view(second, game, 0) == seen
            assert (await play_one(first, game))["version"] == seen["version"] + 1

    try:
        run(with_clients(deployment, restart))
    finally:
        tear_down(deployment)


def test_when_an_instance_is_killed_mid_game_the_other_carries_on(tmp_path: Path) -> None:
    deployment = deploy(tmp_path, 2)

    async def kill(first: LeanHttpClient, second: LeanHttpClient) -> None:
        game = await create_game(first)
        for _ in range(3):
            await play_one(first, game)
        view = await view_of_turn(first, game)
        in_flight = asyncio.gather(
            *(
                act(first, game, view["turn"], a_legal_action(view, n) | {"expected_version": 3})
                for n in range(20)
            ),
            return_exceptions=True,
        )
        # The kill's moment is the behaviour under test: any moment among the requests is one
        # the game must survive (asserted below); a short pause lands it while they are in flight.
        await asyncio.sleep(0.01)
        deployment.instances[0].kill()
        answered = [r for r in await in_flight if isinstance(r, HttpResponse)]
        assert sum(r.status == 200 for r in answered) <= 1
        # Whatever the dead instance did or did not finish, the game is whole on the other.
        current = await seat_view(second, game, None)
        assert current["version"] in (3, 4)
        assert len((await game_log(second, game))["entries"]) == current["version"]
        for _ in range(4):
            await play_one(second, game)
        assert (await seat_view(second, game, None))["version"] == current["version"] + 4

    try:
        run(with_clients(deployment, kill))
    finally:
        tear_down(deployment)

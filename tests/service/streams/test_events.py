"""``GET /v1/games/{id}/events``: a snapshot first, then one event per action carrying the viewer's
view at that version; ``Last-Event-ID`` resumes; the stream ends with the game or when idle."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.response import ServerSentEventMessage
from litestar.testing import TestClient

from engine.game.state import GameState
from service.app import create_app
from service.app.services import Services
from service.games.lifecycle import view_of
from service.games.records import GameRecord
from service.games.wire import GameView
from service.settings import Settings
from service.storage.channels import channel_of
from service.storage.game_store import StoreUnavailable
from service.streams import events as event_stream
from service.streams.wire import GameEvent
from tests.service.http_player import HttpGame
from tests.waiting import WAIT_SECONDS

Client = TestClient[Litestar]
Event = dict[str, Any]


def parse_events(text: str) -> list[Event]:
    """The events of a text/event-stream body: each with its id, event type and JSON data."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            fields[name] = value
        if "data" in fields:
            events.append(
                {
                    "id": int(fields["id"]),
                    "event": fields["event"],
                    "data": json.loads(fields["data"]),
                }
            )
    return events


def stream(game: HttpGame, seat: int | None, last_event_id: int | None = None) -> list[Event]:
    headers = game.auth(seat)
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    response = game.client.get(
        f"/v1/games/{game.game_id}/events", params={"idle_timeout": 0.05}, headers=headers
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return parse_events(response.text)


def test_a_stream_starts_with_a_snapshot_of_the_viewers_view(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=21)
    for seat in (None, 0, 1):
        events = stream(game, seat)
        assert [(e["event"], e["id"]) for e in events] == [("snapshot", 0)]
        assert events[0]["data"] == game.view(seat)


def test_resuming_replays_each_version_as_the_viewer_saw_it(client: Client) -> None:
    """Across round ends (new deals) in a game shuffled from the OS's random source, so the
    stream must take the game's recorded packs to step its copy forward."""
    game = HttpGame.create(client, 2, "classic")
    seen: dict[int, dict[int | None, Any]] = {}
    view = game.view()
    while view["round"] < 3:
        seat = view["turn"]
        drawn = game.act(seat, {"type": "draw", "source": "stock"})
        seen[drawn["version"]] = {s: game.view(s) for s in (None, 0, 1)}
        view = game.act(seat, game.best_discard(drawn))
        seen[view["version"]] = {s: game.view(s) for s in (None, 0, 1)}
    assert len(seen) == view["version"]
    for viewer in (None, 0, 1):
        events = stream(game, viewer, last_event_id=0)
        assert [e["id"] for e in events] == list(range(1, view["version"] + 1))
        for event in events:
            assert event["event"] == "action"
            assert event["data"]["version"] == event["id"] == event["data"]["entry"]["version"]
            assert event["data"]["view"] == seen[event["id"]][viewer]
        later = stream(game, viewer, last_event_id=view["version"] - 2)
        assert later == events[-2:]


def test_streams_of_one_game_and_viewer_render_each_event_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crowd resuming one game costs one catch-up: a stream takes the slices another stream
    of the game and viewer rendered, and one resumed between two slices' ends renders only up
    to the next; another viewer renders its own."""
    game = HttpGame.create(client, 2, "classic", seed=5)
    version = 0
    while version < 2 * event_stream.CATCH_UP_SLICE + 5:  # two slices' ends and then some
        version = game.play_turn()["version"]
    rendered: list[int | None] = []

    def counted(game_id: str, state: GameState, seat: int | None, record: GameRecord) -> GameView:
        rendered.append(seat)
        return view_of(game_id, state, seat, record)

    monkeypatch.setattr(event_stream, "view_of", counted)
    first = stream(game, None, last_event_id=0)
    assert [e["id"] for e in first] == list(range(1, version + 1))
    assert rendered == [None] * version
    assert stream(game, None, last_event_id=0) == first
    assert rendered == [None] * version
    assert stream(game, None, last_event_id=5) == first[5:]
    assert rendered == [None] * (version + event_stream.CATCH_UP_SLICE - 5)
    seated = stream(game, 0, last_event_id=0)
    assert [e["id"] for e in seated] == [e["id"] for e in first]
    assert rendered.count(0) == version


def test_a_catch_up_is_framed_byte_for_byte_as_litestar_frames_each_event(
    client: Client,
) -> None:
    """The stream frames its events itself (``_framed``): the same bytes as Litestar's
    ``ServerSentEventMessage.encode`` of each, for views with every kind of entry, but for its
    line ends (LF alone, where Litestar's are CR LF)."""
    game = HttpGame.create(client, 2, "classic", seed=4)
    while game.play_turn()["round"] < 3:  # rounds ended: results, scores, new deals
        pass
    response = client.get(
        f"/v1/games/{game.game_id}/events",
        params={"idle_timeout": 0},
        headers={"Last-Event-ID": "0"},
    )
    events = parse_events(response.text)
    assert len(events) > event_stream.CATCH_UP_SLICE  # more than one slice
    expected = b"".join(
        ServerSentEventMessage(
            data=msgspec.json.encode(msgspec.json.decode(json.dumps(e["data"]), type=GameEvent)),
            event="action",
            id=e["id"],
        ).encode()
        for e in events
    ).replace(b"\r\n", b"\n")
    assert b"\r" not in response.content
    assert response.content == f"retry: {event_stream.RETRY_MS}\n".encode() + expected


def test_a_stream_whose_store_is_out_of_reach_ends_rather_than_raise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis out of reach once the stream has begun (its 200 sent) ends the stream, as an idle
    one ends; raised, the error broke the connection mid-response, logged by the server."""

    async def scenario() -> None:
        app = create_app(Settings())
        services: Services = app.state["services"]
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # an ASGI app
        async with (
            app.lifespan(),
            httpx.AsyncClient(transport=transport, base_url="http://x") as http,
        ):
            body = {"players": [{"name": "a"}, {"name": "b"}]}
            game_id = (await http.post("/v1/games", json=body)).json()["game_id"]
            events = event_stream.game_events(
                services, game_id, None, None, idle_timeout=60, lifetime=60
            )
            assert (await anext(events)).event == "snapshot"
            waiting = asyncio.ensure_future(anext(events))  # for the next action
            await asyncio.sleep(0)

            async def unreachable(*_: object, **__: object) -> None:
                raise StoreUnavailable("Redis is out of reach")

            monkeypatch.setattr(services.store, "load", unreachable)
            services.channels.publish(b"1", channel_of(game_id))
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(waiting, timeout=60)

    asyncio.run(scenario())


def test_a_stream_ends_at_its_lifetime_however_far_off_its_idle_timeout() -> None:
    """So that streams spread over the instances again after one restarts: a client reconnects
    with ``Last-Event-ID`` (the next test: it is asked to within a second) and loses nothing."""

    async def scenario() -> None:
        app = create_app(Settings())
        services: Services = app.state["services"]
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # an ASGI app
        async with (
            app.lifespan(),
            httpx.AsyncClient(transport=transport, base_url="http://x") as http,
        ):
            body = {"players": [{"name": "a"}, {"name": "b"}]}
            game_id = (await http.post("/v1/games", json=body)).json()["game_id"]
            events = event_stream.game_events(
                services, game_id, None, None, idle_timeout=3600, lifetime=0.5
            )
            assert (await anext(events)).event == "snapshot"
            rest = [event async for event in events]  # ends: a bound, not a race, below
            assert all(event.comment == "keep-alive" for event in rest)

    asyncio.run(asyncio.wait_for(scenario(), timeout=60))


def test_a_stream_asks_an_event_source_to_reconnect_within_a_second(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=2)
    response = client.get(f"/v1/games/{game.game_id}/events", params={"idle_timeout": 0})
    assert response.text.startswith(f"retry: {event_stream.RETRY_MS}\n")
    assert event_stream.RETRY_MS <= 1000


def test_a_last_event_id_that_is_no_version_gets_a_snapshot(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=2)
    game.play_turn()
    for bad in ("abc", "99"):
        response = client.get(
            f"/v1/games/{game.game_id}/events",
            params={"idle_timeout": 0},
            headers={"Last-Event-ID": bad},
        )
        assert [e["event"] for e in parse_events(response.text)] == ["snapshot"]


def test_a_live_stream_sends_each_action_to_its_viewer_as_it_happens(live_server: str) -> None:
    async def scenario() -> tuple[list[Event], list[Event], list[dict[str, Any]], int]:
        async with httpx.AsyncClient(base_url=live_server, timeout=WAIT_SECONDS) as client:
            players = {"players": [{"name": "a"}, {"name": "b"}], "seed": 4}
            created = (await client.post("/v1/games", json=players)).json()
            game_id = created["game_id"]
            turn = created["view"]["turn"]
            auth = {"Authorization": f"Bearer {created['seats'][turn]['token']}"}
            url = f"/v1/games/{game_id}/events"
            opened = asyncio.Event()
            streams_open = 0

            async def follow(headers: dict[str, str]) -> list[Event]:
                """The stream's events up to the second action's (its idle timeout only bounds
                a failing test: a busy machine may take seconds between the two actions)."""
                nonlocal streams_open
                text = complete = ""
                async with client.stream(
                    "GET", url, params={"idle_timeout": WAIT_SECONDS}, headers=headers
                ) as response:
                    async for chunk in response.aiter_text():
                        text += chunk
                        if "snapshot" in text and not opened.is_set():
                            streams_open += 1
                            if streams_open == 2:
                                opened.set()
                        complete = text.replace("\r\n", "\n").rpartition("\n\n")[0]
                        if any(event["id"] == 2 for event in parse_events(complete)):
                            break
                return parse_events(complete)

            seat_stream = asyncio.create_task(follow(auth))
            public_stream = asyncio.create_task(follow({}))
            await asyncio.wait_for(opened.wait(), timeout=WAIT_SECONDS)
            action_url = f"/v1/games/{game_id}/actions"
            first = await client.post(
                action_url, json={"type": "draw", "source": "stock"}, headers=auth
            )
            card = first.json()["hand"][0]
            second = await client.post(
                action_url, json={"type": "discard", "card": card}, headers=auth
            )
            return await seat_stream, await public_stream, [first.json(), second.json()], turn

    seat_events, public_events, views, turn = asyncio.run(scenario())
    assert [(e["event"], e["id"]) for e in seat_events] == [
        ("snapshot", 0),
        ("action", 1),
        ("action", 2),
    ]
    assert [e["data"]["view"] for e in seat_events[1:]] == views
    drawn = seat_events[1]["data"]["entry"]
    assert drawn["seat"] == turn
    assert drawn["card"] is not None
    # The public saw the draw happen, not the card, and never a hand.
    assert [e["id"] for e in public_events] == [0, 1, 2]
    assert public_events[1]["data"]["entry"]["card"] is None
    assert public_events[0]["data"]["hand"] is None
    assert all(e["data"]["view"]["hand"] is None for e in public_events[1:])


def test_a_finished_game_stream_ends_with_a_finished_event_then_answers_204(
    client: Client,
) -> None:
    """The stream ends with ``finished``; opened again (as an EventSource reconnects, with the
    last id, or afresh) it answers 204, which makes an EventSource stop for good."""
    game = HttpGame.create(client, 2, "classic", seed=30)
    final = game.play_to_end()
    url = f"/v1/games/{game.game_id}/events"
    events = parse_events(client.get(url, headers={"Last-Event-ID": "0"}).text)
    *actions, finished = events
    assert actions[-1]["id"] == final["version"]
    assert actions[-1]["data"]["view"]["status"] == "finished"
    assert finished == {
        "id": final["version"],
        "event": "finished",
        "data": {"version": final["version"], "winners": final["winners"]},
    }
    for headers in ({"Last-Event-ID": str(final["version"])}, {}):
        again = client.get(url, headers=headers)
        assert again.status_code == 204
        assert again.text == ""


def test_an_idle_stream_sends_keep_alive_comments_then_ends(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(event_stream, "HEARTBEAT_SECONDS", 0.05)
    game = HttpGame.create(client, 2, "classic", seed=5)
    started = time.monotonic()
    response = client.get(f"/v1/games/{game.game_id}/events", params={"idle_timeout": 0.4})
    elapsed = time.monotonic() - started
    assert response.text.count(": keep-alive") >= 3
    assert [e["event"] for e in parse_events(response.text)] == ["snapshot"]
    assert 0.4 <= elapsed < 5

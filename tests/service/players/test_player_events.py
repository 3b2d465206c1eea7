"""The player's stream (``GET /v1/players/me/events``) over HTTP: what is pending first, then the
logged events with ids, in server-sent events or NDJSON; resumed after ``Last-Event-ID``; the
docs' follower (docs/players.md, run as written) losing nothing across many stream lifetimes;
and an event made on one instance reaching a stream on another, on one Redis."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_players import (
    Client,
    Json,
    bearer,
    create,
    new_player,
    play_to_end,
    two_instances,  # noqa: F401  # the fixture, for the Redis test below
)
from tests.waiting import eventually

DOCS = Path(__file__).resolve().parents[3] / "docs" / "players.md"
NDJSON = {"Accept": "application/x-ndjson"}
EVERYTHING = {"Last-Event-ID": "0-0"}


def lines(client: httpx.Client, key: str, **headers: str) -> list[Json]:
    """What the player's NDJSON stream holds now (it ends once it has sent it)."""
    response = client.get(
        "/v1/players/me/events",
        params={"idle_timeout": 0},
        headers={**bearer(key), **NDJSON, **headers},
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines() if line]


def sse_events(text: str) -> list[dict[str, str]]:
    """Each server-sent event of a stream's text, as its fields."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append(fields)
    return events


def two_player_game(
    client: httpx.Client, players: tuple[Json, Json] | None = None
) -> tuple[Json, Json, Json]:
    """Ann (by key) and Bob (by key) at a table Ann made and Bob joined."""
    ann, bob = players or (new_player(client, "Ann"), new_player(client, "Bob"))
    table = create(client, ann["key"], [{"me": True}, {"open": True}])
    joined = client.post(
        f"/v1/invites/{table['invite_code']}", json={"me": True}, headers=bearer(bob["key"])
    )
    assert joined.status_code == 201, joined.text
    return ann, bob, joined.json()


def test_a_dealt_game_logs_its_start_and_whose_turn_it_is(client: Client) -> None:
    ann, bob, joined = two_player_game(client)
    game_id, turn = joined["game_id"], joined["view"]["turn"]
    on_turn, waiting = (ann, bob) if turn == 0 else (bob, ann)
    logged = lines(client, on_turn["key"], **EVERYTHING)
    pending, kept = logged[:1], logged[1:]
    assert pending == [{"type": "your_turn", "game_id": game_id, "seat": turn, "version": 0}]
    assert [(e["type"], e["version"]) for e in kept] == [("game_start", 0), ("your_turn", 0)]
    assert all(re.fullmatch(r"[0-9]+-[0-9]+", e["id"]) for e in kept)
    other = lines(client, waiting["key"], **EVERYTHING)
    assert [(e["type"], "id" in e) for e in other] == [("game_start", True)]
    # Without Last-Event-ID, from now on: only what is pending.
    assert lines(client, on_turn["key"]) == pending
    assert lines(client, waiting["key"]) == []
    # Resumed after an id: only what came after it.
    assert lines(client, on_turn["key"], **{"Last-Event-ID": kept[0]["id"]})[1:] == kept[1:]


def test_server_sent_events_carry_the_type_the_id_and_the_json(client: Client) -> None:
    ann, _, joined = two_player_game(client)
    response = client.get(
        "/v1/players/me/events",
        params={"idle_timeout": 0},
        headers={**bearer(ann["key"]), **EVERYTHING},
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.text.startswith("retry: ")  # with the first event, not a block alone
    events = sse_events(response.text)
    logged = [e for e in events if "id" in e]
    assert logged[0]["event"] == "game_start"
    assert json.loads(logged[0]["data"])["game_id"] == joined["game_id"]
    assert all(json.loads(e["data"])["type"] == e["event"] for e in events)


def test_a_finished_game_logs_its_end_to_every_player(client: Client) -> None:
    ann, bob, joined = two_player_game(client)
    end = play_to_end(client, joined["game_id"], [ann["key"], bob["key"]])
    for seat, player in enumerate((ann, bob)):
        logged = lines(client, player["key"], **EVERYTHING)
        assert logged[-1] == {
            "id": logged[-1]["id"],
            "type": "game_finish",
            "game_id": joined["game_id"],
            "seat": seat,
            "version": end["version"],
            "winners": end["winners"],
        }
        turns = [e for e in logged if e["type"] == "your_turn"]
        assert turns, "every turn the player began was told"
        assert all(e["seat"] == seat for e in turns)
        assert len({e["id"] for e in logged}) == len(logged)


def test_the_stream_is_a_player_s_own(client: Client) -> None:
    assert_problem(client.get("/v1/players/me/events"), 401, "player-key-required")
    seated = create(client, None, [{"name": "Ann"}, {"name": "Bob"}])
    token = bearer(seated["seats"][0]["token"])
    assert_problem(client.get("/v1/players/me/events", headers=token), 401, "player-key-required")
    unknown = bearer("ttp_" + "A" * 43)
    assert_problem(client.get("/v1/players/me/events", headers=unknown), 401, "unknown-player-key")
    ann = new_player(client)
    # An id that is none of the log's starts afresh, as a game's stream does.
    assert lines(client, ann["key"], **{"Last-Event-ID": "not an id"}) == []


class Kept(logging.Handler):
    """The access log's lines, as JSON."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def lines(self) -> list[Json]:
        return [json.loads(message) for message in self.messages]


def docs_follower() -> Callable[..., None]:
    """``follow`` exactly as docs/players.md shows it."""
    text = DOCS.read_text()
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def follow(" in b]
    namespace: dict[str, Any] = {}
    exec(compile(block, str(DOCS), "exec"), namespace)  # the docs' own example
    follow: Callable[..., None] = namespace["follow"]
    return follow


def test_the_docs_follower_loses_nothing_across_many_stream_lifetimes(
    live_server_for: Callable[[Litestar], str],
) -> None:
    """Streams that end every 40 to 80 ms: the follower of docs/players.md, reconnecting with
    the last id it read, sees every event the player's log holds, through a whole game."""
    app = create_app(Settings(stream_lifetime=0.08))
    base = live_server_for(app)
    requests = Kept()
    logging.getLogger("service.access").addHandler(requests)
    # Every request through the live server: a test client would run the app on a second event
    # loop beside the server's, and wake the server's streams from the wrong loop.
    with httpx.Client(base_url=base, timeout=60) as client:
        ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
        seen: list[Json] = []

        def handle(event: Json) -> bool:
            seen.append(event)
            return bool(event["type"] != "game_finish")

        follower = threading.Thread(
            target=docs_follower(), args=(base, ann["key"], handle), daemon=True
        )
        follower.start()
        # Its first stream's starting point is fixed once the stream is held open.
        streams = app.state["services"].streams
        eventually(lambda: streams.open >= 1, "the follower to connect")
        _, _, joined = two_player_game(client, (ann, bob))
        play_to_end(client, joined["game_id"], [ann["key"], bob["key"]])
        follower.join(timeout=120)
        assert not follower.is_alive()
        logged = lines(client, ann["key"], **EVERYTHING)
    told = {json.dumps(e, sort_keys=True) for e in seen}
    missed = [
        e
        for e in logged
        if json.dumps({k: v for k, v in e.items() if k != "id"}, sort_keys=True) not in told
    ]
    assert missed == []
    logging.getLogger("service.access").removeHandler(requests)
    streams = [line for line in requests.lines() if line["route"] == "/v1/players/me/events"]
    assert len(streams) >= 10, "the follower's streams ended and were resumed ten times or more"
    assert len(logged) > 10


@pytest.mark.redis
def test_an_event_made_on_one_instance_reaches_a_stream_on_the_other(
    two_instances: tuple[Client, Client],  # noqa: F811  # the fixture imported above
) -> None:
    one, two = two_instances
    ann, bob = new_player(one, "Ann"), new_player(one, "Bob")
    table = create(one, ann["key"], [{"me": True}, {"open": True}])
    joined = two.post(
        f"/v1/invites/{table['invite_code']}", json={"me": True}, headers=bearer(bob["key"])
    )
    assert joined.status_code == 201
    for player in (ann, bob):
        on_one = lines(one, player["key"], **EVERYTHING)
        assert [e for e in on_one if "id" in e] == [
            e for e in lines(two, player["key"], **EVERYTHING) if "id" in e
        ]
        assert any(e["type"] == "game_start" for e in on_one)


def test_a_browser_follows_the_stream_by_its_url_until_the_key_is_replaced(
    client: Client,
) -> None:
    ann, _, joined = two_player_game(client)
    answer = client.post("/v1/players/me/stream-url", headers=bearer(ann["key"]))
    assert answer.status_code == 200, answer.text
    url = answer.json()["url"]
    assert url.startswith("/v1/players/me/events?key=")
    assert ann["key"] not in url
    url += "&idle_timeout=0"  # (httpx's params would replace the URL's query)
    streamed = client.get(url, headers=EVERYTHING)
    assert streamed.status_code == 200, streamed.text
    starts = [e for e in sse_events(streamed.text) if e["event"] == "game_start"]
    assert json.loads(starts[0]["data"])["game_id"] == joined["game_id"]
    # The key itself never goes in a URL; a key that is no player's is refused.
    in_url = client.get("/v1/players/me/events", params={"key": ann["key"], "idle_timeout": 0})
    assert_problem(in_url, 422, "invalid-field", "key")
    forged = client.get(url.replace("&", "A&", 1))
    assert_problem(forged, 401, "unknown-stream-key")
    client.post("/v1/players/me/key", headers=bearer(ann["key"]))
    assert_problem(client.get(url), 401, "unknown-stream-key")


def test_a_bot_player_is_online_while_its_stream_is_open(
    live_server_for: Callable[[Litestar], str],
) -> None:
    app = create_app(Settings())
    base = live_server_for(app)
    with httpx.Client(base_url=base, timeout=60) as client:
        robot = new_player(client, "Robo", bot=True)
        person = new_player(client, "Ann")

        def online() -> list[Json]:
            answer = client.get("/v1/bots/online")
            assert answer.status_code == 200, answer.text
            listed: list[Json] = answer.json()["bots"]
            return listed

        assert online() == []
        assert client.get(f"/v1/players/{robot['player_id']}").json()["online"] is False
        assert client.get(f"/v1/players/{person['player_id']}").json()["online"] is None
        people = client.stream("GET", "/v1/players/me/events", headers=bearer(person["key"]))
        bots = client.stream("GET", "/v1/players/me/events", headers=bearer(robot["key"]))
        with people as person_stream, bots as bot_stream:
            assert (person_stream.status_code, bot_stream.status_code) == (200, 200)
            eventually(lambda: online() != [], "the bot to be online")
            assert online() == [{"player_id": robot["player_id"], "name": "Robo"}]
            assert client.get(f"/v1/players/{robot['player_id']}").json()["online"] is True
        eventually(lambda: online() == [], "the bot to be offline once its stream closed")

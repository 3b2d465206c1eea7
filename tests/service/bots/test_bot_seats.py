"""Computer players and turn clocks over HTTP, on the in-process app (games in memory): bots move
by themselves, each action its own version, event and log entry; a person's overdue turn is
played for them exactly once and they are shown away until their token acts; a seat left during
play is taken over by a ``normal`` bot; a rematch keeps bot seats bots.

Timing: the app sweeps every 0.2 s; every wait polls for its outcome with a generous deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.streams.test_events import parse_events
from tests.service.tables.test_tables import bearer
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]

FAST_SWEEPS = Settings(sweep_seconds=0.2, bot_lease_seconds=2.0, rate_limit_per_minute=0)
"""Bots swept often; and no rate limit, since these tests watch the bots play by asking for the
views as often as ``eventually`` does, from one address (the limits have tests of their own,
tests/service/http/test_client_limits.py)."""
WAIT_SECONDS = 90.0
"""How long a test waits for bots at most: a whole game takes a few seconds on a quiet machine."""


@pytest.fixture
def app() -> Litestar:
    return create_app(FAST_SWEEPS)


@pytest.fixture
def client(app: Litestar) -> Iterator[Client]:
    with TestClient(app) as test_client:
        yield test_client


def create(client: Client, players: list[Json], **fields: Any) -> Json:
    response = client.post("/v1/games", json={"players": players, **fields})
    assert response.status_code == 201, response.text
    created: Json = response.json()
    return created


def public(client: Client, game_id: str) -> Json:
    response = client.get(f"/v1/games/{game_id}")
    assert response.status_code == 200, response.text
    view: Json = response.json()
    return view


def log_of(client: Client, game_id: str) -> list[Json]:
    entries: list[Json] = client.get(f"/v1/games/{game_id}/log").json()["entries"]
    return entries


def play_turn(client: Client, game_id: str, token: str) -> Json:
    """A person's turn: draw from the stock, make the analyser's discard (going out if it can)."""
    url = f"/v1/games/{game_id}/actions"
    drawn = client.post(url, json={"type": "draw", "source": "stock"}, headers=bearer(token))
    assert drawn.status_code == 200, drawn.text
    view = drawn.json()
    analysis = client.post(
        "/v1/analyse", json={"hand": view["hand"], "wild": view["wild"], "rules": view["rules"]}
    ).json()
    go_out = analysis["can_go_out"] and view["out_seat"] is None
    body = {"type": "discard", "card": analysis["suggested_discard"], "go_out": go_out}
    discarded = client.post(url, json=body, headers=bearer(token))
    assert discarded.status_code == 200, discarded.text
    after: Json = discarded.json()
    return after


def assert_one_action_per_version(entries: list[Json], version: int) -> None:
    assert [entry["version"] for entry in entries] == list(range(1, version + 1))


def test_people_and_bots_play_a_whole_game_each_bot_action_its_own_version(
    client: Client,
) -> None:
    players = [{"name": "Ann"}, {"bot": "normal"}, {"name": "Bob"}, {"bot": "easy", "name": "Eve"}]
    created = create(client, players, seed=7)
    game_id = created["game_id"]
    # Only the people get tokens; the view says which seats are bots.
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    assert sorted(tokens) == [0, 2]
    view = created["view"]
    assert [p["bot"] for p in view["players"]] == [None, "normal", None, "easy"]
    assert [p["name"] for p in view["players"]] == ["Ann", "Normal bot 2", "Bob", "Eve"]
    people_turns = 0
    while True:
        # The bots move by themselves until a person is on turn.
        view = eventually(
            lambda: public(client, game_id),
            "the game to finish or a person to be on turn",
            until=lambda v: v["status"] == "finished" or v["turn"] in tokens,
            seconds=WAIT_SECONDS,
        )
        if view["status"] == "finished":
            break
        play_turn(client, game_id, tokens[view["turn"]])
        people_turns += 1
    entries = log_of(client, game_id)
    assert_one_action_per_version(entries, view["version"])
    seats_moving = {entry["seat"] for entry in entries}
    assert seats_moving == {0, 1, 2, 3}
    assert sum(entry["seat"] in tokens for entry in entries) == 2 * people_turns
    # Every version has its own event: the finished game's stream replays them one by one.
    events = parse_events(
        client.get(f"/v1/games/{game_id}/events", headers={"Last-Event-ID": "0"}).text
    )
    assert [e["id"] for e in events[:-1]] == list(range(1, view["version"] + 1))
    assert events[-1]["event"] == "finished"
    assert [e["data"]["entry"] for e in events[:-1]] == entries

    # The rematch: both people ask, the bots stay bots, and it is dealt.
    rematch_url = f"/v1/games/{game_id}/rematch"
    first = client.post(rematch_url, headers=bearer(tokens[0]))
    assert first.status_code == 201, first.text
    assert first.json()["view"]["status"] == "waiting"
    second = client.post(rematch_url, headers=bearer(tokens[2]))
    assert second.status_code == 201, second.text
    rematch = second.json()["view"]
    assert rematch["status"] == "playing"
    assert [p["bot"] for p in rematch["players"]] == [None, "normal", None, "easy"]


def test_a_game_of_bots_plays_itself_to_the_end(client: Client) -> None:
    players = [{"bot": "hard"}, {"bot": "normal"}, {"bot": "easy"}]
    created = create(client, players, seed=11)
    assert created["seats"] == []
    game_id = created["game_id"]
    final = eventually(
        lambda: public(client, game_id),
        "the game to finish",
        until=lambda v: v["status"] == "finished",
        seconds=120,
    )
    assert final["winners"]
    assert_one_action_per_version(log_of(client, game_id), final["version"])


def test_a_table_with_bots_and_an_open_seat_waits_then_the_bots_play(client: Client) -> None:
    created = create(client, [{"bot": "normal"}, {"open": True}], seed=3, listed=True)
    game_id = created["game_id"]
    assert created["view"]["status"] == "waiting"
    assert [p["bot"] for p in created["view"]["players"]] == ["normal", None]
    (table,) = client.get("/v1/tables").json()["tables"]
    assert [(s["bot"], s["open"]) for s in table["seats"]] == [("normal", False), (None, True)]
    claimed = client.post(f"/v1/invites/{created['invite_code']}", json={"name": "Cy"})
    assert claimed.status_code == 201, claimed.text
    # Dealt: whoever starts, the bot's turn is made and play comes round to Cy.
    view = eventually(
        lambda: public(client, game_id),
        "Cy to be on turn",
        until=lambda v: v["turn"] == 1,
        seconds=WAIT_SECONDS,
    )
    assert all(entry["seat"] == 0 for entry in log_of(client, game_id))
    assert view["status"] == "playing"


def test_a_persons_answer_does_not_wait_for_the_bots_moves(client: Client) -> None:
    """The action's answer is the person's view right after their own action; the bots' moves
    follow (on the channel), not inside the request."""
    created = create(client, [{"name": "Ann"}, {"bot": "hard"}, {"bot": "hard"}], seed=5)
    game_id = created["game_id"]
    token = created["seats"][0]["token"]
    view = eventually(
        lambda: public(client, game_id),
        "Ann to be on turn",
        until=lambda v: v["turn"] == 0,
        seconds=WAIT_SECONDS,
    )
    after = play_turn(client, game_id, token)
    assert after["version"] == view["version"] + 2
    assert after["turn"] == 1
    eventually(
        lambda: public(client, game_id),
        "Ann to be on turn again",
        until=lambda v: v["turn"] == 0,
        seconds=WAIT_SECONDS,
    )


def test_leaving_during_play_hands_the_seat_to_a_normal_bot(client: Client) -> None:
    created = create(client, [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}], seed=2)
    game_id = created["game_id"]
    turn = created["view"]["turn"]
    token = created["seats"][turn]["token"]
    left = client.post(f"/v1/games/{game_id}/leave", headers=bearer(token))
    assert left.status_code == 200, left.text
    assert left.json()["players"][turn]["bot"] == "normal"
    # The bot plays the seat's turn at once; the token no longer acts for the seat.
    view = eventually(
        lambda: public(client, game_id),
        "the bot to play the seat's turn",
        until=lambda v: v["version"] >= 2,
        seconds=WAIT_SECONDS,
    )
    assert view["turn"] != turn
    assert [entry["seat"] for entry in log_of(client, game_id)] == [turn, turn]
    gone = client.get(f"/v1/games/{game_id}", headers=bearer(token))
    assert gone.status_code == 401
    again = client.post(f"/v1/games/{game_id}/leave", headers=bearer(token))
    assert again.status_code == 401


def test_an_idle_seat_has_its_turn_played_once_and_is_away_until_it_acts(client: Client) -> None:
    created = create(client, [{"name": "Ann"}, {"name": "Bob"}], seed=9, turn_seconds=3)
    game_id = created["game_id"]
    tokens = [seat["token"] for seat in created["seats"]]
    idle = created["view"]["turn"]
    other = 1 - idle
    started = time.monotonic()
    view = eventually(
        lambda: public(client, game_id),
        "the clock to play the idle seat's turn",
        until=lambda v: v["version"] >= 2,
        seconds=WAIT_SECONDS,
    )
    waited = time.monotonic() - started
    # The clock's bot drew and discarded for the idle seat: one turn, made once, not early.
    assert waited >= 2.5
    assert view["version"] == 2
    assert view["turn"] == other
    assert [(e["seat"], e["action"]["type"]) for e in log_of(client, game_id)] == [
        (idle, "draw"),
        (idle, "discard"),
    ]
    assert [p["away"] for p in view["players"]] == [s == idle for s in range(2)]
    # The other seat acts in time: nothing is made for it; the idle seat is still away.
    after = play_turn(client, game_id, tokens[other])
    assert after["version"] == 4
    assert after["players"][idle]["away"] is True
    # Its own token acting brings the idle seat back (the other plays first if a round ended).
    while after["turn"] != idle:
        after = play_turn(client, game_id, tokens[after["turn"]])
        assert after["players"][idle]["away"] is True
    back = play_turn(client, game_id, tokens[idle])
    assert back["players"][idle]["away"] is False
    assert_one_action_per_version(log_of(client, game_id), back["version"])
    assert sum(entry["seat"] == idle for entry in log_of(client, game_id)) == 4


async def follow(
    client: httpx.AsyncClient,
    game_id: str,
    step: Callable[[str], Awaitable[bool]],
) -> list[Json]:
    """The game's public stream, read until ``step`` (given the text so far after each whole
    event) says it has seen enough. The stream's idle timeout only bounds a failing test: a
    busy machine may fire a 3 s clock late, and the step, not the timeout, ends a passing one."""
    text = ""
    url = f"/v1/games/{game_id}/events"
    async with client.stream("GET", url, params={"idle_timeout": 60}) as response:
        async for chunk in response.aiter_text():
            text += chunk
            if text.endswith(("\n\n", "\r\n\r\n")) and await step(text):
                break
    return parse_events(text)


def test_a_live_stream_shows_each_bot_action_and_the_away_seat(
    live_server_for: Callable[[Litestar], str],
) -> None:
    base = live_server_for(create_app(FAST_SWEEPS))

    async def scenario() -> tuple[list[Json], int]:
        async with httpx.AsyncClient(base_url=base, timeout=WAIT_SECONDS) as client:
            players = {"players": [{"name": "Ann"}, {"bot": "normal"}], "turn_seconds": 3}
            created = (await client.post("/v1/games", json=players)).json()

            async def enough(text: str) -> bool:
                # Ann never acts: the clock plays her turns; stop once it has done so.
                return '"away":true' in text and text.count("event: action") >= 4

            return await follow(client, created["game_id"], enough), created["view"]["turn"]

    events, first = asyncio.run(scenario())
    actions = [e for e in events if e["event"] == "action"]
    assert [e["id"] for e in actions] == list(range(1, len(actions) + 1))
    seats = [e["data"]["entry"]["seat"] for e in actions]
    assert seats[:2] == [first, first]
    away = [
        e["data"]["view"]["players"][0]["away"] for e in actions if e["data"]["entry"]["seat"] == 0
    ]
    assert away
    assert all(away)


def test_a_seat_left_off_turn_reaches_the_stream_as_a_new_snapshot(
    live_server_for: Callable[[Litestar], str],
) -> None:
    base = live_server_for(create_app(FAST_SWEEPS))

    async def scenario() -> tuple[list[Json], int]:
        async with httpx.AsyncClient(base_url=base, timeout=WAIT_SECONDS) as client:
            players = {"players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]}
            created = (await client.post("/v1/games", json=players)).json()
            game_id = created["game_id"]
            leaver = (created["view"]["turn"] + 1) % 3
            token = created["seats"][leaver]["token"]

            async def leave_once(text: str) -> bool:
                if text.count("event: snapshot") == 1:
                    answer = await client.post(f"/v1/games/{game_id}/leave", headers=bearer(token))
                    assert answer.status_code == 200, answer.text
                return text.count("event: snapshot") == 2

            return await follow(client, game_id, leave_once), leaver

    events, leaver = asyncio.run(scenario())
    assert [(e["event"], e["id"]) for e in events] == [("snapshot", 0), ("snapshot", 0)]
    assert events[0]["data"]["players"][leaver]["bot"] is None
    assert events[1]["data"]["players"][leaver]["bot"] == "normal"

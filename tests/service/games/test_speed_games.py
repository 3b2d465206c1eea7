"""Speed games (``turns: speed``) over HTTP on the in-process app: a whole game of a person and
bots to the end, every call ended once; no view or log shows another seat's choice before its
call ends; bad choices are 409/422 naming the field with nothing changed; a second choice
replaces the first, with ``Idempotency-Key`` and ``expected_version`` as for any action; tables
with open seats deal speed games, whose seats get hints.

Timing: the app sweeps every 0.2 s; every wait polls for its outcome with a generous deadline."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from datetime import datetime
from functools import cache
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine.cards import JOKER, format_card
from engine.game import Discard, Draw, apply, legal_actions, new_game
from engine.game.speed import choosers
from engine.rules import Rules
from engine.seeds import mixed_seed
from service.app import create_app
from service.games import calls
from service.games.records import GameRecord
from service.vocabulary.wire import SEED_LIMIT
from tests.service.bots.test_bot_seats import (
    FAST_SWEEPS,
    WAIT_SECONDS,
    create,
    log_of,
    public,
)
from tests.service.streams.test_events import parse_events
from tests.service.tables.test_tables import bearer, claim
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]

SPEED: Json = {"preset": "classic", "turns": "speed", "jokers": 2}


SEED_SECRET = "speed-games-test"
SEED_KEY = "speed-games-test-key-1"
"""This module's deployment secret and seed key, so that a test can deal, with the engine, what
the service deals for a seed sent with the key (``engine_seed``)."""


def engine_seed(seed: int) -> int:
    """The seed the service's shuffles use for a client's ``seed`` and ``SEED_KEY`` under
    ``SEED_SECRET`` (``service.records.given.seeded``)."""
    return mixed_seed(seed, f"{SEED_SECRET}/{SEED_KEY}") % SEED_LIMIT


@pytest.fixture
def client() -> Iterator[Client]:
    settings = msgspec.structs.replace(FAST_SWEEPS, seed_secret=SEED_SECRET)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def seat_view(client: Client, game_id: str, token: str) -> Json:
    response = client.get(f"/v1/games/{game_id}", headers=bearer(token))
    assert response.status_code == 200, response.text
    view: Json = response.json()
    return view


def choose(client: Client, game_id: str, token: str, body: Json, key: str | None = None) -> Any:
    headers = bearer(token) | ({"Idempotency-Key": key} if key else {})
    return client.post(f"/v1/games/{game_id}/actions", json=body, headers=headers)


def assert_call_ends_once(entries: list[Json]) -> None:
    """One version per entry, and each round's call ends numbered 1, 2, 3... (none twice)."""
    assert [e["version"] for e in entries] == list(range(1, len(entries) + 1))
    numbers = [e["action"]["number"] for e in entries if e["action"]["type"] == "call_end"]
    for before, after in itertools.pairwise(numbers):
        assert after in (before + 1, 1)


def test_a_whole_speed_game_of_a_person_and_bots(client: Client) -> None:
    players = [{"name": "Ann"}, {"bot": "easy"}, {"bot": "hard"}]
    created = create(client, players, rules=SPEED, seed=5, call_seconds=60)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    chosen = 0

    def ann_chooses() -> Json:
        nonlocal chosen
        view = seat_view(client, game_id, token)
        if view["call"] is not None and view["call"]["choice"] is None and view["legal"]:
            # The analyser's pick is not the point here: the first legal choice.
            answer = choose(client, game_id, token, view["legal"][0])
            assert answer.status_code == 200, answer.text
            chosen += 1
            view = answer.json()
        return view

    final = eventually(
        ann_chooses,
        "the game to finish",
        until=lambda view: view["status"] == "finished",
        seconds=WAIT_SECONDS,
    )
    assert final["winners"]
    assert final["call"] is None
    assert final["turn"] is None
    assert chosen > 11  # at least a draw and a discard each round
    entries = log_of(client, game_id)
    assert_call_ends_once(entries)
    ends = [e for e in entries if e["action"]["type"] == "call_end"]
    assert not any(e["action"]["timed_out"] for e in ends)  # nobody waited for the caller
    assert all(e["seat"] == -1 for e in ends)
    assert final["players"][0]["away"] is False


def test_no_view_or_log_shows_a_choice_before_its_call_ends(client: Client) -> None:
    players = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]
    created = create(client, players, rules=SPEED, seed=11, call_seconds=3600)
    game_id = created["game_id"]
    ann, bob, cy = (seat["token"] for seat in created["seats"])
    # The draw call: Ann draws from her neighbour's pile, and nobody else learns how.
    pile = next(a for a in seat_view(client, game_id, ann)["legal"] if a["source"] == "discard")
    mine = choose(client, game_id, ann, pile).json()
    assert mine["call"]["choice"] == pile
    assert mine["call"]["chosen"] == [0]
    for viewer in (seat_view(client, game_id, bob), public(client, game_id)):
        assert viewer["call"]["chosen"] == [0]
        assert viewer["call"]["choice"] is None
        assert viewer["discard_tops"] == created["view"]["discard_tops"]
    for log in (
        log_of(client, game_id),
        client.get(f"/v1/games/{game_id}/log", headers=bearer(bob)).json()["entries"],
    ):
        assert log == [{"version": 1, "seat": 0, "action": {"type": "chosen"}, "card": None}]
    choose(client, game_id, bob, {"type": "draw", "source": "stock"})
    ended = choose(client, game_id, cy, {"type": "draw", "source": "stock"}).json()
    assert ended["call"]["number"] == 2
    assert ended["call"]["phase"] == "discard"
    # The call's end shows every choice, but a card another seat drew from the stock stays
    # hidden from Cy; the card Ann took from a pile everyone saw.
    end = log_of(client, game_id)[-1]
    cy_end = client.get(f"/v1/games/{game_id}/log", headers=bearer(cy)).json()["entries"][-1]
    assert end["action"]["type"] == "call_end"
    assert end["seat"] == -1
    cards = {m["seat"]: m["card"] for m in cy_end["action"]["moves"]}
    assert cards[0] is not None
    assert cards[1] is None
    assert cards[2] in ended["hand"]
    assert {m["seat"]: m["card"] for m in end["action"]["moves"]}[2] is None
    # The discard call: Ann's discard is secret until Bob and Cy have chosen too.
    card = seat_view(client, game_id, ann)["hand"][0]
    choose(client, game_id, ann, {"type": "discard", "card": card})
    tops = public(client, game_id)["discard_tops"]
    assert seat_view(client, game_id, bob)["discard_tops"] == tops
    assert log_of(client, game_id)[-1]["action"] == {"type": "chosen"}
    for token in (bob, cy):
        view = seat_view(client, game_id, token)
        choose(client, game_id, token, {"type": "discard", "card": view["hand"][-1]})
    end = log_of(client, game_id)[-1]["action"]
    assert end["type"] == "call_end"
    assert {m["seat"]: m["card"] for m in end["moves"]}[0] == card
    assert public(client, game_id)["discard_tops"][0] == card


def test_a_second_choice_replaces_the_first_with_keys_and_versions(client: Client) -> None:
    created = create(client, [{"name": "Ann"}, {"name": "Bob"}], rules=SPEED, seed=3)
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    stock = {"type": "draw", "source": "stock"}
    first = choose(client, game_id, ann, stock, key="one")
    assert first.status_code == 200
    assert first.json()["call"]["choice"] == stock
    pile = next(a for a in first.json()["legal"] if a["source"] == "discard")
    second = choose(client, game_id, ann, pile, key="two")
    assert second.status_code == 200, second.text
    assert second.json()["call"]["choice"] == pile
    assert second.json()["version"] == 2
    # The first key answers as it first did, and applies nothing again.
    again = choose(client, game_id, ann, stock, key="one")
    assert again.status_code == 200
    assert again.content == first.content
    stale = choose(client, game_id, ann, {**stock, "expected_version": 1})
    assert stale.status_code == 409
    assert stale.json()["field"] == "expected_version"
    view = seat_view(client, game_id, ann)
    assert view["version"] == 2
    assert view["call"]["choice"] == pile


@cache
def going_out_seed() -> tuple[int, int, int]:
    """A seed whose first discard call lets Ann (seat 0) go out, and not Bob, with a joker in
    Ann's hand: the seed, the card Ann goes out with, and a card Bob may discard (found with
    the engine, dealing as the service does for a seed under this module's secret)."""
    rules = Rules.from_spec(SPEED)
    for seed in range(20000):
        game = new_game(["Ann", "Bob"], rules, engine_seed(seed))
        for seat in choosers(game):
            game = apply(game, seat, Draw("stock"))
        outs = [a for a in legal_actions(game, 0) if isinstance(a, Discard) and a.go_out]
        bob_out = any(isinstance(a, Discard) and a.go_out for a in legal_actions(game, 1))
        keeps = [a.card for a in outs if a.card != JOKER and JOKER in game.hands[0]]
        if keeps and not bob_out:
            plain = next(c for c in game.hands[1] if c != JOKER)
            return seed, keeps[0], plain
    raise AssertionError("no seed found")  # pragma: no cover


def test_bad_choices_are_refused_naming_the_field_with_nothing_changed(client: Client) -> None:
    seed, out_card, bob_card = going_out_seed()
    created = create(
        client, [{"name": "Ann"}, {"name": "Bob"}], rules=SPEED, seed=seed, seed_key=SEED_KEY
    )
    game_id = created["game_id"]
    ann, bob = (seat["token"] for seat in created["seats"])

    def refused(token: str, body: Json, status: int, kind: str, field: str | None) -> None:
        before = seat_view(client, game_id, token)
        answer = choose(client, game_id, token, body)
        assert answer.status_code == status, answer.text
        problem = answer.json()
        assert problem["type"].endswith(f":{kind}"), problem
        assert problem.get("field") == field, problem
        assert seat_view(client, game_id, token) == before

    # The draw call: a discard is the wrong call; a pile other than the right neighbour's.
    refused(ann, {"type": "discard", "card": "JK"}, 409, "wrong-call", "type")
    refused(
        ann, {"type": "draw", "source": "discard", "pile": 0}, 422, "not-neighbours-pile", "pile"
    )
    for token in (ann, bob):
        assert (
            choose(client, game_id, token, {"type": "draw", "source": "stock"}).status_code == 200
        )
    # The discard call: a draw is the wrong call; a joker onto another pile with the option
    # off; any other card onto another pile.
    refused(ann, {"type": "draw", "source": "stock"}, 409, "wrong-call", "type")
    refused(ann, {"type": "discard", "card": "JK", "pile": 1}, 422, "option-not-enabled", "pile")
    plain = {"type": "discard", "card": format_card(out_card), "pile": 1}
    refused(ann, plain, 422, "not-a-joker", "pile")
    # Ann goes out; Bob has one more draw call and discard call, and Ann no more choices.
    gone = choose(
        client, game_id, ann, {"type": "discard", "card": format_card(out_card), "go_out": True}
    )
    assert gone.status_code == 200, gone.text
    choose(client, game_id, bob, {"type": "discard", "card": format_card(bob_card)})
    view = seat_view(client, game_id, ann)
    assert view["call"]["phase"] == "draw"
    assert view["legal"] == []
    refused(ann, {"type": "draw", "source": "stock"}, 409, "seat-has-gone-out", None)
    # Ann has no choice left to advise on; Bob's last draw call has its hint.
    hint = client.get(f"/v1/games/{game_id}/hint", headers=bearer(ann))
    assert hint.status_code == 409, hint.text
    assert hint.json()["type"].endswith(":seat-has-gone-out")
    last = client.get(f"/v1/games/{game_id}/hint", headers=bearer(bob))
    assert last.status_code == 200, last.text
    assert last.json()["phase"] == "draw"


def test_a_listed_table_with_an_open_seat_deals_a_speed_game_with_hints(
    client: Client,
) -> None:
    players: list[Json] = [{"name": "Ann"}, {"open": True}, {"bot": "normal"}]
    created = create(client, players, rules=SPEED, call_seconds=30, listed=True)
    (listed,) = client.get("/v1/tables").json()["tables"]
    assert listed["turns"] == "speed"
    assert created["view"]["status"] == "waiting"
    assert created["invite_code"]
    before = time.time()
    claimed = claim(client, created["invite_code"], "Bob")
    after = time.time()
    assert claimed.status_code == 201, claimed.text
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    assert_deadline_within(claimed.json()["view"]["call"]["deadline"], before + 30, after + 30)
    view = eventually(
        lambda: seat_view(client, game_id, ann),
        "the bot to choose in the call",
        until=lambda view: view["call"] is not None and 2 in view["call"]["chosen"],
        seconds=WAIT_SECONDS,
    )  # the bot chose at once
    assert view["status"] == "playing"
    assert view["rules"]["turns"] == "speed"
    assert view["legal"]
    assert view["call"]["choice"] is None
    hint = client.get(f"/v1/games/{game_id}/hint", headers=bearer(ann))
    assert hint.status_code == 200, hint.text
    assert hint.json()["phase"] == "draw"


def events_of(client: Client, game_id: str, token: str | None) -> list[Json]:
    """Every event of the game so far, as ``token``'s seat (None: the public) streams them."""
    headers = {"Last-Event-ID": "0"} | (bearer(token) if token else {})
    answer = client.get(
        f"/v1/games/{game_id}/events", params={"idle_timeout": 0.05}, headers=headers
    )
    assert answer.status_code == 200, answer.text
    return parse_events(answer.text)


def test_the_event_streams_show_only_who_chose_until_the_call_ends(client: Client) -> None:
    players = [{"name": "Ann"}, {"name": "Bob"}]
    created = create(client, players, rules=SPEED, seed=2, call_seconds=3600)
    game_id = created["game_id"]
    ann, bob = (seat["token"] for seat in created["seats"])
    pile = next(a for a in seat_view(client, game_id, ann)["legal"] if a["source"] == "discard")
    choose(client, game_id, ann, pile)
    for token in (bob, None):
        (event,) = events_of(client, game_id, token)
        assert event["data"]["entry"] == {
            "version": 1,
            "seat": 0,
            "action": {"type": "chosen"},
            "card": None,
        }
        assert event["data"]["view"]["call"]["chosen"] == [0]
        assert event["data"]["view"]["call"]["choice"] is None
    (own,) = events_of(client, game_id, ann)
    assert own["data"]["entry"]["action"]["type"] == "draw"
    assert own["data"]["view"]["call"]["choice"] == pile
    choose(client, game_id, bob, {"type": "draw", "source": "stock"})
    bob_events = events_of(client, game_id, bob)
    assert [e["data"]["entry"]["action"]["type"] for e in bob_events] == [
        "chosen",
        "draw",
        "call_end",
    ]
    moves = {m["seat"]: m for m in bob_events[-1]["data"]["entry"]["action"]["moves"]}
    assert moves[0]["action"] == {"type": "draw", "source": "discard", "pile": pile["pile"]}
    assert moves[0]["card"] is not None
    public_moves = events_of(client, game_id, None)[-1]["data"]["entry"]["action"]["moves"]
    assert {m["seat"]: m["card"] for m in public_moves}[1] is None  # Bob's stock card


def wait_past(moment: float) -> None:
    """Wait until the clock reads past ``moment`` (the next call then opens later)."""
    eventually(lambda: time.time() > moment, "the clock to pass the moment")


def test_each_event_shows_its_own_calls_deadline(client: Client) -> None:
    """Four calls, each opened a little after the one before: every event of the stream from
    the start, and the public's, shows the deadline its call's views showed while it was open,
    not the newest call's."""
    players = [{"name": "Ann"}, {"name": "Bob"}]
    created = create(client, players, rules=SPEED, seed=2, call_seconds=3600)
    game_id = created["game_id"]
    ann, bob = (seat["token"] for seat in created["seats"])
    shown: dict[tuple[int, int], str] = {}
    for _ in range(4):
        view = seat_view(client, game_id, ann)
        shown[(view["round"], view["call"]["number"])] = view["call"]["deadline"]
        wait_past(time.time() + 0.005)
        for token in (ann, bob):
            choice = seat_view(client, game_id, token)["legal"][0]
            assert choose(client, game_id, token, choice).status_code == 200
    assert len(set(shown.values())) == len(shown)  # so a stale deadline cannot pass
    for token in (ann, None):
        events = events_of(client, game_id, token)
        assert len(events) == 12  # two choices and one call's end per call
        for event in events:
            view = event["data"]["view"]
            key = (view["round"], view["call"]["number"])
            if key in shown:
                assert view["call"]["deadline"] == shown[key], event
    newest = seat_view(client, game_id, ann)["call"]["deadline"]
    assert newest not in shown.values()


def test_a_call_older_than_the_kept_ones_has_no_deadline() -> None:
    """The record keeps the last ``CALLS_KEPT`` calls: a version inside one shows its deadline,
    one that may be older shows none rather than a wrong one."""
    kept = tuple((10 * k + 10, 1000.0 + k) for k in range(calls.CALLS_KEPT))
    record = GameRecord(
        state=b"", token_hashes=(), created=0.0, turn_started=2000.0, call_seconds=20
    )
    full = msgspec.structs.replace(record, ended_calls=kept)
    assert calls.deadline_text(record, 5) == "1970-01-01T00:33:40.000Z"
    assert calls.deadline_text(full, 10 * calls.CALLS_KEPT + 10) == "1970-01-01T00:33:40.000Z"
    assert calls.deadline_text(full, 25) == "1970-01-01T00:17:02.000Z"  # the third call's
    assert calls.deadline_text(full, 9) is None
    part = msgspec.structs.replace(record, ended_calls=kept[:3])
    assert calls.deadline_text(part, 9) == "1970-01-01T00:17:00.000Z"  # the first call's


def test_ten_seats_play_a_speed_game_and_a_rematch_follows(client: Client) -> None:
    """Ten seats (classic deals them from 5 decks): a person who never chooses is away after
    the first call, a bot chooses for them, and the game runs to its end; the person's rematch
    deals a speed game again."""
    rules = {"preset": "classic", "turns": "speed", "max_players": 10}
    players: list[Json] = [{"name": "Ann"}, *({"bot": "easy"} for _ in range(9))]
    created = create(client, players, rules=rules, seed=4, call_seconds=3)
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    assert len(created["view"]["players"]) == 10
    final = eventually(
        lambda: public(client, game_id),
        "the game of ten to finish",
        until=lambda v: v["status"] == "finished",
        seconds=300,
    )
    assert final["players"][0]["away"] is True
    entries = log_of(client, game_id)
    assert_call_ends_once(entries)
    timed_out = [
        e for e in entries if e["action"]["type"] == "call_end" and e["action"]["timed_out"]
    ]
    assert len(timed_out) == 1  # Ann's first call; after it, a bot chose for her at once
    before = time.time()
    rematch = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(ann))
    after = time.time()
    assert rematch.status_code == 201, rematch.text
    view = rematch.json()["view"]
    assert view["status"] == "playing"
    assert view["rules"]["turns"] == "speed"
    assert view["call"]["number"] == 1
    assert_deadline_within(view["call"]["deadline"], before + 3, after + 3)  # call_seconds kept


def assert_deadline_within(deadline: str, earliest: float, latest: float) -> None:
    """A call's deadline (to the millisecond, truncated) lies between two clock readings."""
    moment = datetime.fromisoformat(deadline).timestamp()
    assert earliest - 0.001 <= moment <= latest, (deadline, earliest, latest)


def test_a_speed_games_score_sheet_is_an_ordinary_sheet(client: Client) -> None:
    rules = {"preset": "classic", "turns": "speed"}
    answer = client.post("/v1/scoresheets", json={"players": ["Ann", "Bob"], "rules": rules})
    assert answer.status_code == 201, answer.text
    created = answer.json()
    entered = client.put(
        f"/v1/scoresheets/{created['sheet_id']}/rounds/1",
        json={"out_seat": 0, "entries": [{"seat": 0, "points": 0}, {"seat": 1, "points": 12}]},
        headers=bearer(created["edit_token"]),
    )
    assert entered.status_code == 200, entered.text
    assert entered.json()["totals"] == [0, 12]
    assert entered.json()["rules"]["turns"] == "speed"


def test_a_seat_left_during_play_is_chosen_for_by_a_bot(client: Client) -> None:
    players = [{"name": "Ann"}, {"name": "Bob"}]
    created = create(client, players, rules=SPEED, seed=8, call_seconds=3600)
    game_id = created["game_id"]
    ann, bob = (seat["token"] for seat in created["seats"])
    choose(client, game_id, ann, {"type": "draw", "source": "stock"})
    left = client.post(f"/v1/games/{game_id}/leave", headers=bearer(bob))
    assert left.status_code == 200, left.text
    assert left.json()["players"][1]["bot"] == "normal"
    # The bot chooses for Bob's seat in the open call, which ends, and in the discard call.
    eventually(
        lambda: seat_view(client, game_id, ann),
        "the bot to choose for Bob in the discard call",
        until=lambda view: view["call"]["phase"] == "discard" and view["call"]["chosen"] == [1],
        seconds=WAIT_SECONDS,
    )
    types = [e["action"]["type"] for e in log_of(client, game_id)]
    assert types == ["chosen", "chosen", "call_end", "chosen"]

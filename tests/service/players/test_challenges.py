"""Challenges over HTTP (one in-memory app; two instances on one Redis): to named players, open,
to bots alone; accepted until the last seat deals the game and every player's stream hears it;
declined with a reason, canceled, expired; the events each player gets, first again on every
connection while a challenge stands; and every bad request a clear problem that changes
nothing."""

from __future__ import annotations

import functools
import time
from typing import Any

import pytest

from service.games import records as game_records
from service.players.challenges import OPEN_CHALLENGES_MAX
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_player_events import lines
from tests.service.players.test_players import (
    Client,
    Json,
    bearer,
    my_games,
    new_player,
    two_instances,  # noqa: F401  # the fixture, for the Redis test below
)
from tests.waiting import eventually


def challenge(client: Any, key: str, **body: Any) -> Json:
    response = client.post("/v1/challenges", json=body, headers=bearer(key))
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def accept(client: Any, key: str, challenge_id: str) -> Json:
    response = client.post(f"/v1/challenges/{challenge_id}/accept", headers=bearer(key))
    assert response.status_code == 200, response.text
    accepted: Json = response.json()
    return accepted


def events_of(client: Any, key: str, kind: str) -> list[Json]:
    """The player's logged events of a kind (what is pending, sent with no id, left out)."""
    logged = lines(client, key, **{"Last-Event-ID": "0-0"})
    return [e for e in logged if e["type"] == kind and "id" in e]


def test_a_challenge_to_a_player_seats_both_once_accepted(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    made = challenge(client, ann["key"], to=[bob["player_id"]], rules="online")
    assert made["status"] == "open"
    assert made["challenger"] == {"player_id": ann["player_id"], "name": "Ann", "bot": False}
    assert made["to"] == [{"player_id": bob["player_id"], "name": "Bob", "bot": False}]
    assert (made["seats"], made["open_seats"], made["preset"]) == (2, 1, "online")
    # Bob hears of it, and hears again on every connection while it stands (no id: pending).
    [told] = events_of(client, bob["key"], "challenge")
    assert told["challenge_id"] == made["challenge_id"]
    assert told["challenge"]["challenger"]["name"] == "Ann"
    [pending] = [e for e in lines(client, bob["key"]) if e["type"] == "challenge"]
    assert "id" not in pending
    assert pending["seat"] == 1
    # Its table waits, each seat named with its player (Bob's kept for him).
    table = client.get(f"/v1/games/{made['game_id']}").json()
    assert table["status"] == "waiting"
    assert [(p["name"], p["player_id"]) for p in table["players"]] == [
        ("Ann", ann["player_id"]),
        ("Bob", bob["player_id"]),
    ]
    # Not in the open list: it is Bob's alone.
    assert client.get("/v1/challenges").json()["challenges"] == []
    accepted = accept(client, bob["key"], made["challenge_id"])
    assert accepted["seat"] == 1
    assert accepted["challenge"]["status"] == "accepted"
    assert accepted["challenge"]["accepted"] == [bob["player_id"]]
    game_id = accepted["game_id"]
    # The game is dealt: each key acts for its seat, each list holds it, each stream hears it.
    for key, seat in ((ann["key"], 0), (bob["key"], 1)):
        view = client.get(f"/v1/games/{game_id}", headers=bearer(key)).json()
        assert (view["status"], view["seat"], len(view["hand"])) == ("playing", seat, 3)
        assert [g["game_id"] for g in my_games(client, key)["games"]] == [game_id]
        eventually(
            functools.partial(events_of, client, key, "game_start"), "game_start", until=bool
        )
    assert not [e for e in lines(client, bob["key"]) if e["type"] == "challenge"]
    assert client.get(f"/v1/challenges/{made['challenge_id']}").json()["status"] == "accepted"


def test_an_open_challenge_is_listed_until_its_seats_are_taken(client: Client) -> None:
    ann, bob, cat = (new_player(client, name) for name in ("Ann", "Bob", "Cat"))
    made = challenge(client, ann["key"], seats=2, bots=["easy"], turn_seconds=60)
    assert (made["to"], made["seats"], made["open_seats"], made["bots"]) == (None, 4, 2, ["easy"])
    listed = client.get("/v1/challenges").json()["challenges"]
    assert [c["challenge_id"] for c in listed] == [made["challenge_id"]]
    first = accept(client, bob["key"], made["challenge_id"])
    assert (first["seat"], first["challenge"]["open_seats"]) == (1, 1)
    [still] = client.get("/v1/challenges").json()["challenges"]
    assert still["accepted"] == [bob["player_id"]]
    assert_problem(
        client.post(f"/v1/challenges/{made['challenge_id']}/accept", headers=bearer(bob["key"])),
        409,
        "player-seated",
    )
    second = accept(client, cat["key"], made["challenge_id"])
    assert second["seat"] == 2
    assert second["challenge"]["status"] == "accepted"
    assert client.get("/v1/challenges").json()["challenges"] == []
    view = client.get(f"/v1/games/{second['game_id']}", headers=bearer(cat["key"])).json()
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob", "Cat", "Easy bot 4"]
    assert view["players"][3]["bot"] == "easy"


def test_a_challenge_to_bots_alone_is_dealt_at_once(client: Client) -> None:
    ann = new_player(client, "Ann")
    made = challenge(client, ann["key"], to=[], bots=["hard", "easy"])
    assert made["status"] == "accepted"
    view = client.get(f"/v1/games/{made['game_id']}", headers=bearer(ann["key"])).json()
    assert (view["status"], view["seat"]) == ("playing", 0)
    eventually(lambda: events_of(client, ann["key"], "game_start"), "game_start", until=bool)


def test_a_declined_challenge_tells_its_challenger_why_and_ends(client: Client) -> None:
    ann, bob, cat = (new_player(client, name) for name in ("Ann", "Bob", "Cat"))
    made = challenge(client, ann["key"], to=[bob["player_id"], cat["player_id"]])
    challenge_id = made["challenge_id"]
    accept(client, cat["key"], challenge_id)
    declined = client.post(
        f"/v1/challenges/{challenge_id}/decline",
        json={"reason": "later"},
        headers=bearer(bob["key"]),
    )
    assert declined.status_code == 200, declined.text
    assert (declined.json()["status"], declined.json()["reason"]) == ("declined", "later")
    [told] = events_of(client, ann["key"], "challenge_declined")
    assert (told["challenge_id"], told["reason"]) == (challenge_id, "later")
    [canceled] = events_of(client, cat["key"], "challenge_canceled")
    assert canceled["challenge_id"] == challenge_id
    assert not events_of(client, bob["key"], "challenge_declined")
    assert_problem(
        client.post(f"/v1/challenges/{challenge_id}/accept", headers=bearer(bob["key"])),
        409,
        "challenge-closed",
    )
    # Off every list, and never pending again.
    for key in (ann["key"], bob["key"], cat["key"]):
        assert my_games(client, key)["games"] == []
    assert not [e for e in lines(client, bob["key"]) if e["type"] == "challenge"]


def test_a_canceled_challenge_can_no_longer_be_accepted(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    made = challenge(client, ann["key"], to=[bob["player_id"]])
    path = f"/v1/challenges/{made['challenge_id']}"
    assert_problem(
        client.post(f"{path}/cancel", headers=bearer(bob["key"])), 403, "not-your-challenge"
    )
    canceled = client.post(f"{path}/cancel", headers=bearer(ann["key"]))
    assert canceled.json()["status"] == "canceled"
    [told] = events_of(client, bob["key"], "challenge_canceled")
    assert told["challenge_id"] == made["challenge_id"]
    assert_problem(
        client.post(f"{path}/accept", headers=bearer(bob["key"])), 409, "challenge-closed"
    )
    assert_problem(
        client.post(f"{path}/cancel", headers=bearer(ann["key"])), 409, "challenge-closed"
    )


def test_a_challenge_expires(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    made = challenge(client, ann["key"], to=[bob["player_id"]], expires_in=10)
    later = time.time() + 11
    monkeypatch.setattr(game_records, "now", lambda: later)
    path = f"/v1/challenges/{made['challenge_id']}"
    assert client.get(path).json()["status"] == "expired"
    body = assert_problem(
        client.post(f"{path}/accept", headers=bearer(bob["key"])), 409, "challenge-closed"
    )
    assert "expired" in body["detail"]
    assert not [e for e in lines(client, bob["key"]) if e["type"] == "challenge"]


def test_bad_challenges_are_clear_problems_that_change_nothing(client: Client) -> None:
    ann, bob, cat = (new_player(client, name) for name in ("Ann", "Bob", "Cat"))
    headers = bearer(ann["key"])

    def refused(body: Json, status: int, kind: str, field: str | None = None) -> None:
        response = client.post("/v1/challenges", json=body, headers=headers)
        assert_problem(response, status, kind, field)

    refused({"to": [ann["player_id"]]}, 422, "invalid-field", "to")
    refused({"to": [bob["player_id"], bob["player_id"]]}, 422, "invalid-field", "to")
    refused({"to": ["nobody"]}, 404, "player-not-found")
    refused({"to": [bob["player_id"]], "seats": 1}, 422, "invalid-field", "seats")
    refused({"to": []}, 422, "bad-rules")
    refused({"seats": 7, "bots": ["easy"]}, 422, "bad-rules")
    refused({"bots": ["grandmaster"]}, 422, "invalid-field")
    refused({"expires_in": 5}, 422, "invalid-field")
    refused({"rules": "classic", "call_seconds": 20}, 422, "invalid-field", "call_seconds")
    assert_problem(client.post("/v1/challenges", json={}), 401, "player-key-required")
    assert client.get("/v1/players/me", headers=headers).json()["games"] == 0
    made = challenge(client, ann["key"], to=[bob["player_id"]])
    path = f"/v1/challenges/{made['challenge_id']}"
    assert_problem(
        client.post(f"{path}/accept", headers=bearer(cat["key"])), 403, "not-your-challenge"
    )
    assert_problem(client.post(f"{path}/accept", headers=headers), 409, "player-seated")
    assert_problem(
        client.post(f"{path}/decline", json={"reason": "bored"}, headers=bearer(bob["key"])),
        422,
        "invalid-field",
    )
    assert_problem(
        client.post(f"{path}/decline", json={}, headers=headers), 403, "not-your-challenge"
    )
    assert_problem(client.get("/v1/challenges/nothing-here"), 404, "challenge-not-found")
    assert client.get(path).json()["status"] == "open"


def test_a_player_has_a_bounded_number_of_challenges_standing(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    made = [
        challenge(client, ann["key"], to=[bob["player_id"]]) for _ in range(OPEN_CHALLENGES_MAX)
    ]
    response = client.post("/v1/challenges", json={}, headers=bearer(ann["key"]))
    assert_problem(response, 429, "challenge-quota-reached")
    client.post(f"/v1/challenges/{made[0]['challenge_id']}/cancel", headers=bearer(ann["key"]))
    challenge(client, ann["key"])


def test_a_challenge_made_on_one_instance_is_accepted_on_the_other(
    two_instances: tuple[Client, Client],  # noqa: F811  # the fixture imported above
) -> None:
    one, two = two_instances
    ann, bob = new_player(one, "Ann"), new_player(two, "Bob")
    made = challenge(one, ann["key"], to=[bob["player_id"]])
    [told] = events_of(two, bob["key"], "challenge")
    assert told["challenge_id"] == made["challenge_id"]
    accepted = accept(two, bob["key"], made["challenge_id"])
    view = one.get(f"/v1/games/{accepted['game_id']}", headers=bearer(ann["key"])).json()
    assert view["status"] == "playing"
    eventually(lambda: events_of(one, ann["key"], "game_start"), "Ann's game_start", until=bool)


def test_retries_with_an_idempotency_key_make_nothing_twice(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    body = {"to": [bob["player_id"]]}
    keyed = {**bearer(ann["key"]), "Idempotency-Key": "challenge-1"}
    first = client.post("/v1/challenges", json=body, headers=keyed)
    again = client.post("/v1/challenges", json=body, headers=keyed)
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json() == again.json()
    assert len(events_of(client, bob["key"], "challenge")) == 1
    assert_problem(
        client.post("/v1/challenges", json={"to": None}, headers=keyed),
        422,
        "idempotency-key-reused",
        "Idempotency-Key",
    )
    path = f"/v1/challenges/{first.json()['challenge_id']}"
    bob_keyed = {**bearer(bob["key"]), "Idempotency-Key": "accept-1"}
    accepted = client.post(f"{path}/accept", headers=bob_keyed)
    replayed = client.post(f"{path}/accept", headers=bob_keyed)
    assert (accepted.status_code, replayed.status_code) == (200, 200)
    assert accepted.json() == replayed.json()
    assert accepted.json()["challenge"]["status"] == "accepted"
    other = challenge(client, ann["key"], to=[bob["player_id"]])
    decline_key = {**bearer(bob["key"]), "Idempotency-Key": "decline-1"}
    declined = [
        client.post(
            f"/v1/challenges/{other['challenge_id']}/decline",
            json={"reason": "later"},
            headers=decline_key,
        )
        for _ in range(2)
    ]
    assert [d.status_code for d in declined] == [200, 200]
    assert declined[0].json() == declined[1].json()
    assert len(events_of(client, ann["key"], "challenge_declined")) == 1

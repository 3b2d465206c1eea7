"""Quick play over HTTP (one in-memory app; two instances on one Redis): seeks of the same terms
matched oldest first into a game dealt at once, every seeker's stream told; rated seeks by
rating, the nearest at once and a far one by the sweeper once its window has widened; seeks of
other terms left waiting; canceling; a matched seek whose game was never dealt (its matcher died)
dealt by the next reader; and bad requests answered with clear problems."""

from __future__ import annotations

import functools
import time
import uuid
from typing import Any

import msgspec

from service.players.seek_matching import WIDENING_PER_SECOND, WINDOW_START
from service.players.seeks import dealt
from service.ratings.model import Entry, encode
from service.ratings.store import Change
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_challenges import events_of
from tests.service.players.test_players import (
    Client,
    Json,
    bearer,
    my_games,
    new_player,
    two_instances,  # noqa: F401  # the fixture, for the Redis test below
)
from tests.waiting import eventually


def seek(client: Any, key: str, **body: Any) -> Json:
    response = client.post("/v1/seeks", json=body, headers=bearer(key))
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def test_seekers_of_a_table_are_matched_into_one_game(client: Client) -> None:
    ann, bob, cat = (new_player(client, name) for name in ("Ann", "Bob", "Cat"))
    first = seek(client, ann["key"], players=3, rules="online")
    assert (first["status"], first["game_id"], first["preset"]) == ("waiting", None, "online")
    other_terms = seek(client, bob["key"], players=2)
    assert other_terms["status"] == "waiting"
    second = seek(client, bob["key"], players=3, rules="online")
    assert second["status"] == "waiting"
    third = seek(client, cat["key"], players=3, rules="online")
    assert third["status"] == "matched"
    game_id = third["game_id"]
    for key, made in ((ann["key"], first), (bob["key"], second)):
        again = client.get(f"/v1/seeks/{made['seek_id']}", headers=bearer(key)).json()
        assert (again["status"], again["game_id"]) == ("matched", game_id)
    # Seated in the order they came, every seat a player's; each stream hears the start.
    for seat, player in enumerate((ann, bob, cat)):
        view = client.get(f"/v1/games/{game_id}", headers=bearer(player["key"])).json()
        assert (view["status"], view["seat"]) == ("playing", seat)
        assert [p["player_id"] for p in view["players"]] == [
            p["player_id"] for p in (ann, bob, cat)
        ]
        assert [g["game_id"] for g in my_games(client, player["key"])["games"]] == [game_id]
        told = functools.partial(events_of, client, player["key"], "game_start")
        eventually(told, "game_start", until=bool)
    # Bob's seek of other terms still waits.
    waiting = client.get(f"/v1/seeks/{other_terms['seek_id']}", headers=bearer(bob["key"]))
    assert waiting.json()["status"] == "waiting"


def test_rated_seeks_are_matched_by_rating_and_unrated_ones_by_their_terms(
    client: Client,
) -> None:
    ann, bob, cat, dan = (new_player(client, name) for name in ("Ann", "Bob", "Cat", "Dan"))
    # Bob is established at 28.5 (mu 31.5, sigma 1); the others are newcomers, matched by
    # their mu (25). 3.5 points apart: Bob's window takes the others in after a second.
    far = 28.5 - 25.0
    bob_entry = Entry(mu=31.5, sigma=1.0, games=20, name="Bob", bot=False)
    change = Change(bob["player_id"], None, encode(bob_entry), bob_entry.rating, False)
    with client.portal() as portal:
        portal.call(client.app.state["services"].ratings.replace, "classic", [change])
    sent = time.monotonic()
    bob_seek = seek(client, bob["key"], rated=True)
    ann_seek = seek(client, ann["key"], rated=True)
    if time.monotonic() - sent < (far - WINDOW_START) / WIDENING_PER_SECOND:
        assert ann_seek["status"] == "waiting"  # unless the machine stalled that long
    # Cat is Ann's rating: matched with Ann at once, though Bob waited longer.
    cat_seek = seek(client, cat["key"], rated=True)
    assert cat_seek["status"] == "matched"
    game = client.get(f"/v1/games/{cat_seek['game_id']}").json()
    assert [p["player_id"] for p in game["players"]] == [ann["player_id"], cat["player_id"]]
    # Unrated seeks are matched by their terms alone, ratings or not.
    assert seek(client, bob["key"], rated=False)["status"] == "waiting"
    assert seek(client, ann["key"], rated=False)["status"] == "matched"
    # Dan is as far from Bob as Ann was: the sweeper matches them once Bob's window has
    # widened, with no other seek coming, and both streams hear the start.
    dan_seek = seek(client, dan["key"], rated=True)
    for player in (bob, dan):
        told = functools.partial(events_of, client, player["key"], "game_start")
        eventually(told, f"{player['name']}'s game_start", until=bool)
    mine = client.get(f"/v1/seeks/{dan_seek['seek_id']}", headers=bearer(dan["key"])).json()
    again = client.get(f"/v1/seeks/{bob_seek['seek_id']}", headers=bearer(bob["key"])).json()
    assert mine["status"] == again["status"] == "matched"
    assert mine["game_id"] == again["game_id"]


def test_a_waiting_seek_is_canceled_and_a_matched_one_is_not(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    made = seek(client, ann["key"])
    path = f"/v1/seeks/{made['seek_id']}"
    assert client.delete(path, headers=bearer(ann["key"])).status_code == 204
    assert client.get(path, headers=bearer(ann["key"])).json()["status"] == "canceled"
    # Bob's seek now waits alone: Ann's canceled one is not matched.
    assert seek(client, bob["key"])["status"] == "waiting"
    matched = seek(client, ann["key"])
    assert matched["status"] == "matched"
    response = client.delete(f"/v1/seeks/{matched['seek_id']}", headers=bearer(ann["key"]))
    body = assert_problem(response, 409, "seek-taken")
    assert matched["game_id"] in body["detail"]


def test_bad_seeks_are_clear_problems(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    headers = bearer(ann["key"])
    assert_problem(client.post("/v1/seeks", json={}), 401, "player-key-required")
    for body, kind in (
        ({"players": 1}, "invalid-field"),
        ({"players": 9}, "bad-rules"),
        ({"rules": "chess"}, "invalid-field"),
        ({"extra": 1}, "invalid-field"),
        ({"rules": {"preset": "classic", "turns": "speed"}, "turn_seconds": 30}, "invalid-field"),
    ):
        assert_problem(client.post("/v1/seeks", json=body, headers=headers), 422, kind)
    made = seek(client, ann["key"], players=4)
    assert_problem(
        client.post("/v1/seeks", json={"players": 4}, headers=headers), 409, "seek-taken"
    )
    path = f"/v1/seeks/{made['seek_id']}"
    assert_problem(client.get(path, headers=bearer(bob["key"])), 404, "seek-not-found")
    assert_problem(client.delete(path, headers=bearer(bob["key"])), 404, "seek-not-found")
    assert client.get(path, headers=headers).json()["status"] == "waiting"


def test_a_match_whose_game_was_never_dealt_is_dealt_by_its_next_reader(client: Client) -> None:
    """The instance that matched died before dealing: the seek's state names the game and its
    seeks, and reading the seek deals it, once."""
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    services = client.app.state["services"]
    made = seek(client, ann["key"])
    game_id = f"lost-{uuid.uuid4().hex[:8]}"
    # Bob's seek matched in the pool alone, as a matcher does before it deals.
    with client.portal() as portal:
        record = portal.call(services.seeks.get, made["seek_id"])[0]
        bob_seek = msgspec.structs.replace(
            record, seek_id="b-seek", player_id=bob["player_id"], name="Bob"
        )
        state = portal.call(services.seeks.add, bob_seek, game_id)
    assert state.status == "matched"
    assert client.get(f"/v1/games/{game_id}", headers=bearer(ann["key"])).status_code == 404
    again = client.get(f"/v1/seeks/{made['seek_id']}", headers=bearer(ann["key"])).json()
    assert (again["status"], again["game_id"]) == ("matched", game_id)
    view = client.get(f"/v1/games/{game_id}", headers=bearer(bob["key"])).json()
    assert (view["status"], view["seat"]) == ("playing", 1)
    with client.portal() as portal:
        portal.call(dealt, services, state)  # a second reader deals nothing more
    assert my_games(client, ann["key"])["games"][0]["game_id"] == game_id


def test_seekers_on_two_instances_are_matched_into_one_game(
    two_instances: tuple[Client, Client],  # noqa: F811  # the fixture imported above
) -> None:
    one, two = two_instances
    ann, bob = new_player(one, "Ann"), new_player(two, "Bob")
    first = seek(one, ann["key"], turn_seconds=60)
    second = seek(two, bob["key"], turn_seconds=60)
    assert second["status"] == "matched"
    again = one.get(f"/v1/seeks/{first['seek_id']}", headers=bearer(ann["key"])).json()
    assert again["game_id"] == second["game_id"]
    eventually(lambda: events_of(one, ann["key"], "game_start"), "Ann's game_start", until=bool)


def test_a_seek_retried_with_its_idempotency_key_is_the_same_seek(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    keyed = {**bearer(ann["key"]), "Idempotency-Key": "seek-1"}
    first = client.post("/v1/seeks", json={"players": 2}, headers=keyed)
    again = client.post("/v1/seeks", json={"players": 2}, headers=keyed)
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json() == again.json()
    assert first.json()["status"] == "waiting"
    matched = seek(client, bob["key"], players=2)
    # A retry after the match answers the seek as it stands: matched, to the same game.
    later = client.post("/v1/seeks", json={"players": 2}, headers=keyed).json()
    assert (later["seek_id"], later["status"]) == (first.json()["seek_id"], "matched")
    assert later["game_id"] == matched["game_id"]
    assert_problem(
        client.post("/v1/seeks", json={"players": 3}, headers=keyed),
        422,
        "idempotency-key-reused",
        "Idempotency-Key",
    )

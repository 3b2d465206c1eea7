"""Players over HTTP (one in-memory app, and two instances on one Redis): a key made once and
replaced, profiles, a key acting for its player's seat on every game route beside the seat's
token, seats for ``me`` at creation and by invite, the player's games with whose turn it is, and
every bad request answered with a clear problem that changes nothing."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.identity import keys
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem

Client = TestClient[Litestar]
Json = dict[str, Any]
DRAW = {"type": "draw", "source": "stock"}


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def new_player(client: httpx.Client, name: str = "Ann", **extra: Any) -> Json:
    response = client.post("/v1/players", json={"name": name, **extra})
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def create(client: httpx.Client, key: str | None, players: list[Json], **extra: Any) -> Json:
    response = client.post(
        "/v1/games", json={"players": players, **extra}, headers={} if key is None else bearer(key)
    )
    assert response.status_code == 201, response.text
    created: Json = response.json()
    return created


def my_games(client: httpx.Client, key: str, **params: Any) -> Json:
    response = client.get("/v1/players/me/games", params=params, headers=bearer(key))
    assert response.status_code == 200, response.text
    page: Json = response.json()
    return page


def test_a_player_is_made_with_a_key_shown_once_and_a_public_profile(client: Client) -> None:
    ann = new_player(client, "  Ann ")
    assert ann["name"] == "Ann"
    assert ann["bot"] is False
    assert ann["key"].startswith(keys.KEY_PREFIX)
    assert len(ann["key"]) == len(keys.KEY_PREFIX) + 43  # 256 bits in URL-safe base64
    me = client.get("/v1/players/me", headers=bearer(ann["key"]))
    assert me.status_code == 200, me.text
    assert me.json()["player_id"] == ann["player_id"]
    assert me.json()["games"] == 0
    public = client.get(f"/v1/players/{ann['player_id']}").json()
    assert public == me.json()
    assert "key" not in public
    robot = new_player(client, "Robo", bot=True)
    assert client.get(f"/v1/players/{robot['player_id']}").json()["bot"] is True


def test_bad_requests_for_players_are_clear_problems(client: Client) -> None:
    assert_problem(client.post("/v1/players", json={"name": "A\u202eB"}), 422, "invalid-field")
    assert_problem(client.post("/v1/players", json={}), 422, "invalid-field")
    assert_problem(client.post("/v1/players", json={"name": "A", "x": 1}), 422, "invalid-field")
    assert_problem(client.get("/v1/players/me"), 401, "player-key-required")
    unknown = bearer(keys.new_key())
    assert_problem(client.get("/v1/players/me", headers=unknown), 401, "unknown-player-key")
    assert_problem(client.get("/v1/players/me/games", headers=unknown), 401, "unknown-player-key")
    seated = create(client, None, [{"name": "Ann"}, {"name": "Bob"}])
    seat_token = bearer(seated["seats"][0]["token"])
    assert_problem(client.get("/v1/players/me", headers=seat_token), 401, "player-key-required")
    assert_problem(client.get("/v1/players/p-nobody"), 404, "player-not-found")


def test_a_key_acts_for_its_player_s_seat_beside_the_seat_s_token(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    created = create(client, ann["key"], [{"me": True}, {"name": "Bob"}])
    game_id = created["game_id"]
    [ann_seat, bob_seat] = created["seats"]
    assert (ann_seat["name"], bob_seat["name"]) == ("Ann", "Bob")
    players = created["view"]["players"]
    assert [p["player_id"] for p in players] == [ann["player_id"], None]

    as_key = client.get(f"/v1/games/{game_id}", headers=bearer(ann["key"])).json()
    as_token = client.get(f"/v1/games/{game_id}", headers=bearer(ann_seat["token"])).json()
    assert as_key == as_token
    assert as_key["seat"] == 0
    assert as_key["hand"]

    on_turn = as_key["turn"]
    actor = bearer(ann["key"]) if on_turn == 0 else bearer(bob_seat["token"])
    drawn = client.post(f"/v1/games/{game_id}/actions", json=DRAW, headers=actor)
    assert drawn.status_code == 200, drawn.text
    log = client.get(f"/v1/games/{game_id}/log", headers=bearer(ann["key"]))
    assert log.status_code == 200
    url = client.post(f"/v1/games/{game_id}/stream-url", headers=bearer(ann["key"]))
    assert url.status_code == 200, url.text

    # Another player's key holds no seat here: a 401 that changes nothing.
    stranger = client.get(f"/v1/games/{game_id}", headers=bearer(bob["key"]))
    assert_problem(stranger, 401, "unknown-token")
    acted = client.post(f"/v1/games/{game_id}/actions", json=DRAW, headers=bearer(bob["key"]))
    assert_problem(acted, 401, "unknown-token")
    assert client.get(f"/v1/games/{game_id}").json()["version"] == 1


def test_seats_for_me_need_a_player_s_key_and_one_seat_each(client: Client) -> None:
    ann = new_player(client)
    for headers in (
        {},
        bearer("not-a-key"),
        bearer(create(client, None, [{"name": "X"}, {"name": "Y"}])["seats"][0]["token"]),
    ):
        response = client.post(
            "/v1/games", json={"players": [{"me": True}, {"name": "B"}]}, headers=headers
        )
        assert_problem(response, 401, "player-key-required")
    twice = client.post(
        "/v1/games", json={"players": [{"me": True}, {"me": True}]}, headers=bearer(ann["key"])
    )
    assert_problem(twice, 422, "invalid-seat", "players[1]")
    named = client.post(
        "/v1/games",
        json={"players": [{"me": True, "name": "Z"}, {"name": "B"}]},
        headers=bearer(ann["key"]),
    )
    assert_problem(named, 422, "invalid-seat", "players[0]")
    assert my_games(client, ann["key"]) == {"games": []}


def test_a_player_claims_an_invite_as_me_once(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    table = create(client, ann["key"], [{"me": True}, {"open": True}, {"open": True}])
    code = table["invite_code"]
    again = client.post(f"/v1/invites/{code}", json={"me": True}, headers=bearer(ann["key"]))
    assert_problem(again, 409, "player-seated")
    no_key = client.post(f"/v1/invites/{code}", json={"me": True})
    assert_problem(no_key, 401, "player-key-required")
    both = client.post(
        f"/v1/invites/{code}", json={"me": True, "name": "B"}, headers=bearer(bob["key"])
    )
    assert_problem(both, 422, "invalid-seat")
    claimed = client.post(f"/v1/invites/{code}", json={"me": True}, headers=bearer(bob["key"]))
    assert claimed.status_code == 201, claimed.text
    assert claimed.json()["seat"] == 1
    waiting = client.get(f"/v1/games/{table['game_id']}", headers=bearer(bob["key"])).json()
    assert (waiting["status"], waiting["seat"]) == ("waiting", 1)
    [entry] = my_games(client, bob["key"])["games"]
    assert (entry["game_id"], entry["seat"], entry["status"]) == (table["game_id"], 1, "waiting")
    # Leaving gives the seat up: the key no longer acts for it, the game leaves the list.
    left = client.post(f"/v1/games/{table['game_id']}/leave", headers=bearer(bob["key"]))
    assert left.status_code == 200, left.text
    assert my_games(client, bob["key"]) == {"games": []}
    gone = client.get(f"/v1/games/{table['game_id']}", headers=bearer(bob["key"]))
    assert_problem(gone, 401, "unknown-token")


def test_a_replaced_key_stops_working_everywhere_at_once(client: Client) -> None:
    ann = new_player(client)
    game_id = create(client, ann["key"], [{"me": True}, {"name": "Bob"}])["game_id"]
    replaced = client.post("/v1/players/me/key", headers=bearer(ann["key"]))
    assert replaced.status_code == 201, replaced.text
    new_key = replaced.json()["key"]
    assert new_key != ann["key"]
    for path in ("/v1/players/me", f"/v1/games/{game_id}"):
        assert_problem(client.get(path, headers=bearer(ann["key"])), 401, "unknown-player-key")
        assert client.get(path, headers=bearer(new_key)).status_code == 200
    assert client.get(f"/v1/games/{game_id}", headers=bearer(new_key)).json()["seat"] == 0
    assert [g["game_id"] for g in my_games(client, new_key)["games"]] == [game_id]


def test_my_games_say_whose_turn_newest_first_a_page_at_a_time(client: Client) -> None:
    ann = new_player(client)
    made = [
        create(client, ann["key"], [{"me": True}, {"name": f"Opponent {n}"}], turn_seconds=60)
        for n in range(7)
    ]
    table = create(client, ann["key"], [{"me": True}, {"open": True}])
    newest_first = [table["game_id"], *[g["game_id"] for g in reversed(made)]]
    seen: list[str] = []
    cursor = None
    while True:
        page = my_games(
            client, ann["key"], limit=3, **({} if cursor is None else {"cursor": cursor})
        )
        seen += [g["game_id"] for g in page["games"]]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == newest_first
    entries = {g["game_id"]: g for g in my_games(client, ann["key"], limit=50)["games"]}
    for game in made:
        entry, view = entries[game["game_id"]], game["view"]
        assert entry["status"] == "playing"
        assert entry["turn"] == view["turn"]
        assert entry["my_turn"] == (view["turn"] == 0)
        assert entry["deadline"] is not None  # the turn clock runs
        assert [p["name"] for p in entry["players"]] == ["Ann", game["seats"][1]["name"]]
        assert entry["players"][0]["player_id"] == ann["player_id"]
    assert entries[table["game_id"]]["status"] == "waiting"
    waiting = my_games(client, ann["key"], status="waiting")["games"]
    assert [g["game_id"] for g in waiting] == [table["game_id"]]
    assert my_games(client, ann["key"], status="finished") == {"games": []}
    bad = client.get("/v1/players/me/games", params={"cursor": "nope!"}, headers=bearer(ann["key"]))
    assert_problem(bad, 422, "invalid-field", "cursor")
    for params in ({"limit": 0}, {"limit": 51}, {"status": "lost"}):
        response = client.get("/v1/players/me/games", params=params, headers=bearer(ann["key"]))
        assert response.status_code in (400, 422), response.text


def test_a_listed_game_that_is_not_stored_is_left_out_and_forgotten(client: Client) -> None:
    """A game is listed before it is stored: one whose creation then failed (or that expired)
    is skipped by the list and dropped from it."""
    ann = new_player(client)
    game_id = create(client, ann["key"], [{"me": True}, {"name": "Bob"}])["game_id"]
    players = client.app.state["services"].players
    client.blocking_portal.call(players.add_game, ann["player_id"], (9e9, "never-stored"))
    assert [g["game_id"] for g in my_games(client, ann["key"])["games"]] == [game_id]
    assert client.get("/v1/players/me", headers=bearer(ann["key"])).json()["games"] == 1


def test_no_key_reaches_a_log(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    ann = new_player(client)
    game_id = create(client, ann["key"], [{"me": True}, {"name": "Bob"}])["game_id"]
    client.get(f"/v1/games/{game_id}", headers=bearer(ann["key"]))
    new_key = client.post("/v1/players/me/key", headers=bearer(ann["key"])).json()["key"]
    client.get("/v1/players/me", headers=bearer(ann["key"]))  # refused: a 401 logged
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/v1/players/me" in logged
    assert ann["key"] not in logged
    assert new_key not in logged


def play_to_end(
    client: httpx.Client, game_id: str, secrets: list[str], rules: str = "classic"
) -> Json:
    """Each seat on turn draws from the stock and makes the analyser's discard, acting with
    its secret (a player's key or a seat's token)."""
    view = client.get(f"/v1/games/{game_id}").json()
    while view["status"] != "finished":
        auth = bearer(secrets[view["turn"]])
        drawn = client.post(f"/v1/games/{game_id}/actions", json=DRAW, headers=auth).json()
        analysis = client.post(
            "/v1/analyse", json={"hand": drawn["hand"], "wild": drawn["wild"], "rules": rules}
        ).json()
        discard = {
            "type": "discard",
            "card": analysis["suggested_discard"],
            "go_out": analysis["can_go_out"] and drawn["out_seat"] is None,
        }
        response = client.post(f"/v1/games/{game_id}/actions", json=discard, headers=auth)
        assert response.status_code == 200, response.text
        view = response.json()
    finished: Json = view
    return finished


def test_a_finished_game_shows_its_result_and_its_rematch_keeps_the_players(
    client: Client,
) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    table = create(client, ann["key"], [{"me": True}, {"open": True}])
    claimed = client.post(
        f"/v1/invites/{table['invite_code']}", json={"me": True}, headers=bearer(bob["key"])
    )
    assert claimed.status_code == 201
    game_id = table["game_id"]
    end = play_to_end(client, game_id, [ann["key"], bob["key"]])
    [entry] = my_games(client, ann["key"], status="finished")["games"]
    assert entry["winners"] == end["winners"]
    assert [p["score"] for p in entry["players"]] == [p["score"] for p in end["players"]]
    assert (entry["my_turn"], entry["turn"], entry["deadline"]) == (False, None, None)

    rematches = [
        client.post(f"/v1/games/{game_id}/rematch", headers=bearer(p["key"])) for p in (ann, bob)
    ]
    assert [r.status_code for r in rematches] == [201, 201], rematches[0].text
    rematch_id = rematches[0].json()["game_id"]
    dealt = client.get(f"/v1/games/{rematch_id}", headers=bearer(bob["key"])).json()
    assert (dealt["status"], dealt["seat"]) == ("playing", 1)
    assert [p["player_id"] for p in dealt["players"]] == [ann["player_id"], bob["player_id"]]
    for player in (ann, bob):
        listed = [g["game_id"] for g in my_games(client, player["key"])["games"]]
        assert listed == [rematch_id, game_id]


@pytest.fixture
def two_instances(redis_settings: Settings) -> Iterator[tuple[Client, Client]]:
    """Two apps on one Redis, under the test's own key prefix (deleted afterwards: players
    never expire)."""
    with (
        TestClient(create_app(redis_settings)) as one,
        TestClient(create_app(redis_settings)) as two,
    ):
        yield one, two


@pytest.mark.redis
def test_a_player_made_on_one_instance_plays_and_lists_on_the_other(
    two_instances: tuple[Client, Client],
) -> None:
    one, two = two_instances
    ann = new_player(one, "Ann")
    created = create(two, ann["key"], [{"me": True}, {"bot": "easy"}])
    game_id = created["game_id"]
    assert one.get(f"/v1/games/{game_id}", headers=bearer(ann["key"])).json()["seat"] == 0
    assert [g["game_id"] for g in my_games(one, ann["key"])["games"]] == [game_id]
    new_key = two.post("/v1/players/me/key", headers=bearer(ann["key"])).json()["key"]
    assert_problem(one.get("/v1/players/me", headers=bearer(ann["key"])), 401, "unknown-player-key")
    assert one.get("/v1/players/me", headers=bearer(new_key)).json()["games"] == 1

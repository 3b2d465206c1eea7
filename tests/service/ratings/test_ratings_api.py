"""Ratings over HTTP (one in-memory app, and two instances on one Redis): a rated challenge
played to the end moves both players' ratings once, shown on their profiles and on the
leaderboard's provisional board; a game against a built-in level rates the level as the player
``bot-<level>``; unrated games and games of seat tokens change nothing; the rebuild agrees with
the live ratings; bad leaderboard requests are clear problems."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
from typing import Any

import pytest
from litestar import Litestar

from service.app import create_app
from service.games import lifecycle as game_flow
from service.games.bus import Loaded
from service.http import cursors
from service.ratings import model
from service.ratings.rebuild import differences
from service.ratings.store import MemoryRatingStore
from service.ratings.updates import apply_result, ratings_told, result_for
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_challenges import accept, challenge
from tests.service.players.test_players import (
    DRAW,
    Client,
    Json,
    bearer,
    create,
    new_player,
    play_to_end,
    two_instances,  # noqa: F401  # the fixture, for the Redis tests below
)
from tests.waiting import eventually


@pytest.fixture
def app() -> Litestar:
    """No rate limit: a game against a bot is watched by asking for its view as often as
    ``eventually`` does, from one address, and on a slow machine that passes the limit's 1,200
    requests a minute (the limits have tests of their own, tests/service/http)."""
    return create_app(Settings(rate_limit_per_minute=0))


def ratings(client: Any, player_id: str) -> Json:
    response = client.get(f"/v1/players/{player_id}")
    assert response.status_code == 200, response.text
    found: Json = response.json()["ratings"]
    return found


def board(client: Any, preset: str = "classic", key: str | None = None, **params: Any) -> Json:
    headers = {} if key is None else bearer(key)
    response = client.get(f"/v1/leaderboards/{preset}", params=params, headers=headers)
    assert response.status_code == 200, response.text
    page: Json = response.json()
    return page


def rated_game(client: Any, ann: Json, bob: Json, *, rated: bool = True, **terms: Any) -> str:
    """A challenge from Ann to Bob, accepted: its game's id."""
    made = challenge(client, ann["key"], to=[bob["player_id"]], rated=rated, **terms)
    return str(accept(client, bob["key"], made["challenge_id"])["game_id"])


def test_a_rated_game_moves_both_ratings_once(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    assert ratings(client, ann["player_id"]) == {}
    game_id = rated_game(client, ann, bob)
    end = play_to_end(client, game_id, [ann["key"], bob["key"]])
    [winner] = end["winners"]
    loser = 1 - winner
    players = (ann, bob)
    eventually(lambda: ratings(client, bob["player_id"]), "Bob's rating")
    won = ratings(client, players[winner]["player_id"])["classic"]
    lost = ratings(client, players[loser]["player_id"])["classic"]
    assert (won["games"], lost["games"]) == (1, 1)
    assert won["provisional"]
    assert lost["provisional"]
    assert won["mu"] > 25 > lost["mu"]
    assert won["rating"] == pytest.approx(won["mu"] - 3 * won["sigma"])
    me = client.get("/v1/players/me", headers=bearer(ann["key"])).json()
    assert me["ratings"] == ratings(client, ann["player_id"])
    # Loading the finished game again (any request) applies nothing more.
    client.get(f"/v1/games/{game_id}", headers=bearer(ann["key"]))
    services = client.app.state["services"]
    with client.portal() as portal:
        loaded = portal.call(game_flow.load_game, services, game_id)
        result = portal.call(result_for, services.players, game_id, loaded.record, loaded.state)
        assert result is not None
        assert portal.call(apply_result, services.ratings, result) == "done"
        assert portal.call(differences, services.ratings) == []
    assert ratings(client, ann["player_id"])["classic"]["games"] == 1

    # Provisional players are on their own board; the established one is empty.
    assert board(client) == {"key": "classic", "provisional": False, "total": 0, "players": []}
    provisional = board(client, provisional=True)
    assert [p["player_id"] for p in provisional["players"]] == [
        players[winner]["player_id"],
        players[loser]["player_id"],
    ]
    assert [p["rank"] for p in provisional["players"]] == [1, 2]
    assert provisional["players"][0]["rating"] == won["rating"]
    mine = board(client, key=ann["key"], around="me", provisional=True)
    assert ann["player_id"] in [p["player_id"] for p in mine["players"]]
    not_ranked = client.get("/v1/leaderboards/classic?around=me", headers=bearer(ann["key"]))
    assert_problem(not_ranked, 404, "player-not-ranked")


def history(client: Any, player_id: str, preset: str = "classic", **params: Any) -> list[Json]:
    response = client.get(f"/v1/players/{player_id}/ratings/{preset}", params=params)
    assert response.status_code == 200, response.text
    body: Json = response.json()
    assert (body["player_id"], body["key"]) == (
        player_id,
        preset + (":speed" if params.get("turns") == "speed" else ""),
    )
    points: list[Json] = body["points"]
    return points


def test_a_rated_game_is_a_point_of_each_player_s_rating_history(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    assert history(client, ann["player_id"]) == []
    game_id = rated_game(client, ann, bob)
    [winner] = play_to_end(client, game_id, [ann["key"], bob["key"]])["winners"]
    eventually(lambda: history(client, bob["player_id"]), "Bob's history")
    for seat, player in enumerate((ann, bob)):
        [point] = history(client, player["player_id"])
        rating = ratings(client, player["player_id"])["classic"]
        assert point["game_id"] == game_id
        assert (point["rating"], point["mu"], point["sigma"], point["games"]) == (
            rating["rating"],
            rating["mu"],
            rating["sigma"],
            1,
        )
        assert (point["place"], point["seats"]) == (1 if seat == winner else 2, 2)
        assert point["finished"].endswith("Z")
    assert history(client, ann["player_id"], turns="speed") == []
    assert history(client, "bot-easy") == []
    assert_problem(client.get("/v1/players/nobody/ratings/classic"), 404, "player-not-found")
    assert_problem(
        client.get(f"/v1/players/{ann['player_id']}/ratings/poker"), 404, "leaderboard-not-found"
    )


def test_unrated_games_and_games_of_seat_tokens_change_no_rating(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    casual = rated_game(client, ann, bob, rated=False)
    play_to_end(client, casual, [ann["key"], bob["key"]])
    tokens = create(client, None, [{"name": "Cat"}, {"name": "Dan"}])
    play_to_end(client, tokens["game_id"], [s["token"] for s in tokens["seats"]])
    mixed = create(client, ann["key"], [{"me": True}, {"name": "Eve"}])
    play_to_end(client, mixed["game_id"], [ann["key"], mixed["seats"][1]["token"]])
    custom = {"preset": "classic", "going_out_bonus": -10}
    for path, body in (
        ("/v1/challenges", {"to": [bob["player_id"]], "rules": custom, "rated": True}),
        ("/v1/seeks", {"rules": custom, "rated": True}),
    ):
        refused = client.post(path, json=body, headers=bearer(ann["key"]))
        assert_problem(refused, 422, "invalid-field", "rated")
    services = client.app.state["services"]
    with client.portal() as portal:
        for game_id in (casual, tokens["game_id"], mixed["game_id"]):
            loaded = portal.call(game_flow.load_game, services, game_id)
            assert loaded.state.status == "finished"
            assert loaded.record.rated == ()
            assert (
                portal.call(result_for, services.players, game_id, loaded.record, loaded.state)
                is None
            )
        assert portal.call(services.ratings.journal, "classic") == []
    assert ratings(client, ann["player_id"]) == ratings(client, bob["player_id"]) == {}


def play_seat_to_end(client: Client, game_id: str, key: str) -> Json:
    """The key's seat draws from the stock and makes the analyser's discard on each of its
    turns; the computer players move in between."""
    while True:
        view = client.get(f"/v1/games/{game_id}", headers=bearer(key)).json()
        if view["status"] == "finished":
            return view  # type: ignore[no-any-return]
        if not view["legal"]:
            eventually(functools.partial(_moved_on, client, game_id, view["version"]), "a bot")
            continue
        drawn = client.post(f"/v1/games/{game_id}/actions", json=DRAW, headers=bearer(key)).json()
        analysis = client.post(
            "/v1/analyse", json={"hand": drawn["hand"], "wild": drawn["wild"], "rules": "classic"}
        ).json()
        discard = {
            "type": "discard",
            "card": analysis["suggested_discard"],
            "go_out": analysis["can_go_out"] and drawn["out_seat"] is None,
        }
        answer = client.post(f"/v1/games/{game_id}/actions", json=discard, headers=bearer(key))
        assert answer.status_code == 200, answer.text


def _moved_on(client: Client, game_id: str, version: int) -> bool:
    return bool(client.get(f"/v1/games/{game_id}").json()["version"] != version)


def test_a_built_in_level_is_rated_as_a_player(client: Client) -> None:
    ann = new_player(client, "Ann")
    made = challenge(client, ann["key"], to=[], bots=["easy"], rated=True)
    play_seat_to_end(client, made["game_id"], ann["key"])
    eventually(lambda: ratings(client, "bot-easy"), "the level's rating")
    level = client.get("/v1/players/bot-easy").json()
    assert (level["name"], level["bot"], level["online"]) == ("Easy bot", True, True)
    assert level["ratings"]["classic"]["games"] == 1
    listed = board(client, provisional=True)["players"]
    assert {p["player_id"]: p["bot"] for p in listed} == {"bot-easy": True, ann["player_id"]: False}
    assert_problem(client.get("/v1/players/bot-nobody"), 404, "player-not-found")


def test_a_finished_game_left_unrated_by_a_dead_instance_is_rated_when_loaded(
    client: Client,
) -> None:
    """An instance died between the finishing commit and the ratings' step: another that loads
    the game applies it (a store of its own here stands for the ratings the first never wrote)."""
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    game_id = rated_game(client, ann, bob)
    play_to_end(client, game_id, [ann["key"], bob["key"]])
    services = client.app.state["services"]
    elsewhere = MemoryRatingStore()
    heard = ratings_told(elsewhere, services.players)
    with client.portal() as portal:
        loaded = portal.call(game_flow.load_game, services, game_id)

        async def load_twice() -> None:
            heard(Loaded(game_id, loaded.record, loaded.state))
            heard(Loaded(game_id, loaded.record, loaded.state))

        portal.call(load_twice)
        eventually(
            lambda: portal.call(elsewhere.is_applied, "classic", game_id), "the game applied"
        )
        assert len(portal.call(elsewhere.journal, "classic")) == 1


def test_bad_leaderboard_requests_are_clear_problems(client: Client) -> None:
    ann = new_player(client, "Ann")
    assert_problem(client.get("/v1/leaderboards/chess"), 404, "leaderboard-not-found")
    assert_problem(client.get("/v1/leaderboards/classic?around=me"), 401, "player-key-required")
    assert_problem(client.get("/v1/leaderboards/classic?around=nobody"), 404, "player-not-ranked")
    both = client.get(
        "/v1/leaderboards/classic",
        params={"around": "me", "cursor": "x"},
        headers=bearer(ann["key"]),
    )
    assert_problem(both, 422, "invalid-field", "cursor")
    assert_problem(client.get("/v1/leaderboards/classic?cursor=nope!"), 422, "invalid-field")
    for rank in (-1.0, float("inf")):
        cursor = cursors.cursor_of((rank, "rank"))
        answer = client.get("/v1/leaderboards/classic", params={"cursor": cursor})
        assert_problem(answer, 422, "invalid-field", "cursor")
    stranger = client.get("/v1/leaderboards/classic", headers=bearer("not-a-key"))
    assert_problem(stranger, 401, "player-key-required")
    for params in ({"limit": 0}, {"limit": 101}, {"turns": "fast"}):
        response = client.get("/v1/leaderboards/classic", params=params)
        assert response.status_code in (400, 422), response.text
    speed = board(client, turns="speed")
    assert speed["key"] == "classic:speed"


def test_a_leaderboard_pages_and_centres_on_a_player(client: Client) -> None:
    """Twelve players with ten games or more each (results applied as games would): pages of
    five follow the ranks to the end; a page around a player has it in the middle."""
    services = client.app.state["services"]
    ids = [f"pl{n:02}" for n in range(12)]
    with client.portal() as portal:
        for game in range(70):
            seats = tuple(
                model.Seated(p, p.upper(), False)
                for p in (ids[game % 12], ids[(game * 5 + 1) % 12])
            )
            if seats[0].player_id == seats[1].player_id:
                continue
            result = model.GameResult(f"game{game}", "online", seats, (0, 1), float(game))
            portal.call(apply_result, services.ratings, result)
    established = [p for p in ids if ratings_of_store(client, p) >= model.PROVISIONAL_GAMES]
    seen: list[Json] = []
    cursor = None
    while True:
        page = board(client, "online", limit=5, **({} if cursor is None else {"cursor": cursor}))
        seen += page["players"]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert page["total"] == len(established) == len(seen)
    assert [p["rank"] for p in seen] == list(range(1, len(seen) + 1))
    assert [p["rating"] for p in seen] == sorted((p["rating"] for p in seen), reverse=True)
    middle = seen[len(seen) // 2]
    around = board(client, "online", around=middle["player_id"], limit=5)["players"]
    assert around[2]["player_id"] == middle["player_id"]
    assert around == seen[middle["rank"] - 3 : middle["rank"] + 2]


def ratings_of_store(client: Client, player_id: str) -> int:
    """The player's rated games under ``online``, as the store keeps them."""
    services = client.app.state["services"]
    with client.portal() as portal:
        [entry] = portal.call(services.ratings.entries, "online", [player_id])
    return 0 if entry is None else model.decode_entry(entry).games


@pytest.mark.redis
def test_a_rated_game_on_two_instances_counts_once_and_the_rebuild_agrees(
    two_instances: tuple[Client, Client],  # noqa: F811  # the fixture imported above
    redis_settings: Settings,
) -> None:
    one, two = two_instances
    ann, bob = new_player(one, "Ann"), new_player(two, "Bob")
    game_id = rated_game(one, ann, bob)
    play_to_end(two, game_id, [ann["key"], bob["key"]])
    eventually(lambda: ratings(one, ann["player_id"]), "Ann's rating, on the other instance")
    assert ratings(two, bob["player_id"])["classic"]["games"] == 1

    # Both instances apply the game at once, as two that saw the finish would: nothing more.
    outcomes: list[str] = []

    def apply_on(client: Client) -> None:
        services = client.app.state["services"]
        with client.portal() as portal:
            loaded = portal.call(game_flow.load_game, services, game_id)
            result = portal.call(result_for, services.players, game_id, loaded.record, loaded.state)
            assert result is not None
            outcomes.append(portal.call(apply_result, services.ratings, result))

    threads = [threading.Thread(target=apply_on, args=(c,)) for c in (one, two, one, two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["done"] * 4
    assert ratings(one, ann["player_id"])["classic"]["games"] == 1
    provisional = board(two, provisional=True, around=bob["player_id"], limit=100)
    assert bob["player_id"] in [p["player_id"] for p in provisional["players"]]

    # The rebuild command, on the same Redis, finds every rating as the journal makes it.
    rebuilt = subprocess.run(
        [sys.executable, "-m", "service.rebuild"],
        env={
            **os.environ,
            "REDIS_URL": redis_settings.redis_url,
            "REDIS_KEY_PREFIX": redis_settings.redis_key_prefix,
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert "0 ratings differ from the rebuild" in rebuilt.stdout

"""Tournaments over HTTP, on one in-memory app and on two instances of one Redis: a round robin
of the four built-in levels runs itself to the end with its standings as the games' totals
score them; a duplicate Swiss of eight at tables of four plays each round's deals at every table,
rotated; players join and leave before the start and are told each round and the end; bad
requests are clear problems; looks at one tournament from many tasks and two instances at once
pair its round once."""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine.records import deal_from, rotated
from service.app import create_app
from service.games import lifecycle as game_flow
from service.settings import Settings
from service.tournaments import records as tournament_records
from service.tournaments.lifecycle import STANDING_MAX
from service.tournaments.running import advance, due_of, started
from service.tournaments.standings import seat_halves
from service.tournaments.wire import MAX_ENTRANTS
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_player_events import EVERYTHING, lines
from tests.service.players.test_players import DRAW, Json, bearer, new_player, play_to_end
from tests.waiting import eventually

Client = TestClient[Litestar]
LEVELS = ["bot-easy", "bot-normal", "bot-hard", "bot-expert"]
LIMITS_OFF: dict[str, Any] = {
    "rate_limit_per_minute": 0,
    "creations_per_day": 0,
    "invitations_per_hour": 0,
    "bot_games_per_client": 0,
}
"""Every request of a test comes from one address."""
SHORT: Json = {"preset": "classic", "jokers": 40}
"""Rules whose rounds end in a few turns (a pack of many jokers, always wild): a game of two
bots takes some 50 actions rather than 280. A game's cost in a test is its actions (each its
own commit and, for a bot, its own trip to a worker process), not the bots' thinking, which
is the same at every level (docs/performance.md). Not a preset's own rules: unrated."""


@pytest.fixture
def client() -> Iterator[Client]:
    with TestClient(create_app(Settings(**LIMITS_OFF))) as test_client:
        yield test_client


@pytest.fixture
def two_instances(redis_settings: Settings) -> Iterator[tuple[Client, Client]]:
    """Two apps on one Redis, under the test's own key prefix (deleted afterwards)."""
    settings = msgspec.structs.replace(redis_settings, **LIMITS_OFF)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two


def tournament(client: httpx.Client | Client, key: str, **terms: Any) -> Json:
    body = {"name": "Cup", "turn_seconds": 60, **terms}
    response = client.post("/v1/tournaments", json=body, headers=bearer(key))
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def quick_round_robin(client: httpx.Client | Client, key: str, entrants: list[str]) -> Json:
    """A round robin at tables of two of ``entrants`` under the ``SHORT`` rules, unrated."""
    return tournament(
        client,
        key,
        format="round_robin",
        table_size=2,
        entrants=entrants,
        rules=SHORT,
        rated=False,
    )


def shown(client: httpx.Client | Client, tournament_id: str) -> Json:
    response = client.get(f"/v1/tournaments/{tournament_id}")
    assert response.status_code == 200, response.text
    found: Json = response.json()
    return found


def finished(client: httpx.Client | Client, tournament_id: str) -> Json:
    done: Json = eventually(
        lambda: shown(client, tournament_id),
        f"tournament {tournament_id} finished",
        until=lambda t: t["status"] == "finished",
        seconds=240,
    )
    return done


def assert_scored_from_the_games(client: httpx.Client | Client, result: Json) -> None:
    """Each table's totals are its game's, each entrant's points those of its games (and byes)
    summed, and the standings ordered by points."""
    points: dict[str, float] = {e["player_id"]: 0.0 for e in result["entrants"]}
    size = result["table_size"]
    for played in result["rounds"]:
        assert played["status"] == "finished"
        assert played["games"] == [p["game_id"] for p in played["pairings"]]
        for pairing in played["pairings"]:
            game = client.get(f"/v1/games/{pairing['game_id']}").json()
            assert game["status"] == "finished"
            totals = [p["score"] for p in game["players"]]
            assert pairing["scores"] == totals
            for seat, player_id in enumerate(pairing["players"]):
                assert game["players"][seat]["player_id"] in (player_id, None)
                points[player_id] += seat_halves(totals, seat) / 2
        for player_id in played["byes"]:
            points[player_id] += (size - 1) / 2
    standings = result["standings"]
    assert {s["player_id"]: s["points"] for s in standings} == points
    assert [s["rank"] for s in standings] == list(range(1, len(standings) + 1))
    ordered = [(-s["points"], -s["buchholz"], -s["wins"], s["total"]) for s in standings]
    assert ordered == sorted(ordered)


def test_a_round_robin_of_the_four_levels_runs_itself_to_the_end(client: Client) -> None:
    ann = new_player(client, "Ann")
    made = quick_round_robin(client, ann["key"], LEVELS)
    assert made["status"] in ("open", "running")
    assert made["open_registration"] is False
    assert made["rated"] is False
    assert [e["player_id"] for e in made["entrants"]] == LEVELS
    result = finished(client, made["tournament_id"])
    assert result["planned_rounds"] == 3
    assert len(result["rounds"]) == 3
    met = [frozenset(p["players"]) for r in result["rounds"] for p in r["pairings"]]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(pair) for pair in combinations(LEVELS, 2)), key=sorted
    )
    for played in result["rounds"]:  # nobody twice in a round
        seated = [p for pairing in played["pairings"] for p in pairing["players"]]
        assert sorted(seated) == sorted(LEVELS)
    assert_scored_from_the_games(client, result)
    assert sum(s["points"] for s in result["standings"]) == 6  # one point a game
    row = result["crosstable"][0]
    assert row["player_id"] == "bot-easy"
    assert [r["round"] for r in row["results"]] == [1, 2, 3]
    assert all(len(r["opponents"]) == 1 for r in row["results"])
    listed = client.get("/v1/tournaments").json()["tournaments"]
    assert listed[0]["tournament_id"] == made["tournament_id"]
    assert listed[0]["status"] == "finished"


def play_players_turns(
    client: Client, keys: dict[str, str], game_ids: list[str], rules: Json
) -> None:
    """Each player's turns in the games, the analyser's discard after a draw from the stock,
    until every game is over (the bots move by themselves: while only they may move, wait)."""

    def turn(game_id: str) -> bool | None:
        """A player's turn taken in the game (True), none to take now (False), or the game
        over (None)."""
        view = client.get(f"/v1/games/{game_id}").json()
        if view["status"] == "finished":
            return None
        player_id = view["players"][view["turn"]]["player_id"]
        if player_id not in keys or view["phase"] != "draw":
            return False
        auth = bearer(keys[player_id])
        drawn = client.post(f"/v1/games/{game_id}/actions", json=DRAW, headers=auth)
        if drawn.status_code != 200:  # a bot or the clock moved first: look again
            return False
        hand = drawn.json()
        asked = {"hand": hand["hand"], "wild": hand["wild"], "rules": rules}
        analysis = client.post("/v1/analyse", json=asked)
        discard = {
            "type": "discard",
            "card": analysis.json()["suggested_discard"],
            "go_out": analysis.json()["can_go_out"] and hand["out_seat"] is None,
        }
        client.post(f"/v1/games/{game_id}/actions", json=discard, headers=auth)
        return True

    def all_over() -> bool:
        while True:
            taken = [turn(game_id) for game_id in game_ids]
            if all(t is None for t in taken):
                return True
            if not any(taken):
                return False

    eventually(all_over, "every game of the round over", seconds=240)


def test_a_duplicate_swiss_of_eight_plays_each_round_s_deals_at_every_table_rotated(
    client: Client,
) -> None:
    people = [new_player(client, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    keys = {p["player_id"]: p["key"] for p in people}
    entrants = [*LEVELS, *keys]
    made = tournament(
        client,
        people[0]["key"],
        format="swiss",
        table_size=4,
        rounds=2,
        duplicate=True,
        entrants=entrants,
        rules=SHORT,
        rated=False,
    )
    tournament_id = made["tournament_id"]
    services = client.app.state["services"]
    for number in (1, 2):
        current = eventually(
            lambda: shown(client, tournament_id),
            f"round {number} paired",
            until=lambda t, n=number: len(t["rounds"]) >= n,  # type: ignore[misc]
        )["rounds"][number - 1]
        assert [p["rotation"] for p in current["pairings"]] == [0, 1]
        seated = [p for pairing in current["pairings"] for p in pairing["players"]]
        assert sorted(seated) == sorted(entrants)
        play_players_turns(client, keys, current["games"], SHORT)
        with client.portal() as portal:
            states = [
                portal.call(game_flow.load_game, services, game_id).state
                for game_id in current["games"]
            ]
        deals = [deal_from(state) for state in states]
        assert deals[1].deals == rotated(deals[0], 1, 4).deals
        assert deals[1].first_dealer == (deals[0].first_dealer + 1) % 4
    result = finished(client, tournament_id)
    assert len(result["rounds"]) == 2
    assert_scored_from_the_games(client, result)
    # Round 1 seats the entrants as listed; round 2 by their points after it.
    first = result["rounds"][0]["pairings"]
    assert [p["players"] for p in first] == [entrants[:4], entrants[4:]]
    # Each player was told of each round's table, and of the end with its place.
    ranks = {s["player_id"]: s["rank"] for s in result["standings"]}
    for person in people:
        logged = [
            e
            for e in lines(client, person["key"], **EVERYTHING)
            if e["type"].startswith("tournament_")
        ]
        assert [e["type"] for e in logged] == [
            "tournament_round",
            "tournament_round",
            "tournament_finish",
        ]
        for number, event in enumerate(logged[:2], start=1):
            assert event["tournament_id"] == tournament_id
            assert event["round"] == number
            pairing = next(
                p
                for p in result["rounds"][number - 1]["pairings"]
                if p["game_id"] == event["game_id"]
            )
            assert pairing["players"][event["seat"]] == person["player_id"]
        assert logged[2]["place"] == ranks[person["player_id"]]


def test_players_join_and_leave_before_the_start_and_not_after(client: Client) -> None:
    ann, bob, cat = (new_player(client, name) for name in ("Ann", "Bob", "Cat"))
    made = tournament(client, ann["key"], format="round_robin", table_size=2, rounds=1)
    tournament_id = made["tournament_id"]
    assert made["status"] == "open"
    assert made["open_registration"] is True
    path = f"/v1/tournaments/{tournament_id}"
    joined = client.post(f"{path}/join", headers=bearer(bob["key"]))
    assert joined.status_code == 200, joined.text
    assert [e["player_id"] for e in joined.json()["entrants"]] == [bob["player_id"]]
    assert_problem(client.post(f"{path}/join", headers=bearer(bob["key"])), 409, "already-entered")
    # With an Idempotency-Key, a join sent again answers the tournament as it stands.
    again = client.post(f"{path}/join", headers={**bearer(bob["key"]), "Idempotency-Key": "join-1"})
    assert again.status_code == 200, again.text
    client.post(f"{path}/join", headers=bearer(cat["key"]))
    left = client.post(f"{path}/leave", headers=bearer(cat["key"]))
    assert [e["player_id"] for e in left.json()["entrants"]] == [bob["player_id"]]
    assert_problem(client.post(f"{path}/leave", headers=bearer(cat["key"])), 409, "not-entered")
    assert_problem(client.post(f"{path}/join"), 401, "player-key-required")
    client.post(f"{path}/join", headers=bearer(ann["key"]))
    assert_problem(
        client.post("/v1/tournaments/nothing/join", headers=bearer(ann["key"])),
        404,
        "tournament-not-found",
    )

    # A tournament that names its entrants takes no joins.
    tomorrow = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    fixed = tournament(
        client, ann["key"], entrants=["bot-easy", "bot-normal"], starts_at=tomorrow.isoformat()
    )
    assert fixed["status"] == "open"
    assert_problem(
        client.post(f"/v1/tournaments/{fixed['tournament_id']}/join", headers=bearer(cat["key"])),
        409,
        "registration-closed",
    )


def test_a_tournament_plays_its_players_games_and_tells_them(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    made = tournament(
        client,
        ann["key"],
        format="round_robin",
        table_size=2,
        entrants=[ann["player_id"], bob["player_id"]],
    )
    running = eventually(
        lambda: shown(client, made["tournament_id"]), "round 1", until=lambda t: t["rounds"]
    )
    [pairing] = running["rounds"][0]["pairings"]
    assert pairing["players"] == [ann["player_id"], bob["player_id"]]
    keys = {ann["player_id"]: ann["key"], bob["player_id"]: bob["key"]}
    play_to_end(client, pairing["game_id"], [keys[p] for p in pairing["players"]])
    result = finished(client, made["tournament_id"])
    assert_scored_from_the_games(client, result)


@pytest.mark.parametrize(
    ("terms", "status", "kind", "field"),
    [
        ({"entrants": ["bot-easy"]}, 422, "invalid-field", "entrants"),
        ({"entrants": ["bot-easy", "bot-easy"]}, 422, "invalid-field", "entrants"),
        ({"entrants": ["bot-easy", "nobody"]}, 404, "player-not-found", None),
        ({"table_size": 9}, 422, "invalid-field", "table_size"),
        ({"table_size": 8, "rules": "classic"}, 201, None, None),
        ({"rules": SHORT}, 422, "invalid-field", "rated"),
        ({"rules": SHORT, "rated": False}, 201, None, None),
        ({"format": "elimination"}, 422, "invalid-field", "format"),
        ({"starts_at": "2020-01-01T00:00:00"}, 422, "invalid-field", "starts_at"),
        ({"starts_at": "2999-01-01T00:00:00Z"}, 422, "invalid-field", "starts_at"),
        ({"rounds": 0}, 422, "invalid-field", "rounds"),
        ({"entrants": [f"p{n}" for n in range(65)]}, 422, "invalid-field", "entrants"),
    ],
)
def test_bad_tournaments_are_problems_naming_the_field(
    client: Client, terms: Json, status: int, kind: str | None, field: str | None
) -> None:
    ann = new_player(client, "Ann")
    response = client.post(
        "/v1/tournaments", json={"name": "Cup", **terms}, headers=bearer(ann["key"])
    )
    if kind is None:
        assert response.status_code == status, response.text
        return
    assert_problem(response, status, kind, field)


def test_a_player_has_a_bounded_number_of_tournaments_not_finished(client: Client) -> None:
    ann = new_player(client, "Ann")
    for _ in range(STANDING_MAX):
        tournament(client, ann["key"])
    refused = client.post("/v1/tournaments", json={"name": "One more"}, headers=bearer(ann["key"]))
    assert_problem(refused, 429, "tournament-quota-reached")
    assert_problem(client.post("/v1/tournaments", json={"name": "Cup"}), 401, "player-key-required")
    page = client.get("/v1/tournaments", params={"limit": 2}).json()
    assert len(page["tournaments"]) == 2
    rest = client.get("/v1/tournaments", params={"cursor": page["next_cursor"]}).json()
    assert len(rest["tournaments"]) == STANDING_MAX - 2
    assert rest["next_cursor"] is None


@pytest.mark.redis
def test_a_round_robin_made_on_one_instance_runs_on_the_two(
    two_instances: tuple[Client, Client],
) -> None:
    one, two = two_instances
    ann = new_player(one, "Ann")
    made = quick_round_robin(two, ann["key"], LEVELS)
    result = finished(one, made["tournament_id"])
    assert len(result["rounds"]) == 3
    assert_scored_from_the_games(two, result)
    assert shown(two, made["tournament_id"]) == result


def test_a_tournament_without_a_table_of_entrants_at_its_start_finishes_playing_nothing(
    client: Client,
) -> None:
    ann = new_player(client, "Ann")
    made = tournament(client, ann["key"], table_size=3, starts_at="2020-01-01T00:00:00Z")
    result = finished(client, made["tournament_id"])
    assert result["rounds"] == []
    assert "fewer than a table of 3" in result["note"]


def race_to_advance(clients: list[Client], tournament_id: str, each: int) -> None:
    """``each`` looks at the tournament from every client's instance, all at once."""

    def look(client: Client) -> None:
        services = client.app.state["services"]
        with client.portal() as portal:
            portal.call(advance, services, tournament_id)

    with ThreadPoolExecutor(max_workers=len(clients) * each) as pool:
        for done in [pool.submit(look, c) for c in clients for _ in range(each)]:
            done.result()


def assert_paired_once(client: Client, tournament_id: str, people: list[Json]) -> None:
    """Round 1 paired once: its games made, each player told of it once."""
    result = shown(client, tournament_id)
    assert len(result["rounds"]) == 1
    for game_id in result["rounds"][0]["games"]:
        assert client.get(f"/v1/games/{game_id}").status_code == 200
    for person in people:
        logged = lines(client, person["key"], **EVERYTHING)
        assert [e["type"] for e in logged].count("tournament_round") == 1


def test_looks_at_once_pair_a_round_once(client: Client) -> None:
    people = [new_player(client, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    made = tournament(client, people[0]["key"], entrants=[p["player_id"] for p in people])
    race_to_advance([client], made["tournament_id"], 8)
    assert_paired_once(client, made["tournament_id"], people)


@pytest.mark.redis
def test_looks_at_once_on_two_instances_pair_a_round_once(
    two_instances: tuple[Client, Client],
) -> None:
    one, two = two_instances
    people = [new_player(one, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    made = tournament(two, people[0]["key"], entrants=[p["player_id"] for p in people])
    race_to_advance([one, two], made["tournament_id"], 4)
    assert_paired_once(one, made["tournament_id"], people)


def test_a_round_stored_by_an_instance_that_died_before_its_games_is_dealt_by_the_next_look(
    client: Client,
) -> None:
    """The crash between the compare-and-set that pairs a round and the creation of its games:
    the next look (here called at once; in a deployment the due entry's) creates them, and the
    tournament runs on to its end."""
    ann = new_player(client, "Ann")
    tomorrow = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    made = tournament(
        client, ann["key"], entrants=LEVELS[:2], rounds=1, starts_at=tomorrow.isoformat()
    )
    tournament_id = made["tournament_id"]
    services = client.app.state["services"]

    async def paired_then_died() -> None:
        raw = await services.tournaments.get(tournament_id)
        record = tournament_records.decode(raw)
        now = time.time()
        new = started(record, now)
        assert await services.tournaments.replace(
            tournament_id, raw, tournament_records.encode(new), due=due_of(new, now)
        )

    with client.portal() as portal:
        portal.call(paired_then_died)
        [game_id] = shown(client, tournament_id)["rounds"][0]["games"]
        assert client.get(f"/v1/games/{game_id}").status_code == 404
        portal.call(advance, services, tournament_id)
    assert client.get(f"/v1/games/{game_id}").status_code == 200
    result = finished(client, tournament_id)
    assert_scored_from_the_games(client, result)


def test_a_tournament_takes_at_most_its_bound_of_entrants(client: Client) -> None:
    ann = new_player(client, "Ann")
    path = f"/v1/tournaments/{tournament(client, ann['key'])['tournament_id']}"
    for n in range(MAX_ENTRANTS):
        joined = client.post(f"{path}/join", headers=bearer(new_player(client, f"P{n}")["key"]))
        assert joined.status_code == 200, joined.text
    late = client.post(f"{path}/join", headers=bearer(ann["key"]))
    assert_problem(late, 409, "tournament-full")
    assert len(shown(client, path.rsplit("/", 1)[-1])["entrants"]) == MAX_ENTRANTS

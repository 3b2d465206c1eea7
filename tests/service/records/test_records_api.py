"""Game records, imports, reviews and given deals over HTTP, on the in-process app (games in
memory): a finished bot game's record exported in both forms and imported back, a record edited
to cheat refused at the line it cheats on, the review of that game, and a duplicate match (a new
game dealt the same deals, seats rotated). Every wait polls for its outcome with a deadline.

The tests share one app and one finished bot game (module-scoped: the game takes seconds of
CPU to play); none changes it, and each makes games of its own where it needs them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine.records import MAX_RECORD_BYTES
from service.app import create_app
from service.games import records as game_records
from service.settings import Settings
from tests.service.bots.test_bot_seats import WAIT_SECONDS
from tests.service.games.test_games_api import assert_problem
from tests.service.records.test_reviews import reviewed
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]

BOTS = [{"bot": "easy"}, {"bot": "easy"}]
SETTINGS = Settings(sweep_seconds=0.2, bot_lease_seconds=2.0, seed_secret="s" * 16)

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = pytest.mark.xdist_group("test_records_api")


@pytest.fixture(scope="module")
def app() -> Litestar:
    return create_app(SETTINGS)


@pytest.fixture(scope="module")
def client(app: Litestar) -> Iterator[Client]:
    with TestClient(app) as test_client:
        yield test_client


def created(client: Client, **fields: Any) -> Json:
    response = client.post("/v1/games", json={"players": BOTS, **fields})
    assert response.status_code == 201, response.text
    body: Json = response.json()
    return body


def finished_bot_game(client: Client, **fields: Any) -> Json:
    return finished_view(client, created(client, **fields)["game_id"])


def finished_view(client: Client, game_id: str) -> Json:
    """The game's public view once it has finished."""
    return eventually(
        lambda: client.get(f"/v1/games/{game_id}").json(),
        "the game to finish",
        until=lambda v: v["status"] == "finished",
        seconds=WAIT_SECONDS,
    )


@pytest.fixture(scope="module")
def finished(client: Client) -> Json:
    return finished_bot_game(client, seed=7)


def test_a_game_in_play_shows_only_the_public_record(client: Client) -> None:
    response = client.post(
        "/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 1}
    )
    game_id = response.json()["game_id"]
    record = client.get(f"/v1/games/{game_id}/record").json()
    assert (record["record"], record["status"]) == ("public", "playing")
    assert all("hands" not in r and "stock" not in r for r in record["rounds"])
    text = client.get(f"/v1/games/{game_id}/record", headers={"Accept": "text/plain"})
    assert text.headers["content-type"].startswith("text/plain")
    assert '[Record "public"]' in text.text
    # A public record holds no deals: it does not import.
    refused = client.post("/v1/records", json=record)
    assert refused.status_code == 422, refused.text
    assert refused.json()["type"].endswith("record-not-legal")


def test_a_finished_game_exports_and_imports_back_in_both_forms(
    client: Client, finished: Json
) -> None:
    game_id = finished["game_id"]
    record = client.get(f"/v1/games/{game_id}/record").json()
    assert (record["record"], record["bots"]) == ("whole", ["easy", "easy"])
    text = client.get(f"/v1/games/{game_id}/record", headers={"Accept": "text/plain"}).text
    as_text = client.post("/v1/records", content=text, headers={"Content-Type": "text/plain"})
    for response in (as_text, client.post("/v1/records", json=record)):
        assert response.status_code == 201, response.text
        imported = response.json()
        assert imported["totals"] == record["totals"]
        assert imported["winners"] == finished["winners"]
        assert imported["status"] == "finished"


def test_a_record_edited_to_cheat_is_refused_at_its_line(client: Client, finished: Json) -> None:
    text = client.get(
        f"/v1/games/{finished['game_id']}/record", headers={"Accept": "text/plain"}
    ).text
    lines = text.splitlines()
    # The game's first discard made a card its seat never held: one dealt to another seat (no
    # card has been discarded yet, so none of theirs can have reached this seat).
    at = next(i for i, line in enumerate(lines) if re.search(r"^\d+\. \d+ discard ", line))
    seat = lines[at].split()[1]
    other = next(
        line.split()[2]
        for line in lines[:at]
        if line.startswith("hand ") and line.split()[1] != seat
    )
    lines[at] = lines[at].rsplit(" ", 1)[0] + " " + other
    response = client.post(
        "/v1/records", content="\n".join(lines) + "\n", headers={"Content-Type": "text/plain"}
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["field"] == f"line {at + 1}", problem
    # Malformed notation names its line too; and nothing of either was kept to review.
    broken = client.post("/v1/records", content="[Game", headers={"Content-Type": "text/plain"})
    assert (broken.status_code, broken.json()["field"]) == (422, "line 1")


def test_a_record_over_the_limit_is_413(client: Client) -> None:
    body = b"x" * (MAX_RECORD_BYTES + 1)
    response = client.post("/v1/records", content=body, headers={"Content-Type": "text/plain"})
    assert response.status_code == 413


def test_the_review_of_a_finished_bot_game_is_computed_once(client: Client, finished: Json) -> None:
    game_id = finished["game_id"]
    review = reviewed(client, f"/v1/games/{game_id}/review")
    assert review.status_code == 200, review.text
    body = review.json()
    assert body["decisions"]
    assert {d["grade"] for d in body["decisions"]} <= {
        "best",
        "good",
        "inaccuracy",
        "mistake",
        "blunder",
        "missed_go_out",
    }
    assert all(d["lost"] >= 0 for d in body["decisions"])
    assert [s["seat"] for s in body["seats"]] == [0, 1]
    assert sum(s["decisions"] for s in body["seats"]) == len(body["decisions"])
    # Kept: asked again, the same answer; and an imported record of it reviews the same.
    assert client.get(f"/v1/games/{game_id}/review").json() == body
    record = client.get(f"/v1/games/{game_id}/record").json()
    record_id = client.post("/v1/records", json=record).json()["record_id"]
    assert reviewed(client, f"/v1/records/{record_id}/review").json() == body
    assert client.get("/v1/records/nothing-here/review").status_code == 404


def test_a_game_in_play_has_no_review_yet(client: Client) -> None:
    game_id = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]}).json()[
        "game_id"
    ]
    response = client.get(f"/v1/games/{game_id}/review")
    assert response.status_code == 409


def test_a_duplicate_match_deals_the_same_hands_to_the_rotated_seats(
    client: Client, finished: Json
) -> None:
    source = finished["game_id"]
    first = client.get(f"/v1/games/{source}/record").json()["rounds"][0]
    again = created(client, deal_from=source, rotate_seats=1)
    assert again["view"]["deal_known"] is True
    finished_view(client, again["game_id"])
    record = client.get(f"/v1/games/{again['game_id']}/record").json()
    dealt = record["rounds"][0]
    assert dealt["hands"] == [first["hands"][1], first["hands"][0]]
    assert dealt["upcard"] == first["upcard"]
    assert dealt["stock"] == first["stock"]


def test_given_deals_that_do_not_fit_are_refused_naming_the_field(
    client: Client, finished: Json
) -> None:
    def refused(**fields: Any) -> Json:
        response = client.post("/v1/games", json={"players": BOTS, **fields})
        assert 400 <= response.status_code < 500, response.text
        problem: Json = response.json()
        return problem

    two_aces = [["AS", "2S", "3S"], ["AS", "AS", "4S"]]
    problem = refused(deal=[{"round": 1, "hands": two_aces, "upcard": "5S"}])
    assert problem["field"] == "deal[0].hands[1]", problem
    short = [["AS", "2S"], ["3S", "4S", "5S"]]
    assert refused(deal=[{"round": 1, "hands": short, "upcard": "6S"}])["field"] == "deal[0].hands"
    assert refused(deal_from="no-such-game")["field"] == "deal_from"
    playing = client.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]}).json()
    problem = refused(deal_from=playing["game_id"])
    assert (problem["status"], problem["field"]) == (409, "deal_from")
    assert refused(deal_from=finished["game_id"], rotate_seats=2)["field"] == "rotate_seats"


def test_an_explicit_deal_is_dealt_as_given(client: Client) -> None:
    hands = [["AS", "2S", "3S"], ["4H", "5H", "6H"]]
    game = client.post(
        "/v1/games",
        json={
            "players": [{"name": "Ann"}, {"name": "Bob"}],
            "deal": [{"round": 1, "hands": hands, "upcard": "KD", "stock": ["QC"]}],
        },
    )
    assert game.status_code == 201, game.text
    body = game.json()
    assert body["view"]["deal_known"] is True
    assert body["view"]["upcard"] is None or True
    for seat in body["seats"]:
        view = client.get(
            f"/v1/games/{body['game_id']}", headers={"Authorization": f"Bearer {seat['token']}"}
        ).json()
        assert sorted(view["hand"]) == sorted(hands[seat["seat"]])


def test_the_same_seed_deals_the_same_game_only_to_its_creator_on_one_deployment() -> None:
    """Finding 8 of issue 44: the deployment was a seed oracle (a stranger's create with a
    victim's seed dealt the victim's game). Now the same seed deals the same game only with the
    ``seed_key`` the first create answered; without it, or on another deployment, another."""
    app = create_app(SETTINGS)
    players = [{"name": "Ann"}, {"name": "Bob"}]

    def dealt(application: Litestar, **seeding: Any) -> tuple[str | None, list[list[str]]]:
        """The create's ``seed_key`` and every seat's hand with the upcard."""
        with TestClient(application) as c:
            body = c.post("/v1/games", json={"players": players, **seeding}).json()
            views = [
                c.get(
                    f"/v1/games/{body['game_id']}",
                    headers={"Authorization": f"Bearer {seat['token']}"},
                ).json()
                for seat in body["seats"]
            ]
            return body["seed_key"], [[*v["hand"], v["discard_top"]] for v in views]

    key, creators = dealt(app, seed=42)
    assert key is not None
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", key)
    assert dealt(app, seed=42, seed_key=key) == (key, creators)
    stranger_key, strangers = dealt(app, seed=42)
    assert stranger_key != key
    assert strangers != creators
    assert dealt(create_app(Settings(seed_secret="another secret")), seed=42, seed_key=key)[1] != (
        creators
    )
    assert dealt(app)[0] is None  # no seed, no key


def test_a_seed_key_goes_with_a_seed_and_has_its_form(client: Client) -> None:
    players = [{"name": "Ann"}, {"name": "Bob"}]
    alone = client.post("/v1/games", json={"players": players, "seed_key": "A" * 22})
    assert_problem(alone, 422, "invalid-field", "seed_key")
    malformed = client.post("/v1/games", json={"players": players, "seed": 1, "seed_key": "?"})
    assert malformed.status_code == 422
    assert malformed.json()["field"] == "seed_key"


def test_a_table_s_creator_gets_the_seed_key_that_deals_it_again(client: Client) -> None:
    """A table waits for its players: the deal its seed and key make comes with the last seat."""
    table = {"players": [{"name": "Ann"}, {"open": True}], "seed": 9}
    first = client.post("/v1/games", json=table).json()
    again = client.post("/v1/games", json={**table, "seed_key": first["seed_key"]}).json()
    hands = []
    for created in (first, again):
        claimed = client.post(f"/v1/invites/{created['invite_code']}", json={"name": "Bo"})
        hands.append(claimed.json()["view"]["hand"])
    assert first["seed_key"] == again["seed_key"]
    assert hands[0] == hands[1]


def test_the_record_s_actions_come_in_pages(client: Client, finished: Json) -> None:
    """``since`` and ``limit`` page the action list as they page the log: the pages, joined,
    are the whole list; each round keeps its deal and result; the text form pages alike."""
    url = f"/v1/games/{finished['game_id']}/record"
    whole = client.get(url).json()
    every = [a for r in whole["rounds"] for a in r["actions"]]
    assert "next_since" not in whole
    seen: list[Json] = []
    since = 0
    while True:
        page = client.get(url, params={"since": since, "limit": 7}).json()
        actions = [a for r in page["rounds"] for a in r["actions"]]
        assert len(actions) <= 7
        assert [r["hands"] for r in page["rounds"]] == [r["hands"] for r in whole["rounds"]]
        seen += actions
        if "next_since" not in page:
            break
        assert page["next_since"] == actions[-1]["version"]
        since = page["next_since"]
    assert seen == every
    text = client.get(url, params={"since": 3, "limit": 2}, headers={"Accept": "text/plain"})
    action_lines = [line for line in text.text.splitlines() if re.match(r"^\d+\. ", line)]
    assert [line.split(".")[0] for line in action_lines] == ["4", "5"]
    assert text.text.endswith("; next_since 5\n")


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": 0}, "limit"), ({"limit": 1001}, "limit"), ({"since": -1}, "since")],
)
def test_a_bad_record_page_is_a_422_naming_it(
    client: Client, finished: Json, params: Json, field: str
) -> None:
    game_id = finished["game_id"]
    answer = client.get(f"/v1/games/{game_id}/record", params=params)
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == field


def test_a_finished_record_says_when_the_game_was_created_and_finished(
    client: Client, finished: Json
) -> None:
    url = f"/v1/games/{finished['game_id']}/record"
    record = client.get(url).json()
    assert record["created"] <= record["finished"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", record["finished"])
    text = client.get(url, headers={"Accept": "text/plain"}).text
    assert f'[Created "{record["created"]}"]' in text
    assert f'[Finished "{record["finished"]}"]' in text


def test_a_game_whose_last_move_a_bot_made_is_stamped_when_it_ended(
    app: Litestar, client: Client, finished: Json
) -> None:
    """The bots' commit stamps the end as a seat's action does: no fallback to the last turn's
    start."""
    store = app.state["services"].store
    stored = client.blocking_portal.call(store.load, finished["game_id"])
    record = game_records.decode_record(stored.record)
    assert record.finished is not None
    assert record.created <= record.turn_started <= record.finished


def test_a_record_while_played_has_a_created_time_and_no_finished_one(client: Client) -> None:
    game_id = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]}).json()[
        "game_id"
    ]
    record = client.get(f"/v1/games/{game_id}/record").json()
    assert "created" in record
    assert "finished" not in record
    text = client.get(f"/v1/games/{game_id}/record", headers={"Accept": "text/plain"}).text
    assert "[Created " in text
    assert "[Finished " not in text


def test_a_speed_game_exports_imports_back_and_is_reviewed(client: Client) -> None:
    """A speed game of bots: its record has one line per call, imports back in both forms to
    the same result, and its review judges every seat's choice in every call."""
    rules = {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"}
    game = finished_bot_game(client, rules=rules, seed=5)
    url = f"/v1/games/{game['game_id']}/record"
    text = client.get(url, headers={"Accept": "text/plain"}).text
    assert re.search(r"^\d+\. call 1 draw \| ", text, re.MULTILINE), text[:2000]
    record = client.get(url).json()
    assert len(record["rounds"][0]["upcards"]) == 2
    as_text = client.post("/v1/records", content=text, headers={"Content-Type": "text/plain"})
    for response in (as_text, client.post("/v1/records", json=record)):
        assert response.status_code == 201, response.text
        assert response.json()["totals"] == record["totals"]
    review = reviewed(client, f"/v1/games/{game['game_id']}/review").json()
    calls = [a for r in record["rounds"] for a in r["actions"]]
    judged = {(d["version"], d["seat"]) for d in review["decisions"]}
    assert judged <= {(c["version"], m["seat"]) for c in calls for m in c["action"]["moves"]}
    assert len(judged) > len(calls)  # most calls have two judged choices


def test_the_commit_that_ends_a_game_stamps_its_finished_time() -> None:
    """``stamped`` sets the time once, at the commit that ends the game; a game stored without
    a stamp falls back to its last turn's start."""
    record = game_records.GameRecord(state=b"", token_hashes=(), created=100.0, turn_started=150.0)
    assert game_records.stamped(record, finished=False) is record
    ended = game_records.stamped(record, finished=True)
    assert ended.finished is not None
    assert ended.finished >= record.created
    assert game_records.stamped(ended, finished=True).finished == ended.finished
    assert game_records.finished_at(ended) == ended.finished
    assert game_records.finished_at(record) == 150.0

"""Speed games from given deals over HTTP, on the in-process app (games in memory): a finished
speed game of bots dealt again with ``deal_from`` (its hands and the upcards on every seat's
pile, the seats rotated or not), and ``deal`` with each seat's upcard, refused with a 422
naming the field when the upcards do not fit, nothing stored. Every wait polls for its outcome
with a deadline. The tests share one app, and the finished game (module-scoped: it takes seconds
of CPU to play); none changes what another reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.bots.test_bot_seats import WAIT_SECONDS
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]

SPEED = {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"}
PEOPLE = [{"name": "Ann"}, {"name": "Bob"}]

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = pytest.mark.xdist_group("test_speed_given_deals")


@pytest.fixture(scope="module")
def app() -> Litestar:
    return create_app(Settings())


@pytest.fixture(scope="module")
def client(app: Litestar) -> Iterator[Client]:
    with TestClient(app) as test_client:
        yield test_client


def created(client: Client, **fields: Any) -> Json:
    response = client.post("/v1/games", json=fields)
    assert response.status_code == 201, response.text
    body: Json = response.json()
    return body


def seat_views(client: Client, game: Json) -> list[Json]:
    """Each seat's view of ``game``, seat 0's first."""
    views = []
    for seat in sorted(game["seats"], key=lambda s: s["seat"]):
        response = client.get(
            f"/v1/games/{game['game_id']}", headers={"Authorization": f"Bearer {seat['token']}"}
        )
        assert response.status_code == 200, response.text
        views.append(response.json())
    return views


@pytest.fixture(scope="module")
def finished_speed(client: Client) -> Json:
    """A finished speed game of two bots, and its whole record."""
    game_id = created(client, players=[{"bot": "easy"}, {"bot": "easy"}], rules=SPEED, seed=5)[
        "game_id"
    ]
    eventually(
        lambda: client.get(f"/v1/games/{game_id}").json(),
        "the game to finish",
        until=lambda v: v["status"] == "finished",
        seconds=WAIT_SECONDS,
    )
    record: Json = client.get(f"/v1/games/{game_id}/record").json()
    return {"game_id": game_id, "record": record}


@pytest.mark.parametrize("rotate", [0, 1])
def test_deal_from_a_speed_game_deals_its_hands_and_upcards_to_the_rotated_seats(
    client: Client,
    finished_speed: Json,
    rotate: int,
) -> None:
    dealt = finished_speed["record"]["rounds"][0]
    assert len(dealt["upcards"]) == 2
    fields: Json = {"deal_from": finished_speed["game_id"]}
    if rotate:
        fields["rotate_seats"] = rotate
    game = created(client, players=PEOPLE, rules=SPEED, **fields)
    views = seat_views(client, game)
    for seat, view in enumerate(views):
        assert view["deal_known"] is True
        assert view["round"] == 1
        assert sorted(view["hand"]) == sorted(dealt["hands"][(seat - rotate) % 2])
        assert view["discard_tops"] == [dealt["upcards"][(s - rotate) % 2] for s in range(2)]
    assert views[0]["dealer"] == (dealt["dealer"] + rotate) % 2
    public = client.get(f"/v1/games/{game['game_id']}/record").json()["rounds"][0]
    assert public["upcards"] == [dealt["upcards"][(s - rotate) % 2] for s in range(2)]


def test_an_explicit_speed_deal_turns_up_each_seat_s_upcard(client: Client) -> None:
    hands = [["AS", "2S", "3S"], ["4H", "5H", "6H"]]
    deal = [{"round": 1, "hands": hands, "upcards": ["KD", "QC"], "stock": ["JH"]}]
    game = created(client, players=PEOPLE, rules=SPEED, deal=deal)
    for seat, view in enumerate(seat_views(client, game)):
        assert view["deal_known"] is True
        assert sorted(view["hand"]) == sorted(hands[seat])
        assert view["discard_tops"] == ["KD", "QC"]


HANDS = [["AS", "2S", "3S"], ["4H", "5H", "6H"]]


@pytest.mark.parametrize(
    ("rules", "deal", "field"),
    [
        ("speed", {"upcard": "KD"}, "deal[0].upcard"),
        ("speed", {"upcard": "KD", "upcards": ["KD", "QC"]}, "deal[0].upcard"),
        ("speed", {}, "deal[0].upcards"),
        ("speed", {"upcards": ["KD"]}, "deal[0].upcards"),
        ("speed", {"upcards": ["KD", "QC", "JC"]}, "deal[0].upcards"),
        ("speed", {"upcards": ["KD", "AS"]}, "deal[0].upcards"),  # one ace of spades only
        ("speed", {"upcards": ["KD", "ZZ"]}, "deal[0].upcards[1]"),
        ("speed", {"upcards": ["KD", "QC"], "stock": ["QC"]}, "deal[0].stock"),
        ("classic", {"upcards": ["KD", "QC"]}, "deal[0].upcards"),
        ("classic", {"upcard": "KD", "upcards": ["QC", "JC"]}, "deal[0].upcards"),
        ("classic", {}, "deal[0].upcard"),
    ],
)
def test_upcards_that_do_not_fit_are_refused_naming_the_field_and_nothing_is_stored(
    app: Litestar, client: Client, rules: str, deal: Json, field: str
) -> None:
    spec = {"preset": "classic", "turns": "speed"} if rules == "speed" else rules
    store = app.state["services"].store
    before = len(store)
    response = client.post(
        "/v1/games",
        json={"players": PEOPLE, "rules": spec, "deal": [{"round": 1, "hands": HANDS, **deal}]},
    )
    assert response.status_code == 422, response.text
    assert response.json()["field"] == field, response.json()
    assert len(store) == before

"""Every record the service answers is its documented schema (``RecordJson``): a finished bot
game's whole record (classic, and under redemption, whose actions lay off), a page of it, a game
in play's public record, and a speed game's, in play and finished. Each decodes strictly into the
wire struct, and validates against the served document with every object closed, so that a field
the schema does not declare fails as a missing or mistyped one does."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from jsonschema_rs import Draft202012Validator
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.games.log_wire import LoggedCallEnd, LoggedLayOff
from service.records.wire import RecordJson
from service.settings import Settings
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]

WAIT_SECONDS = 120.0
SPEED = {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"}

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = pytest.mark.xdist_group("test_record_schema")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with TestClient(create_app(Settings(sweep_seconds=0.2, bot_lease_seconds=2.0))) as client:
        yield client


@pytest.fixture(scope="module")
def closed_schema(client: Client) -> Draft202012Validator:
    """``RecordJson`` of the served document, each object schema closed to the fields it
    declares (``additionalProperties: false`` where it says nothing)."""
    schemas = copy.deepcopy(client.get("/schema/openapi.json").json()["components"]["schemas"])
    for schema in schemas.values():
        if "properties" in schema:
            schema.setdefault("additionalProperties", False)
    return Draft202012Validator(
        {"$ref": "#/components/schemas/RecordJson", "components": {"schemas": schemas}}
    )


def created(client: Client, players: list[Json], **fields: Any) -> Json:
    response = client.post("/v1/games", json={"players": players, **fields})
    assert response.status_code == 201, response.text
    body: Json = response.json()
    return body


def finished_bots(client: Client, **fields: Any) -> str:
    """A game of two easy bots, once they have played it to its end."""
    game_id: str = created(client, [{"bot": "easy"}, {"bot": "easy"}], **fields)["game_id"]
    eventually(
        lambda: client.get(f"/v1/games/{game_id}").json(),
        "the bots to finish the game",
        until=lambda view: view["status"] == "finished",
        seconds=WAIT_SECONDS,
    )
    return game_id


def played_a_turn(client: Client, **fields: Any) -> str:
    """A game of two people in play, its first seat's turn taken (in a speed game, its first
    call answered by both seats)."""
    game = created(client, [{"name": "Ann"}, {"name": "Bob"}], **fields)
    for seat in game["seats"]:
        auth = {"Authorization": f"Bearer {seat['token']}"}
        view = client.get(f"/v1/games/{game['game_id']}", headers=auth).json()
        for _ in range(2):
            if view["legal"]:
                answered = client.post(
                    f"/v1/games/{game['game_id']}/actions", json=view["legal"][0], headers=auth
                )
                assert answered.status_code == 200, answered.text
                view = answered.json()
    game_id: str = game["game_id"]
    return game_id


def answered(client: Client, game_id: str, **params: int) -> bytes:
    response = client.get(f"/v1/games/{game_id}/record", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    return response.content


def assert_documented(body: bytes, closed_schema: Draft202012Validator) -> RecordJson:
    record = msgspec.json.decode(body, type=RecordJson, strict=True)
    closed_schema.validate(msgspec.json.decode(body))
    return record


def test_a_finished_game_s_whole_record_and_a_page_of_it(
    client: Client, closed_schema: Draft202012Validator
) -> None:
    game_id = finished_bots(client, seed=7)
    whole = assert_documented(answered(client, game_id), closed_schema)
    assert (whole.record, whole.status, whole.next_since) == ("whole", "finished", msgspec.UNSET)
    assert whole.finished is not msgspec.UNSET
    assert all(r.hands is not msgspec.UNSET and r.result is not None for r in whole.rounds)
    page = assert_documented(answered(client, game_id, since=3, limit=5), closed_schema)
    assert page.next_since == 8


LAY_OFF_GAMES = 5
"""Games of easy bots under redemption played at most for one with a lay-off: whether they lay
off depends on their cards, and neither the deal (a seed is mixed with the instance's secret)
nor the bots' choices (each bot's seed comes from the game's id) are the same twice. A game
without one is rare (none in 120 measured), but it happens: one run of the suite met it."""


def test_a_record_with_laid_off_cards(client: Client, closed_schema: Draft202012Validator) -> None:
    for _ in range(LAY_OFF_GAMES):
        game_id = finished_bots(client, rules={"preset": "classic", "redemption": True}, seed=3)
        record = assert_documented(answered(client, game_id), closed_schema)
        if any(isinstance(a.action, LoggedLayOff) for r in record.rounds for a in r.actions):
            return
    pytest.fail(f"no lay-off in {LAY_OFF_GAMES} games of easy bots under redemption")


def test_a_game_in_play_s_public_record(
    client: Client, closed_schema: Draft202012Validator
) -> None:
    record = assert_documented(answered(client, played_a_turn(client, seed=1)), closed_schema)
    assert (record.record, record.status, record.winners) == ("public", "playing", None)
    assert record.finished is msgspec.UNSET
    (only,) = record.rounds
    assert (only.hands, only.stock, only.result) == (msgspec.UNSET, msgspec.UNSET, None)
    versions = [a.version for a in only.actions]
    assert len(versions) >= 2
    assert versions == list(range(1, len(versions) + 1))


def test_a_speed_game_s_record_in_play_and_finished(
    client: Client, closed_schema: Draft202012Validator
) -> None:
    playing = played_a_turn(client, rules=SPEED, seed=2)
    public = assert_documented(answered(client, playing), closed_schema)
    assert public.rounds[0].upcards is not msgspec.UNSET
    assert public.rounds[0].actions
    assert all(isinstance(a.action, LoggedCallEnd) for a in public.rounds[0].actions)
    whole = assert_documented(
        answered(client, finished_bots(client, rules=SPEED, seed=5)), closed_schema
    )
    assert len(whole.rounds[0].upcards or ()) == 2

"""A finished tournament's records over HTTP (a live server, on memory and on Redis): one call
answers NDJSON, a line a game, round by round and table by table, each line's record equal to
the game's own ``GET /v1/games/{id}/record``; asked before the end, a 409; of no tournament, a
404."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterator

import httpx
import msgspec
import pytest
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_players import Json, new_player
from tests.service.tournaments.test_tournaments_api import (
    LIMITS_OFF,
    finished,
    quick_round_robin,
    tournament,
)
from tests.waiting import WAIT_SECONDS

ENTRANTS = ["bot-easy", "bot-normal", "bot-hard"]
"""Three at tables of two: three rounds of one game each, and a bye in each."""


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def api(
    request: pytest.FixtureRequest, live_server_for: Callable[[Litestar], str]
) -> Iterator[httpx.Client]:
    settings = Settings(**LIMITS_OFF)
    if request.param == "redis":
        redis: Settings = request.getfixturevalue("redis_settings")
        settings = msgspec.structs.replace(redis, **LIMITS_OFF)
    with httpx.Client(base_url=live_server_for(create_app(settings)), timeout=WAIT_SECONDS) as c:
        yield c


def test_a_finished_tournament_answers_every_game_s_record_in_one_call(api: httpx.Client) -> None:
    ann = new_player(api, "Ann")
    made = quick_round_robin(api, ann["key"], ENTRANTS)
    result = finished(api, made["tournament_id"])
    answer = api.get(f"/v1/tournaments/{made['tournament_id']}/records")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/x-ndjson"
    lines: list[Json] = [json.loads(line) for line in answer.text.splitlines()]
    assert answer.text.endswith("\n")
    expected = [
        (played["round"], pairing["table"], pairing["game_id"])
        for played in result["rounds"]
        for pairing in played["pairings"]
    ]
    assert [(line["round"], line["table"], line["game_id"]) for line in lines] == expected
    assert len(lines) == 3
    for line in lines:
        own = api.get(f"/v1/games/{line['game_id']}/record")
        assert own.status_code == 200, own.text
        assert line["record"] == own.json()
        assert line["record"]["status"] == "finished"
        assert line["record"]["record"] == "whole"


def test_records_of_a_tournament_not_finished_are_a_conflict_and_of_none_not_found(
    api: httpx.Client,
) -> None:
    ann = new_player(api, "Ann")
    tomorrow = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    made = tournament(api, ann["key"], entrants=ENTRANTS[:2], starts_at=tomorrow.isoformat())
    assert_problem(
        api.get(f"/v1/tournaments/{made['tournament_id']}/records"),
        409,
        "tournament-not-finished",
    )
    assert_problem(api.get("/v1/tournaments/nothing/records"), 404, "tournament-not-found")

"""``GET /v1/games/{game_id}/log`` a page at a time: ``since`` and ``limit``, ``next_since``."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.games.routes import LOG_PAGE_MAX

TestClientT = TestClient[Litestar]


def _played(client: TestClientT, actions: int) -> str:
    """A two-seat game in which the seats on turn made ``actions`` actions, each the first
    entry of their view's ``legal``."""
    created = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]})
    game = created.json()
    tokens = {seat["seat"]: seat["token"] for seat in game["seats"]}
    for _ in range(actions):
        turn = client.get(f"/v1/games/{game['game_id']}").json()["turn"]
        seat = {"Authorization": f"Bearer {tokens[turn]}"}
        view = client.get(f"/v1/games/{game['game_id']}", headers=seat).json()
        acted = client.post(
            f"/v1/games/{game['game_id']}/actions", json=view["legal"][0], headers=seat
        )
        assert acted.status_code == 200, acted.text
    return str(game["game_id"])


def _log(client: TestClientT, game_id: str, **params: Any) -> Any:
    answer = client.get(f"/v1/games/{game_id}/log", params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_pages_follow_each_other_to_the_last(client: TestClientT) -> None:
    game_id = _played(client, 5)
    whole = _log(client, game_id)
    assert [e["version"] for e in whole["entries"]] == [1, 2, 3, 4, 5]
    assert whole["next_since"] is None

    pages, since = [], 0
    while since is not None:
        page = _log(client, game_id, since=since, limit=2)
        pages.append([e["version"] for e in page["entries"]])
        since = page["next_since"]
    assert pages == [[1, 2], [3, 4], [5]]
    assert [e for p in pages for e in p] == [e["version"] for e in whole["entries"]]

    later = _log(client, game_id, since=3)
    assert later["entries"] == whole["entries"][3:]
    assert _log(client, game_id, since=5) == {
        "game_id": game_id,
        "version": 5,
        "entries": [],
        "next_since": None,
    }


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": LOG_PAGE_MAX + 1}, "limit"),
        ({"since": -1}, "since"),
        ({"since": "x"}, "since"),
    ],
)
def test_a_bad_page_is_a_422_naming_it(
    client: TestClientT, params: dict[str, Any], field: str
) -> None:
    game_id = _played(client, 1)
    answer = client.get(f"/v1/games/{game_id}/log", params=params)
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["field"] == field


def test_the_document_states_the_page_parameters(app: Litestar) -> None:
    with TestClient(app) as client:
        document = client.get("/schema/openapi.json").json()
    operation = document["paths"]["/v1/games/{game_id}/log"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert parameters["limit"]["schema"]["maximum"] == LOG_PAGE_MAX
    assert parameters["since"]["schema"]["minimum"] == 0
    assert "next_since" in document["components"]["schemas"]["GameLog"]["properties"]

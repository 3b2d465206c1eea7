"""Records across two real service processes on one Redis: a bot game finished through one
instance is dealt again, seats rotated, through the other (a duplicate match); its review is
computed once and kept for both; a seed deals the same game on either (one secret, made by the
first instance that needed it and kept in the store)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.redis_servers import redis_server_installed
from tests.service.games.test_redis_instances import Deployment, deploy, tear_down
from tests.service.records.test_reviews import reviewed
from tests.waiting import eventually

pytestmark = [
    pytest.mark.xdist_group("test_redis_records_instances"),
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]

Json = dict[str, Any]
WAIT_SECONDS = 120.0
BOTS = [{"bot": "easy"}, {"bot": "easy"}]


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    deployment = deploy(tmp_path_factory.mktemp("records-two-instances"), 2)
    yield deployment
    tear_down(deployment)


def created(http: httpx.Client, base: str, body: Json) -> Json:
    response = http.post(f"{base}/v1/games", json=body, timeout=WAIT_SECONDS)
    assert response.status_code == 201, response.text
    answer: Json = response.json()
    return answer


def got(http: httpx.Client, base: str, path: str, **headers: str) -> Json:
    response = http.get(f"{base}{path}", headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    answer: Json = response.json()
    return answer


def wait_finished(http: httpx.Client, base: str, game_id: str) -> None:
    eventually(
        lambda: got(http, base, f"/v1/games/{game_id}"),
        f"game {game_id} to finish",
        until=lambda view: view["status"] == "finished",
        seconds=WAIT_SECONDS,
    )


def test_a_duplicate_match_across_two_instances(instances: Deployment, http: httpx.Client) -> None:
    first, second = instances.urls
    source = created(http, first, {"players": BOTS})["game_id"]
    wait_finished(http, second, source)
    again = created(http, second, {"players": BOTS, "deal_from": source, "rotate_seats": 1})
    assert again["view"]["deal_known"] is True
    wait_finished(http, first, again["game_id"])
    dealt = [
        got(http, base, f"/v1/games/{game_id}/record")["rounds"][0]
        for base, game_id in ((first, source), (second, again["game_id"]))
    ]
    assert dealt[1]["hands"] == dealt[0]["hands"][::-1]
    assert (dealt[1]["upcard"], dealt[1]["stock"]) == (dealt[0]["upcard"], dealt[0]["stock"])
    # The review: computed by one instance, kept, the same from the other.
    reviews = [
        reviewed(http, f"{base}/v1/games/{source}/review").json() for base in (first, second)
    ]
    assert reviews[0]["decisions"]
    assert reviews[0] == reviews[1]


def test_a_seed_deals_the_same_game_on_either_instance(
    instances: Deployment, http: httpx.Client
) -> None:
    """With the seed key the first create answered: the instances share the seed secret."""
    body = {"players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 4242}

    def dealt(base: str, **seed_key: str) -> tuple[str, list[str]]:
        game = created(http, base, {**body, **seed_key})
        token = game["seats"][0]["token"]
        cards: list[str] = got(
            http, base, f"/v1/games/{game['game_id']}", Authorization=f"Bearer {token}"
        )["hand"]
        return game["seed_key"], cards

    key, hand = dealt(instances.urls[0])
    assert dealt(instances.urls[1], seed_key=key) == (key, hand)

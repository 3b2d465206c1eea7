"""``Idempotency-Key`` on every creating or changing request (``service.http.idempotency``): a
retry with the same key and body gets the first answer (status, body, the token it handed out)
and changes nothing more, on either of two instances; the same key with another body is a 422
naming the header. In memory, and on Redis with two apps (two instances) sharing it."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.http_player import HttpGame

Client = TestClient[Litestar]
Json = dict[str, Any]


@pytest.fixture(params=["memory", "redis"])
def pair(request: pytest.FixtureRequest) -> Iterator[tuple[Client, Client]]:
    """Two clients: the first attempt goes to one, its retry to the other (the same app in
    memory, where one process holds the games; two apps, two instances, on one Redis)."""
    if request.param == "memory":
        with TestClient(create_app(Settings())) as only:
            yield only, only
        return
    settings: Settings = request.getfixturevalue("redis_settings")
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two


def key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def bearer(token: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **headers}


def same_answer(first: Any, again: Any) -> None:
    assert again.status_code == first.status_code, again.text
    assert again.content == first.content
    assert again.headers.get("location") == first.headers.get("location")


TABLE: Json = {"players": [{"name": "Ann"}, {"open": True}, {"open": True}]}
DEALT: Json = {"players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 4}


@pytest.mark.parametrize("body", [DEALT, TABLE], ids=["dealt", "table"])
def test_a_retried_create_answers_the_first_game_and_makes_no_other(
    pair: tuple[Client, Client], body: Json
) -> None:
    one, two = pair
    headers = key()
    first = one.post("/v1/games", json=body, headers=headers)
    assert first.status_code == 201, first.text
    again = two.post("/v1/games", json=body, headers=headers)
    same_answer(first, again)
    game_id = first.json()["game_id"]
    token = first.json()["seats"][0]["token"]
    # The tokens handed out are the game's: the retry's answer works as the first one did.
    seen = two.get(f"/v1/games/{game_id}", headers=bearer(token))
    assert seen.status_code == 200, seen.text
    assert seen.json()["seat"] == 0
    other = two.post("/v1/games", json={**body, "seed": 99}, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused", field="Idempotency-Key")
    # Without a key, the same body makes a new game each time.
    fresh = one.post("/v1/games", json=body)
    assert fresh.json()["game_id"] != game_id


def test_a_retried_claim_takes_one_seat_and_answers_its_token_again(
    pair: tuple[Client, Client],
) -> None:
    one, two = pair
    table = one.post("/v1/games", json=TABLE).json()
    code, game_id = table["invite_code"], table["game_id"]
    headers = key()
    first = one.post(f"/v1/invites/{code}", json={"name": "Bob"}, headers=headers)
    assert first.status_code == 201, first.text
    again = two.post(f"/v1/invites/{code}", json={"name": "Bob"}, headers=headers)
    same_answer(first, again)
    players = two.get(f"/v1/games/{game_id}").json()["players"]
    assert [p["name"] for p in players] == ["Ann", "Bob", None]
    other = two.post(f"/v1/invites/{code}", json={"name": "Rob"}, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused", field="Idempotency-Key")
    # The claim that deals is answered again once the game is playing.
    last_key = key()
    last = one.post(f"/v1/invites/{code}", json={"name": "Cy"}, headers=last_key)
    assert last.json()["view"]["status"] == "playing"
    same_answer(last, two.post(f"/v1/invites/{code}", json={"name": "Cy"}, headers=last_key))


def test_a_retried_leave_answers_as_the_first_though_the_token_is_gone(
    pair: tuple[Client, Client],
) -> None:
    one, two = pair
    table = one.post("/v1/games", json=TABLE).json()
    bob = one.post(f"/v1/invites/{table['invite_code']}", json={"name": "Bob"}).json()
    headers = bearer(bob["token"], **key())
    path = f"/v1/games/{table['game_id']}/leave"
    first = one.post(path, headers=headers)
    assert first.status_code == 200, first.text
    same_answer(first, two.post(path, headers=headers))
    # Without its key, the token that left is no seat's any more.
    assert_problem(two.post(path, headers=bearer(bob["token"])), 401, "unknown-token")


def test_a_retried_stream_url_answers_the_same_url(pair: tuple[Client, Client]) -> None:
    one, two = pair
    created = one.post("/v1/games", json=DEALT).json()
    headers = bearer(created["seats"][0]["token"], **key())
    path = f"/v1/games/{created['game_id']}/stream-url"
    first = one.post(path, headers=headers)
    assert first.status_code == 200, first.text
    assert two.post(path, headers=headers).json() == first.json()


def test_a_rematch_whose_answer_was_lost_gives_its_token_on_retry(
    pair: tuple[Client, Client],
) -> None:
    one, two = pair
    game = HttpGame.create(one, 2, "classic", seed=21)
    game.play_to_end()
    path = f"/v1/games/{game.game_id}/rematch"
    headers = {**game.auth(0), **key()}
    first = one.post(path, headers=headers)  # its answer, say, never reached the phone
    assert first.status_code == 201, first.text
    again = two.post(path, headers=headers)
    same_answer(first, again)
    token = again.json()["token"]
    seen = two.get(f"/v1/games/{again.json()['game_id']}", headers=bearer(token))
    assert seen.json()["seat"] == 0
    # Asking again without the key (or with another) is still the 409 it was.
    assert_problem(two.post(path, headers=game.auth(0)), 409, "rematch-taken")
    assert_problem(two.post(path, headers={**game.auth(0), **key()}), 409, "rematch-taken")


def _at_once(
    clients: tuple[Client, ...], path: str, body: Json, headers: dict[str, str]
) -> list[Any]:
    """Send the same request to each client at once, each from its own thread."""
    answers: list[Any] = [None] * len(clients)
    start = threading.Barrier(len(clients))

    def run(index: int) -> None:
        start.wait()
        answers[index] = clients[index].post(path, json=body, headers=headers)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


@pytest.mark.redis
def test_a_first_attempt_and_its_retry_racing_on_two_instances_do_the_work_once(
    redis_settings: Settings,
) -> None:
    one_app, two_app = create_app(redis_settings), create_app(redis_settings)
    with TestClient(one_app) as one, TestClient(two_app) as two:
        for _ in range(5):
            created = _at_once((one, two), "/v1/games", TABLE, key())
            same_answer(created[0], created[1])
            table = created[0].json()
            path = f"/v1/invites/{table['invite_code']}"
            claims = _at_once((one, two), path, {"name": "Bob"}, key())
            same_answer(claims[0], claims[1])
            players = one.get(f"/v1/games/{table['game_id']}").json()["players"]
            assert [p["name"] for p in players] == ["Ann", "Bob", None]


SHEET: Json = {"players": ["Ann", "Bob"], "first_dealer": 0}


def test_a_retried_score_sheet_create_and_round_are_done_once(
    pair: tuple[Client, Client],
) -> None:
    one, two = pair
    headers = key()
    first = one.post("/v1/scoresheets", json=SHEET, headers=headers)
    assert first.status_code == 201, first.text
    same_answer(first, two.post("/v1/scoresheets", json=SHEET, headers=headers))
    other = two.post("/v1/scoresheets", json={**SHEET, "first_dealer": 1}, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused", field="Idempotency-Key")
    sheet_id, token = first.json()["sheet_id"], first.json()["edit_token"]
    path = f"/v1/scoresheets/{sheet_id}/rounds/1"
    entry = {"out_seat": 0, "entries": [{"seat": 0, "points": 0}, {"seat": 1, "points": 12}]}
    round_key = bearer(token, **key())
    entered = one.put(path, json=entry, headers=round_key)
    assert entered.status_code == 200, entered.text
    same_answer(entered, two.put(path, json=entry, headers=round_key))
    assert two.get(f"/v1/scoresheets/{sheet_id}").json()["version"] == 1
    # The same key for another round, or other points, is another request.
    again = two.put(f"/v1/scoresheets/{sheet_id}/rounds/2", json=entry, headers=round_key)
    assert_problem(again, 422, "idempotency-key-reused", field="Idempotency-Key")

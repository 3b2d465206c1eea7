"""A finished game's whole record is made once and kept (``service.records.finished``): once
read, the whole record in either form is answered from the records store (on any instance
sharing it), never built from the game again; a long one is first built in a worker process;
a game still played is built at every read, as it changes. In memory, and on Redis with two
apps. (Pages, and how long a kept record lives: ``test_record_reads``.)"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine import game
from engine.game import GameState
from service.app import create_app
from service.games import lifecycle
from service.games import records as game_records
from service.settings import Settings
from tests.service.records.long_records import long_finished_game
from tests.waiting import eventually

Client = TestClient[Litestar]
TEXT = {"Accept": "text/plain"}
LONG_STALLS = 10_000
"""Some 20,000 actions: the record takes a good part of a second to build."""
WAIT_SECONDS = 120


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def pair(request: pytest.FixtureRequest) -> Iterator[tuple[Client, Client]]:
    if request.param == "memory":
        with TestClient(create_app(Settings())) as only:
            yield only, only
        return
    settings: Settings = request.getfixturevalue("redis_settings")
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two


def stored_game(client: Client, state: GameState) -> str:
    """Keep ``state`` as a game of the instance's store, as a finished game is kept."""
    store = client.app.state["services"].store
    return stored_with(client.blocking_portal.call, store, state)


def stored_with(run: Callable[[Any], object], store: Any, state: GameState) -> str:
    game_id = game_records.new_game_id()
    parts = game.dumps_parts(state, game.Sealed(0, 0))
    record = game_records.GameRecord(
        state=parts.head, token_hashes=(b"",) * len(state.players), created=0.0
    )
    encoded = game_records.encode_record(record)
    segments = game_records.segments_of(parts)
    run(lambda: store.create(game_id, encoded, segments=segments))
    return game_id


def test_a_finished_game_s_record_is_built_once(
    pair: tuple[Client, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = pair
    game_id = stored_game(one, long_finished_game(200))
    path = f"/v1/games/{game_id}/record"
    first_json = one.get(path)
    first_text = one.get(path, headers=TEXT)
    first_page = one.get(path, params={"since": 100, "limit": 10})
    assert [r.status_code for r in (first_json, first_text, first_page)] == [200] * 3
    built: list[str] = []

    async def not_again(services: Any, some_id: str, **_: Any) -> Any:
        built.append(some_id)
        raise AssertionError("the game was loaded to build its record again")

    assert len([e for r in first_page.json()["rounds"] for e in r["actions"]]) == 10
    monkeypatch.setattr(lifecycle, "load_game", not_again)
    for client in (one, two):
        assert client.get(path).content == first_json.content
        assert client.get(path, headers=TEXT).text == first_text.text
    assert built == []


def test_healthz_answers_while_a_long_game_s_record_is_first_built(
    app: Litestar, live_server: str, http: httpx.Client
) -> None:
    """The first whole read of a finished game of 20,000 actions builds it in a worker."""
    # The app's memory store, written from this thread (it holds no loop of its own).
    store = app.state["services"].store
    game_id = stored_with(
        lambda create: asyncio.run(create()), store, long_finished_game(LONG_STALLS)
    )
    pool = app.state["services"].analyses
    answers: list[httpx.Response] = []

    def read() -> None:
        with httpx.Client(timeout=WAIT_SECONDS) as own:
            answers.append(own.get(f"{live_server}/v1/games/{game_id}/record"))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        eventually(
            lambda: pool.pending, "the work to reach a worker", until=lambda pending: pending >= 1
        )
        health = http.get(f"{live_server}/healthz")
        still_pending = pool.pending  # the record had not come back from its worker yet
        assert health.status_code == 200, health.text
        assert still_pending >= 1
    finally:
        reader.join(timeout=WAIT_SECONDS)
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json()["status"] == "finished"


def test_a_game_in_play_is_built_at_every_read(client: Client) -> None:
    created = client.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]})
    game_id = created.json()["game_id"]
    path = f"/v1/games/{game_id}/record"
    before = client.get(path).json()
    turn = created.json()["view"]["turn"]
    token = created.json()["seats"][turn]["token"]
    drawn = client.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert drawn.status_code == 200, drawn.text
    after = client.get(path).json()
    actions = [len(r["actions"]) for r in (before["rounds"][-1], after["rounds"][-1])]
    assert actions[1] == actions[0] + 1

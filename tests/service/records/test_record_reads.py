"""``GET /v1/games/{id}/record`` costs what it answers (``service.records.finished``): a page of
a long game, in play or finished, is built from the game's stored state without replaying it,
on the first read in a process as on any other; a game stored before its state kept its deals'
results is built in a worker process instead; a finished game's whole record is kept no longer
than its game. In memory, and on Redis (this test's own key prefix, deleted after)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine.game import GameState, apply
from engine.records import record as engine_record
from engine.records import record_json, record_page
from engine.records.record import replayed_record
from service.app import create_app
from service.records.finished import finished_record_key
from service.settings import Settings
from service.storage.redis_keys import game_key
from tests.service.manual_clock import ManualClock
from tests.service.records.long_records import long_finished_game, long_game_in_play
from tests.service.records.test_finished_records import stored_game

Client = TestClient[Litestar]
STALLS = 2_000
"""Some 4,000 actions: a replay of them applies every one."""
TTL = 600.0
IDLE_TTL = 60.0
"""A game nobody has acted in (these tests store theirs directly) is kept this long."""


@dataclasses.dataclass(frozen=True)
class Deployment:
    """Two instances on one store (in memory, one instance twice) and, in memory, the stores'
    clock, moved by hand (Redis keeps its own time)."""

    one: Client
    two: Client
    clock: ManualClock | None


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def deployment(request: pytest.FixtureRequest) -> Iterator[Deployment]:
    settings = Settings(game_ttl=TTL, idle_game_ttl=IDLE_TTL)
    if request.param == "memory":
        clock = ManualClock()
        with TestClient(create_app(settings, clock=clock)) as only:
            yield Deployment(only, only, clock)
        return
    on_redis: Settings = request.getfixturevalue("redis_settings")
    settings = msgspec.structs.replace(on_redis, game_ttl=TTL, idle_game_ttl=IDLE_TTL)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield Deployment(one, two, None)


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[GameState]:
    """Every state the records' replay applies an action to in this process."""
    seen: list[GameState] = []

    def counted(state: GameState, *rest: Any) -> GameState:
        seen.append(state)
        return apply(state, *rest)

    monkeypatch.setattr(engine_record, "apply", counted)
    return seen


def expected_page(state: GameState, since: int, limit: int | None) -> dict[str, Any]:
    """The page as the replay builds it, headers as the service writes them of a game stored
    at time 0 (``stored_game``)."""
    epoch = "1970-01-01T00:00:00+00:00"
    replayed = replayed_record(state, created=epoch, finished=epoch)
    page, next_since = record_page(replayed, since, limit)
    body = record_json(page)
    if next_since is not None:
        body["next_since"] = next_since
    return body


@pytest.mark.parametrize("finished", [False, True], ids=["in play", "finished"])
def test_a_page_of_a_long_game_is_built_without_replaying_it(
    deployment: Deployment, applied: list[GameState], finished: bool
) -> None:
    """The first read of a page, and every read after, on every instance: not one action of
    the game's thousands is applied to build it, and it is the page the replay builds."""
    state = long_finished_game(STALLS) if finished else long_game_in_play(STALLS)
    one, two = deployment.one, deployment.two
    game_id = stored_game(one, state)
    path = f"/v1/games/{game_id}/record"
    since = state.version // 2
    asked = {"since": since, "limit": 10}
    pages = [c.get(path, params=asked) for c in (one, two, one)]
    text = two.get(path, params=asked, headers={"Accept": "text/plain"})
    assert applied == []
    assert [p.status_code for p in pages] == [200, 200, 200]
    body = pages[0].json()
    assert sum(len(r["actions"]) for r in body["rounds"]) == 10
    assert body["next_since"] == since + 10
    assert [p.json() for p in pages] == [body] * 3
    assert text.text.endswith(f"; next_since {since + 10}\n")
    assert body == expected_page(state, since, 10)
    assert len(body["rounds"]) == state.deal
    assert all(r["result"] is not None for r in body["rounds"][: state.deal - 1])


def test_a_game_stored_before_its_results_were_kept_is_read_in_a_worker(
    deployment: Deployment, applied: list[GameState], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its state holds no results of its past deals: only a replay builds its record, and the
    replay runs in a worker process, never on the event loop."""
    state = long_game_in_play(200)
    client = deployment.one
    pool = client.app.state["services"].analyses
    ran: list[object] = []
    real_run = pool.run

    async def counted(work: Callable[..., object], *args: Any) -> object:
        ran.append(work)
        return await real_run(work, *args)

    monkeypatch.setattr(pool, "run", counted)
    game_id = stored_game(client, dataclasses.replace(state, results=()))
    page = client.get(f"/v1/games/{game_id}/record", params={"since": 100, "limit": 10})
    assert page.status_code == 200, page.text
    assert len(ran) == 1
    assert applied == []  # not in this process: in the worker's
    assert page.json() == expected_page(state, 100, 10)


def test_a_kept_record_lives_no_longer_than_its_game(deployment: Deployment) -> None:
    """A finished game's whole record, kept at its first read, expires with the game (or
    before): the id then answers 404 for the whole record and its pages alike."""
    client, clock = deployment.one, deployment.clock
    services = client.app.state["services"]
    game_id = stored_game(client, long_finished_game(1))
    path = f"/v1/games/{game_id}/record"
    if clock is not None:
        clock.advance(IDLE_TTL / 2)
    assert client.get(path).status_code == 200
    assert client.get(path, params={"since": 10, "limit": 5}).status_code == 200
    if clock is None:  # Redis keeps the times: the kept record expires when the game does
        redis, prefix = services.store.redis, services.store.key_prefix
        kept_key = f"{prefix}:finished-record:json:{{{game_id}}}"
        kept_at = client.blocking_portal.call(redis.pexpiretime, kept_key)
        game_at = client.blocking_portal.call(redis.pexpiretime, game_key(prefix, game_id))
        assert 0 < kept_at == game_at
        assert 0 < client.blocking_portal.call(redis.pttl, kept_key) <= IDLE_TTL * 1000
        return
    clock.advance(IDLE_TTL / 2 + 1)  # the game is gone
    assert client.get(path).status_code == 404
    assert client.get(path, params={"since": 10, "limit": 5}).status_code == 404
    kept = client.blocking_portal.call(services.records.get, finished_record_key("json", game_id))
    assert kept is None

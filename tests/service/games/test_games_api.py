"""Games over HTTP: whole games per preset, every error status with its problem details, seat
tokens, Idempotency-Key retries, expected_version and lost races."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.storage.game_store import MemoryStore, StoredGame
from tests.service.http_player import HttpGame
from tests.waiting import WAIT_SECONDS

Client = TestClient[Litestar]
PROBLEM = "application/problem+json"


def assert_problem(
    response: Any, status: int, kind: str, field: str | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == f"urn:three-thirteen:problem:{kind}"
    assert body["title"]
    assert body["detail"]
    if field is not None:
        assert body["field"] == field, body
    return body


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("online", 3), ("five-crowns", 4)])
def test_a_whole_game_plays_to_the_end_over_http(client: Client, preset: str, players: int) -> None:
    game = HttpGame.create(client, players, preset, seed=1313)
    final = game.play_to_end()
    assert final["status"] == "finished"
    assert final["turn"] is None
    assert final["phase"] is None
    rounds = final["rounds"]
    assert rounds == 11
    totals = []
    for player in final["players"]:
        assert len(player["round_scores"]) == rounds
        assert player["score"] == sum(player["round_scores"])
        totals.append(player["score"])
    assert sorted(final["winners"]) == [s for s, t in enumerate(totals) if t == min(totals)]
    assert final["last_round"]["round"] == rounds
    # Every hand of the last round is laid out: melds and deadwood, scored.
    assert {r["seat"] for r in final["last_round"]["results"]} == set(range(players))
    log = game.get("/log", None)
    assert log["version"] == final["version"] == len(log["entries"])
    assert [e["version"] for e in log["entries"]] == list(range(1, final["version"] + 1))


def test_seeded_games_deal_the_same_and_unseeded_ones_differ(client: Client) -> None:
    """A seed with the key its first create answered deals the same game again."""
    first = HttpGame.create(client, 2, "classic", seed=99)
    second = HttpGame.create(client, 2, "classic", seed=99, seed_key=first.created["seed_key"])
    assert first.view(0)["hand"] == second.view(0)["hand"]
    assert first.view(1)["hand"] == second.view(1)["hand"]
    hands = {tuple(HttpGame.create(client, 2, "online").view(0)["hand"]) for _ in range(4)}
    assert len(hands) > 1


def test_tokens_are_long_random_and_shown_only_at_creation(client: Client) -> None:
    game = HttpGame.create(client, 3, "classic", seed=5)
    assert len(set(game.tokens)) == 3
    for token in game.tokens:
        assert len(token) >= 43  # 32 random bytes in URL-safe base64
    game.play_turn()
    for text in [
        game.client.get(f"/v1/games/{game.game_id}").text,
        *(e.text for e in game.exchanges),
    ]:
        for token in game.tokens:
            assert token not in text


def test_a_seat_view_adds_only_its_own_hand_seat_and_legal_actions(client: Client) -> None:
    game = HttpGame.create(client, 3, "classic", seed=8)
    public = game.view()
    assert public["hand"] is None
    assert public["seat"] is None
    assert public["legal"] is None
    own = ("hand", "seat", "legal")
    for seat in range(3):
        view = game.view(seat)
        assert len(view["hand"]) == view["players"][seat]["hand_count"] == 3
        assert view["seat"] == seat
        assert {k: v for k, v in view.items() if k not in own} == {
            k: v for k, v in public.items() if k not in own
        }


# -- errors ---------------------------------------------------------------------------------------


def test_401_without_a_token_or_with_a_wrong_one(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=1)
    url = f"/v1/games/{game.game_id}/actions"
    draw = {"type": "draw", "source": "stock"}
    assert_problem(client.post(url, json=draw), 401, "missing-token")
    assert_problem(
        client.post(url, json=draw, headers={"Authorization": "Basic abc"}), 401, "missing-token"
    )
    assert_problem(
        client.post(url, json=draw, headers={"Authorization": "Bearer nope"}), 401, "unknown-token"
    )
    other = HttpGame.create(client, 2, "classic", seed=1)
    assert_problem(client.post(url, json=draw, headers=other.auth(0)), 401, "unknown-token")
    assert_problem(
        client.get(f"/v1/games/{game.game_id}", headers={"Authorization": "Bearer x"}),
        401,
        "unknown-token",
    )


def test_404_for_a_game_that_does_not_exist(client: Client) -> None:
    for path in ("", "/log", "/events"):
        assert_problem(client.get(f"/v1/games/no-such-game{path}"), 404, "game-not-found")
    response = client.post(
        "/v1/games/no-such-game/actions",
        json={"type": "draw", "source": "stock"},
        headers={"Authorization": "Bearer x"},
    )
    assert_problem(response, 404, "game-not-found")
    assert_problem(client.get("/v1/nowhere"), 404, "not-found")


def test_409_not_your_turn_wrong_phase_and_stale_version(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=2)
    turn = game.view()["turn"]
    waiting = 1 - turn
    url = f"/v1/games/{game.game_id}/actions"
    draw = {"type": "draw", "source": "stock"}
    body = assert_problem(
        client.post(url, json=draw, headers=game.auth(waiting)), 409, "not-your-turn"
    )
    assert f"seat {turn}" in body["detail"]
    hand = game.view(turn)["hand"]
    assert_problem(
        client.post(url, json={"type": "discard", "card": hand[0]}, headers=game.auth(turn)),
        409,
        "wrong-phase",
    )
    assert_problem(
        client.post(url, json={**draw, "expected_version": 5}, headers=game.auth(turn)),
        409,
        "stale-version",
        field="expected_version",
    )
    drawn = game.act(turn, {**draw, "expected_version": 0})
    assert drawn["version"] == 1
    assert_problem(
        client.post(url, json={**draw, "expected_version": 0}, headers=game.auth(turn)),
        409,
        "stale-version",
    )


def test_409_once_the_game_is_finished(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=4)
    game.play_to_end()
    response = client.post(
        f"/v1/games/{game.game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers=game.auth(0),
    )
    assert_problem(response, 409, "game-finished")


def test_422_bad_card_card_not_in_hand_and_a_go_out_with_deadwood(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=3)
    turn = game.view()["turn"]
    drawn = game.act(turn, {"type": "draw", "source": "stock"})
    url = f"/v1/games/{game.game_id}/actions"
    auth = game.auth(turn)
    body = assert_problem(
        client.post(url, json={"type": "discard", "card": "1Z"}, headers=auth),
        422,
        "invalid-field",
        field="card",
    )
    assert "1Z" in body["detail"] or "regex" in body["detail"]
    missing = next(c for c in ("AC", "2D", "3H", "4S", "5C", "KH") if c not in drawn["hand"])
    body = assert_problem(
        client.post(url, json={"type": "discard", "card": missing}, headers=auth),
        422,
        "card-not-in-hand",
        field="card",
    )
    assert missing in body["detail"]
    analysis = client.post(
        "/v1/analyse", json={"hand": drawn["hand"], "wild": drawn["wild"]}
    ).json()
    worst = analysis["discards"][-1]
    if worst["deadwood_points"] > 0:
        body = assert_problem(
            client.post(
                url, json={"type": "discard", "card": worst["card"], "go_out": True}, headers=auth
            ),
            422,
            "cannot-go-out",
            field="go_out",
        )
        assert f"{worst['deadwood_points']} points" in body["detail"]
    # Nothing of the refused actions was applied.
    assert game.view(turn)["version"] == drawn["version"]


def test_422_for_house_rules_that_are_off_naming_the_rule(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=3)
    turn = game.view()["turn"]
    url = f"/v1/games/{game.game_id}/actions"
    body = assert_problem(
        client.post(
            url, json={"type": "draw", "source": "discard", "pile": 1}, headers=game.auth(turn)
        ),
        422,
        "option-not-enabled",
    )
    assert "discard_piles" in body["detail"]


def test_422_for_bad_game_requests(client: Client) -> None:
    one_player = {"players": [{"name": "solo"}]}
    assert_problem(client.post("/v1/games", json=one_player), 422, "invalid-field", "players")
    nine = {"players": [{"name": f"p{n}"} for n in range(9)], "rules": "classic"}
    assert_problem(client.post("/v1/games", json=nine), 422, "bad-rules", "players")
    unknown = {"players": [{"name": "a"}, {"name": "b"}], "color": "red"}
    assert_problem(client.post("/v1/games", json=unknown), 422, "invalid-field", "color")
    bad_rule = {
        "players": [{"name": "a"}, {"name": "b"}],
        "rules": {"preset": "classic", "aces": 3},
    }
    assert_problem(client.post("/v1/games", json=bad_rule), 422, "invalid-field", "rules.aces")


def test_call_seconds_only_with_speed_rules_and_in_range(client: Client) -> None:
    """``call_seconds`` is the speed caller's: with rules played in turns, or out of 3 to 3,600,
    it is a 422 naming it (as ``turn_seconds`` is in a speed game) and nothing is created (no
    game, no table in the lobby); a speed game with it, dealt at once or waiting, is created."""
    players = [{"name": "a"}, {"name": "b"}, {"open": True}]
    speed = {"preset": "classic", "turns": "speed"}
    for seats in (players[:2], players):  # a game dealt at once, and a table that waits
        for rules, seconds in (("classic", 20), (speed, 2), (speed, 3601), (speed, "5")):
            answer = client.post(
                "/v1/games",
                json={"players": seats, "rules": rules, "call_seconds": seconds, "listed": True},
            )
            assert answer.status_code == 422, answer.text
            assert answer.json()["field"] == "call_seconds"
        clocked = {"players": seats, "rules": speed, "turn_seconds": 60}
        answer = client.post("/v1/games", json=clocked)
        assert answer.status_code == 422, answer.text
        assert answer.json()["field"] == "turn_seconds"
    assert client.get("/v1/tables").json() == {"tables": []}
    created = client.post(
        "/v1/games", json={"players": players[:2], "rules": speed, "call_seconds": 3600}
    )
    assert created.status_code == 201, created.text
    view = created.json()["view"]
    assert view["turn"] is None
    assert view["call"]["number"] == 1
    assert view["call"]["chosen"] == []
    assert view["call"]["deadline"].endswith("Z")
    waiting = client.post("/v1/games", json={"players": players, "rules": speed})
    assert waiting.status_code == 201, waiting.text
    jokers = {**speed, "jokers": 2, "joker_discards": "any_pile"}
    assert (
        client.post("/v1/games", json={"players": players[:2], "rules": jokers}).status_code == 201
    )


def test_400_for_a_body_that_is_not_json_and_413_for_a_huge_one(client: Client) -> None:
    assert_problem(
        client.post("/v1/games", content=b"{players", headers={"content-type": "application/json"}),
        400,
        "body-not-json",
    )
    huge = b'{"players": [' + b'{"name": "x"},' * 20000 + b'{"name": "y"}]}'
    assert_problem(
        client.post("/v1/games", content=huge, headers={"content-type": "application/json"}),
        413,
        "body-too-large",
    )


# -- idempotency and races ------------------------------------------------------------------------


def test_a_retried_idempotency_key_returns_the_first_response_and_applies_nothing(
    client: Client,
) -> None:
    game = HttpGame.create(client, 2, "classic", seed=6)
    turn = game.view()["turn"]
    url = f"/v1/games/{game.game_id}/actions"
    headers = {**game.auth(turn), "Idempotency-Key": "draw-1"}
    first = client.post(url, json={"type": "draw", "source": "stock"}, headers=headers)
    again = client.post(url, content=b'{"source":"stock", "type":"draw"}', headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert game.view()["version"] == 1
    assert len(game.view(turn)["hand"]) == 4
    reused = client.post(url, json={"type": "draw", "source": "discard"}, headers=headers)
    assert_problem(reused, 422, "idempotency-key-reused", field="Idempotency-Key")
    # Keys belong to a seat: the other seat's identical key is a different request.
    other = client.post(
        url,
        json={"type": "draw", "source": "stock"},
        headers={**game.auth(1 - turn), "Idempotency-Key": "draw-1"},
    )
    assert_problem(other, 409, "not-your-turn")


class InterleavingStore(MemoryStore):
    """The in-memory store, but its first ``racers`` loads each wait, once they have read the game,
    until all of them have: requests sent together then all load the game before the first of
    them commits, as they may with a networked store. (A fixed pause before each load was
    outrun on a busy machine: a request loaded after the first commit.) Later loads, the
    commits' own among them, pass at once."""

    def __init__(self, racers: int) -> None:
        super().__init__()
        self._racers = racers
        self._loaded = 0
        self._all_loaded: asyncio.Event | None = None  # made in the server's event loop

    async def load(
        self, game_id: str, *, recall: str | None = None, segments_from: int = 0
    ) -> StoredGame | None:
        stored = await super().load(game_id, recall=recall, segments_from=segments_from)
        if self._all_loaded is None:
            self._all_loaded = asyncio.Event()
        if not self._all_loaded.is_set():
            self._loaded += 1
            if self._loaded == self._racers:
                self._all_loaded.set()
            else:
                await asyncio.wait_for(self._all_loaded.wait(), timeout=WAIT_SECONDS)
        return stored


def racing_app(racers: int) -> Litestar:
    app = create_app(Settings())
    services = app.state["services"]
    app.state["services"] = dataclasses.replace(services, store=InterleavingStore(racers))
    return app


def test_of_racing_actions_on_one_version_exactly_one_applies(live_server_for: Any) -> None:
    """Five identical draws sent at once: all load version 0, one commits, the rest lose the
    compare-and-set and answer 409 with nothing applied."""
    base = live_server_for(racing_app(5))

    async def race() -> tuple[list[httpx.Response], dict[str, Any]]:
        async with httpx.AsyncClient(base_url=base, timeout=WAIT_SECONDS) as client:
            players = {"players": [{"name": "a"}, {"name": "b"}], "seed": 12}
            game = (await client.post("/v1/games", json=players)).json()
            turn = game["view"]["turn"]
            url = f"/v1/games/{game['game_id']}/actions"
            auth = {"Authorization": f"Bearer {game['seats'][turn]['token']}"}
            draw = {"type": "draw", "source": "stock"}
            responses = await asyncio.gather(
                *(client.post(url, json=draw, headers=auth) for _ in range(5))
            )
            after = (await client.get(f"/v1/games/{game['game_id']}", headers=auth)).json()
            return list(responses), after

    responses, after = asyncio.run(race())
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409, 409, 409, 409]
    for response in responses:
        if response.status_code == 409:
            assert response.json()["type"].endswith("stale-version")
    assert after["version"] == 1
    assert len(after["hand"]) == 4


def test_a_retry_racing_its_first_attempt_gets_the_first_response(live_server_for: Any) -> None:
    """The same Idempotency-Key sent twice at once: one applies, the other (losing the race)
    answers with the saved response instead of a 409."""
    base = live_server_for(racing_app(2))

    async def race() -> tuple[list[httpx.Response], int]:
        async with httpx.AsyncClient(base_url=base, timeout=WAIT_SECONDS) as client:
            players = {"players": [{"name": "a"}, {"name": "b"}], "seed": 13}
            game = (await client.post("/v1/games", json=players)).json()
            turn = game["view"]["turn"]
            url = f"/v1/games/{game['game_id']}/actions"
            headers = {
                "Authorization": f"Bearer {game['seats'][turn]['token']}",
                "Idempotency-Key": "once",
            }
            draw = {"type": "draw", "source": "stock"}
            responses = await asyncio.gather(
                *(client.post(url, json=draw, headers=headers) for _ in range(2))
            )
            after = (await client.get(f"/v1/games/{game['game_id']}")).json()
            return list(responses), after["version"]

    responses, version = asyncio.run(race())
    assert [r.status_code for r in responses] == [200, 200]
    assert responses[0].content == responses[1].content
    assert version == 1


def test_settings_reach_the_app(client: Client) -> None:
    assert client.get("/readyz").json() == {"status": "ready", "store": "memory"}
    assert Settings().redis_url == ""

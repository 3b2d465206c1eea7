"""``GET /v1/games/{game_id}/hint`` and ``POST /v1/advise`` over HTTP: a whole game played by the
hint's advice, the hint agreeing with the stateless advice on the same cards, and every error."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.service.games.test_games_api import assert_problem
from tests.service.http_player import HttpGame

Client = TestClient[Litestar]


def hint(game: HttpGame, seat: int | None) -> Any:
    return game.client.get(f"/v1/games/{game.game_id}/hint", headers=game.auth(seat))


def advise(client: Client, **body: Any) -> Any:
    return client.post("/v1/advise", json=body)


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("five-crowns", 3)])
def test_a_game_played_by_the_hints_advice_finishes(
    client: Client, preset: str, players: int
) -> None:
    """Every turn: the hint's draw, then its suggested card (going out when it says so). Each
    advised move is accepted, so the advice is always legal."""
    game = HttpGame.create(client, players, preset, seed=23)
    view = game.view()
    turns = 0
    while view["status"] == "playing":
        seat = view["turn"]
        advice = hint(game, seat).json()
        assert advice["phase"] == "draw"
        assert advice["options"][0]["source"] == "stock"
        assert advice["reason"]
        game.act(seat, {"type": "draw", "source": advice["draw"]})
        advice = hint(game, seat).json()
        assert advice["phase"] == "discard"
        best = advice["discards"][0]
        assert best["card"] == advice["suggested"]
        view = game.act(seat, {"type": "discard", "card": best["card"], "go_out": best["go_out"]})
        turns += 1
    assert view["winners"]
    assert turns > 11


def test_the_first_hint_is_the_stateless_advice_on_the_same_cards(client: Client) -> None:
    """On the first turn a seat has seen only its hand and the upcard: the hint and the advice
    for that hand and upcard agree figure for figure."""
    game = HttpGame.create(client, 3, "online", seed=4)
    view = game.view()
    seat = view["turn"]
    own = game.view(seat)
    from_game = hint(game, seat).json()
    stateless = advise(
        client, hand=own["hand"], round=1, rules="online", upcard=view["discard_top"], players=3
    )
    assert stateless.status_code == 200, stateless.text
    assert stateless.json() == from_game


def test_hint_errors(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=2)
    turn = game.view()["turn"]
    assert_problem(hint(game, None), 401, "missing-token")
    assert_problem(hint(game, 1 - turn), 409, "not-your-turn")
    wrong = client.get(f"/v1/games/{game.game_id}/hint", headers={"Authorization": "Bearer nobody"})
    assert_problem(wrong, 401, "unknown-token")
    # The token is asked for first, as for an action: without one, a 401 whatever the game.
    assert_problem(client.get("/v1/games/nope/hint"), 401, "missing-token")
    unknown = client.get("/v1/games/nope/hint", headers={"Authorization": "Bearer nobody"})
    assert_problem(unknown, 404, "game-not-found")


def test_advise_discard_phase_ranks_every_card(client: Client) -> None:
    response = advise(client, hand=["4H", "5H", "6H", "KS"], wild="9")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["phase"] == "discard"
    assert body["suggested"] == "KS"
    assert body["discards"][0] == {"card": "KS", "deadwood_points": 0, "go_out": True}
    assert sorted(d["card"] for d in body["discards"]) == ["4H", "5H", "6H", "KS"]
    assert body["options"] is None
    assert body["reason"] == "Discard the KS and go out: the rest of the hand is fully melded."


@pytest.mark.parametrize(
    ("body", "status", "kind", "field"),
    [
        ({"hand": ["4H", "4H", "5S"], "wild": "3"}, 422, "invalid-field", "hand"),
        ({"hand": ["4X", "5S", "6S"], "wild": "3"}, 422, "invalid-field", "hand"),
        ({"hand": ["4H", "5S", "6S"], "wild": "3", "seen": ["4H"]}, 422, "invalid-field", "seen"),
        ({"hand": ["4H", "5S", "6S"], "wild": "3", "upcard": "4H"}, 422, "invalid-field", "upcard"),
        ({"hand": ["4H", "5S", "6S"]}, 422, "missing-wild", "wild"),
        ({"hand": ["4H", "5S", "6S"], "wild": "3", "players": 9}, 422, "bad-rules", "players"),
        ({"hand": ["4H"] * 17, "wild": "3", "rules": {"decks": 16}}, 422, "invalid-field", "hand"),
        ({"hand": ["4H", "5S", "ZZ"], "wild": "3"}, 422, "invalid-field", "hand[2]"),
    ],
)
def test_advise_refuses_what_the_pack_cannot_hold(
    client: Client, body: dict[str, Any], status: int, kind: str, field: str
) -> None:
    assert_problem(advise(client, **body), status, kind, field)

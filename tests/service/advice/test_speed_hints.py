"""``GET /v1/games/{game_id}/hint`` in a speed game (``turns: speed``): the advice for the seat's
choice in the open call, over HTTP.

On the first call every seat has seen only its hand and the cards turned up on the piles, so its
hint agrees figure for figure with the stateless advice on those cards (the pile it may draw
from as the upcard, the others' tops as seen); so does the discard call's ranking with the
advice on the hand after the draw. Neither changes with what the other seats chose in the call,
and a seat with no choice left gets a 409 naming why (``test_speed_games``)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from tests.service.bots.test_bot_seats import create
from tests.service.tables.test_tables import bearer

Client = TestClient[Litestar]
Json = dict[str, Any]

SPEED: Json = {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"}


def hint_of(client: Client, game_id: str, token: str) -> Json:
    answer = client.get(f"/v1/games/{game_id}/hint", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    hint: Json = answer.json()
    return hint


def choose(client: Client, game_id: str, token: str, body: Json) -> Json:
    answer = client.post(f"/v1/games/{game_id}/actions", json=body, headers=bearer(token))
    assert answer.status_code == 200, answer.text
    view: Json = answer.json()
    return view


def advice(client: Client, **body: Any) -> Json:
    answer = client.post("/v1/advise", json={"rules": SPEED, "players": 3, **body})
    assert answer.status_code == 200, answer.text
    advised: Json = answer.json()
    return advised


def without_piles(hint: Json) -> Json:
    """The hint's figures, less the pile numbers (the stateless advice has one shared pile)."""
    options = [{**o, "pile": None} for o in hint["options"] or ()] or None
    return {**hint, "pile": None, "options": options}


def test_a_speed_hint_in_both_calls_is_exact_and_secret(client: Client) -> None:
    players = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]
    created = create(client, players, rules=SPEED, seed=8, call_seconds=3600)
    game_id = created["game_id"]
    ann, bob, cy = (seat["token"] for seat in created["seats"])
    tops = created["view"]["discard_tops"]
    view = client.get(f"/v1/games/{game_id}", headers=bearer(ann)).json()

    # The draw call: Ann (seat 0) may take the top of seat 2's pile, her right neighbour's.
    first = hint_of(client, game_id, ann)
    assert first["phase"] == "draw"
    assert [(o["source"], o["pile"], o["card"]) for o in first["options"]] == [
        ("stock", None, None),
        ("discard", 2, tops[2]),
    ]
    stateless = advice(client, hand=view["hand"], round=1, upcard=tops[2], seen=tops[:2])
    assert without_piles(first) == stateless
    # Whatever Bob and Ann chose so far, Ann's hint is the same.
    choose(client, game_id, bob, {"type": "draw", "source": "discard", "pile": 0})
    assert hint_of(client, game_id, ann) == first
    choose(client, game_id, bob, {"type": "draw", "source": "stock"})
    choose(client, game_id, ann, {"type": "draw", "source": "stock"})
    assert hint_of(client, game_id, ann) == first
    cy_hint = hint_of(client, game_id, cy)
    assert cy_hint["options"][1]["pile"] == 1
    drawn = choose(client, game_id, cy, {"type": "draw", "source": "stock"})
    assert drawn["call"]["phase"] == "discard"

    # The discard call: every card of Ann's hand ranked, as the advice on that hand ranks it.
    hand = client.get(f"/v1/games/{game_id}", headers=bearer(ann)).json()["hand"]
    ranked = hint_of(client, game_id, ann)
    assert ranked["phase"] == "discard"
    assert ranked == advice(client, hand=hand, round=1)
    assert {d["card"] for d in ranked["discards"]} == set(hand)
    bob_hand = client.get(f"/v1/games/{game_id}", headers=bearer(bob)).json()["hand"]
    choose(client, game_id, bob, {"type": "discard", "card": bob_hand[0]})
    assert hint_of(client, game_id, ann) == ranked
    choose(client, game_id, bob, {"type": "discard", "card": bob_hand[-1]})
    assert hint_of(client, game_id, ann) == ranked

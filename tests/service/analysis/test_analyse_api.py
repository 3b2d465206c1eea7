"""``POST /v1/analyse`` and ``GET /v1/rules`` over HTTP: the contract's examples, its errors, and
agreement with the engine's analyser (and the brute-force reference) on random hands."""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

import engine
from engine.cards import JOKER, Card, format_card, format_rank, parse_card
from service.app import create_app
from service.settings import Settings
from tests.engine.reference import is_valid_meld, reference_min_deadwood
from tests.service.games.test_games_api import assert_problem

Client = TestClient[Litestar]


def analyse(client: Client, **body: Any) -> Any:
    return client.post("/v1/analyse", json=body)


def test_the_contract_example(client: Client) -> None:
    response = analyse(client, hand=["4H", "8S", "6H", "KD"], wild="8")
    assert response.status_code == 200
    result = response.json()
    assert result["wild"] == "8"
    assert result["melds"] == [
        {"kind": "run", "cards": ["4H", "8S", "6H"], "stands_for": [None, "5H", None]}
    ]
    assert result["deadwood"] == ["KD"]
    assert result["deadwood_points"] == 10
    assert result["melded"] is False
    assert result["discards"][0] == {"card": "KD", "deadwood_points": 0}
    assert result["suggested_discard"] == "KD"
    assert result["can_go_out"] is True


def test_input_forms_are_accepted_and_output_is_canonical(client: Client) -> None:
    result = analyse(client, hand=["10♥", "jh", "Q♥", "jk"], wild="10", rules="online").json()
    laid = [c for m in result["melds"] for c in m["cards"]] + result["deadwood"]
    assert sorted(laid) == sorted(["TH", "JH", "QH", "JK"])
    assert result["wild"] == "T"


def test_the_wild_rank_comes_from_the_round_when_wild_is_absent(client: Client) -> None:
    assert analyse(client, hand=["4H"], round=1).json()["wild"] == "3"
    assert analyse(client, hand=["4H"], round=11).json()["wild"] == "K"
    five_crowns = analyse(client, hand=["4X"], round=2, rules="five-crowns").json()
    assert five_crowns["wild"] == "4"


def test_a_one_card_hand_has_no_discards(client: Client) -> None:
    result = analyse(client, hand=["KD"], wild="8").json()
    assert result["discards"] == []
    assert result["suggested_discard"] is None
    assert result["can_go_out"] is False


def test_422s_name_what_is_wrong(client: Client) -> None:
    body = assert_problem(analyse(client, hand=["4H"]), 422, "missing-wild", "wild")
    assert "round" in body["detail"]
    bad_card = analyse(client, hand=["4H", "ZZ"], wild="8")
    assert_problem(bad_card, 422, "invalid-field", "hand[1]")
    assert "invalid card code 'ZZ'" in bad_card.json()["detail"]
    bad_rank = analyse(client, hand=["4H"], wild="11")
    assert_problem(bad_rank, 422, "invalid-field", "wild")
    assert "'11'" in bad_rank.json()["detail"]
    body = assert_problem(analyse(client, hand=["4H"] * 31, wild="8"), 422, "invalid-field", "hand")
    assert "30" in body["detail"]
    assert_problem(analyse(client, hand=[], wild="8"), 422, "invalid-field", "hand")
    assert_problem(analyse(client, hand=["4H"], wild="1"), 422, "invalid-field", "wild")
    assert_problem(analyse(client, hand=["4H"], round=12), 422, "bad-rules", "round")
    body = assert_problem(analyse(client, hand=["4X"], wild="8"), 422, "bad-hand", "hand")
    assert "4X" in body["detail"]
    assert_problem(
        analyse(client, hand=["4H"], wild="2", rules="five-crowns"), 422, "invalid-field", "wild"
    )
    assert_problem(
        analyse(client, hand=["4H"], wild="8", rules={"preset": "classic", "jokers": 99}),
        422,
        "invalid-field",
        "rules.jokers",
    )
    assert_problem(
        analyse(client, hand=["4H"], wild="8", rules={"preset": "classic", "colour": "red"}),
        422,
        "invalid-field",
        "rules.colour",
    )
    assert_problem(
        analyse(client, hand=["4H"], wild="8", rules="poker"), 422, "invalid-field", "rules"
    )


def test_rules_lists_every_preset_with_every_field(client: Client) -> None:
    presets = client.get("/v1/rules").json()["presets"]
    assert [p["preset"] for p in presets] == ["classic", "online", "five-crowns"]
    for listed in presets:
        assert listed == engine.Rules.preset_named(listed["preset"]).to_spec()


# -- agreement with the engine --------------------------------------------------------------------

_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "X": "★"}


@st.composite
def spelled(draw: st.DrawFn, card: Card) -> str:
    """One of the accepted spellings of a card: canonical, lower case, 10 for T, a suit symbol."""
    code = format_card(card)
    if card == JOKER:
        return draw(st.sampled_from(["JK", "jk", "Jk"]))
    rank, suit = code[0], code[1]
    rank = (
        draw(st.sampled_from(["10", "T", "t"]))
        if rank == "T"
        else draw(st.sampled_from([rank, rank.lower()]))
    )
    suit = draw(st.sampled_from([suit, suit.lower(), _SYMBOLS[suit]]))
    return rank + suit


@st.composite
def requests(
    draw: st.DrawFn, max_cards: int
) -> tuple[dict[str, Any], engine.Rules, list[Card], int]:
    preset = draw(st.sampled_from(["classic", "online", "five-crowns"]))
    overrides: dict[str, Any] = {"preset": preset}
    if draw(st.booleans()):
        overrides["wild_points"] = draw(st.sampled_from([None, 0, 25]))
        overrides["all_wild_melds"] = draw(st.booleans())
    rules = engine.Rules.from_spec(overrides)
    pack = sorted(set(rules.pack(2)) | ({JOKER} if rules.jokers else set()))
    hand = draw(st.lists(st.sampled_from(pack), min_size=1, max_size=max_cards))
    body: dict[str, Any] = {"hand": [draw(spelled(c)) for c in hand], "rules": overrides}
    if draw(st.booleans()):
        wild = draw(st.sampled_from(list(rules.ranks)))
        body["wild"] = draw(st.sampled_from(["10", "T"])) if wild == 10 else format_rank(wild)
    else:
        round_number = draw(st.integers(1, rules.rounds))
        body["round"] = round_number
        wild = rules.wild_rank(round_number)
    return body, rules, hand, wild


@cache
def shared_client() -> Client:
    """One app for every generated example (a fixture would be shared across them anyway)."""
    return TestClient(create_app(Settings()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(max_cards=14))
def test_the_endpoint_agrees_with_the_engine_analyser(
    case: tuple[dict[str, Any], engine.Rules, list[Card], int],
) -> None:
    body, rules, hand, wild = case
    response = shared_client().post("/v1/analyse", json=body)
    assert response.status_code == 200, response.text
    result = response.json()
    expected = engine.analyse(hand, wild, rules)
    assert result["wild"] == format_rank(wild)
    assert result["deadwood_points"] == expected.deadwood_points
    assert result["melded"] == (expected.deadwood_points == 0)
    assert [(d["card"], d["deadwood_points"]) for d in result["discards"]] == [
        (format_card(d.card), d.deadwood_points) for d in expected.discards
    ]
    assert result["can_go_out"] == expected.can_go_out
    # The wire arrangement is a real one: exactly the hand's cards, valid melds, honest points.
    melds = [[parse_card(c) for c in m["cards"]] for m in result["melds"]]
    deadwood = [parse_card(c) for c in result["deadwood"]]
    assert Counter([c for m in melds for c in m] + deadwood) == Counter(hand)
    assert all(is_valid_meld(m, wild, rules) for m in melds)
    assert sum(rules.points(c, wild) for c in deadwood) == result["deadwood_points"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(max_cards=8))
def test_the_endpoint_finds_the_true_minimum(
    case: tuple[dict[str, Any], engine.Rules, list[Card], int],
) -> None:
    """Against the brute-force reference (small hands: it tries every partition)."""
    body, rules, hand, wild = case
    result = shared_client().post("/v1/analyse", json=body).json()
    assert result["deadwood_points"] == reference_min_deadwood(hand, wild, rules)

"""The analyser against the brute-force reference, across presets, options and hand shapes."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Rules, analyse, min_deadwood
from engine.analysis import Analysis, search_variant
from engine.cards import JOKER, Card, parse_cards, parse_rank
from tests.engine.reference import (
    is_laid_out_meld,
    is_valid_meld,
    is_wild,
    reference_min_deadwood,
)
from tests.service.costly_hands import ISSUE_20


@st.composite
def rules_values(draw: st.DrawFn) -> Rules:
    preset = draw(st.sampled_from(["classic", "online", "five-crowns"]))
    base = Rules.from_spec(preset)
    overrides: dict[str, object] = {"preset": preset}
    if base.low_rank == 1:
        overrides["aces"] = draw(st.sampled_from(["low", "high_or_low"]))
        overrides["ace_points"] = draw(st.sampled_from([1, 13, 15, 20]))
    overrides["face_points"] = draw(st.sampled_from([[10, 10, 10], [11, 12, 13]]))
    overrides["jokers"] = draw(st.sampled_from([2, 4, 6]))
    overrides["joker_points"] = draw(st.sampled_from([20, 50]))
    overrides["wild_points"] = draw(st.sampled_from([None, 20, 50]))
    limit = draw(st.sampled_from([None, None, 1, 2, 3]))
    overrides["max_wilds_per_meld"] = limit
    overrides["all_wild_melds"] = (limit is None or limit >= 3) and draw(st.booleans())
    return Rules.from_spec(overrides)


@st.composite
def hands(
    draw: st.DrawFn, sizes: tuple[int, int], wild_bias: bool = False
) -> tuple[list[Card], int | None, Rules]:
    rules = draw(rules_values())
    wild = draw(st.one_of(st.none(), st.sampled_from(list(rules.ranks))))
    distinct = sorted(set(rules.pack(2)) | {JOKER})
    if wild_bias:
        wilds = [c for c in distinct if is_wild(c, wild)]
        pool = st.one_of(st.sampled_from(distinct), st.sampled_from(wilds))
    else:
        pool = st.sampled_from(distinct)
    hand = draw(st.lists(pool, min_size=sizes[0], max_size=sizes[1]))
    return hand, wild, rules


HARD_HAND = (
    "AC 3C 3C TC JC JC QC KC AD 3D 5D 7D TD JD QD KD 5H 5H 6H 7H 8H 9H JH AS 2S 4S 8S QS JK JK"
)
"""One of the benchmarks' hard 30-card hands (tests/benchmarks/bench_analysis.HARD_HANDS)."""


def without(hand: list[Card], card: Card) -> list[Card]:
    """The hand after discarding one ``card``."""
    rest = list(hand)
    rest.remove(card)
    return rest


def check_arrangement(hand: list[Card], wild: int | None, rules: Rules, result: Analysis) -> None:
    laid = [c for meld in result.melds for c in meld.cards] + list(result.deadwood)
    assert Counter(laid) == Counter(hand), "the arrangement must use exactly the hand's cards"
    for meld in result.melds:
        assert is_valid_meld(meld.cards, wild, rules), f"invalid meld {meld}"
        assert is_laid_out_meld(meld.kind, meld.cards, meld.stands_for, wild, rules), meld
    assert result.deadwood_points == sum(rules.points(c, wild) for c in result.deadwood)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((1, 9)))
def test_small_hands_match_the_reference(case: tuple[list[Card], int | None, Rules]) -> None:
    hand, wild, rules = case
    expected = reference_min_deadwood(hand, wild, rules)
    assert min_deadwood(hand, wild, rules) == expected
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == expected
    check_arrangement(hand, wild, rules, result)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((3, 10), wild_bias=True))
def test_wild_heavy_hands_match_the_reference(case: tuple[list[Card], int | None, Rules]) -> None:
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == reference_min_deadwood(hand, wild, rules)
    check_arrangement(hand, wild, rules, result)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((13, 15)))
def test_large_two_deck_hands_match_the_reference(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == reference_min_deadwood(hand, wild, rules)
    check_arrangement(hand, wild, rules, result)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((2, 8)))
def test_every_discard_is_ranked_by_the_reference(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    assert sorted(d.card for d in result.discards) == sorted(set(hand))
    for discard in result.discards:
        assert discard.deadwood_points == reference_min_deadwood(
            without(hand, discard.card), wild, rules
        )
    left = [d.deadwood_points for d in result.discards]
    assert left == sorted(left)
    assert result.suggested_discard == result.discards[0].card
    assert result.can_go_out == (left[0] == 0)


# -- the search's variants and its lower bound -----------------------------------------------------
# Large hands cut their search with a lower bound (the floor), and race the hand's mirror image
# against the hand as it is. The floor must never exceed the true least deadwood, or the search
# would cut away the best arrangement: checked on whole hands against the reference, and through
# the search, forced on for small hands (where the reference can judge) and forced off for large
# ones (where the two searches must agree); and each order must search alike. The public hook
# search_variant runs each variant (every wild-rank card a wild: one split of the hand).


def searched(hand: list[Card], wild: int | None, rules: Rules, *, floored: bool) -> int:
    return search_variant(hand, wild, rules, floored=floored, mirrored=False).least


def floor_and_value(hand: list[Card], wild: int | None, rules: Rules) -> tuple[int, int, bool]:
    """The floor at the first state of the hand where the search may ask it, the search's least
    deadwood there (without the floor), and whether that state is the whole hand. (Where an ace
    may play high, the search first moves every ace after the kings, or into a run from below:
    the floor is asked once they are all moved.)"""
    with_floor = search_variant(hand, wild, rules, floored=True, mirrored=False)
    without_floor = search_variant(hand, wild, rules, floored=False, mirrored=False)
    assert with_floor.first_floor is not None
    return with_floor.first_floor, without_floor.first_least, with_floor.first_is_whole


@st.composite
def sparse_hands(draw: st.DrawFn) -> tuple[list[Card], int | None, Rules]:
    """Naturals of one or two suits, spread out (many with no partner), and several jokers: the
    hands where the floor's reasoning about wilds and cards without partners is all in play."""
    rules = draw(rules_values())
    suits = draw(st.lists(st.integers(0, rules.suits - 1), min_size=1, max_size=2, unique=True))
    ranks = list(rules.ranks)
    naturals = draw(
        st.lists(
            st.builds(lambda s, r: s * 13 + r - 1, st.sampled_from(suits), st.sampled_from(ranks)),
            min_size=1,
            max_size=7,
        )
    )
    jokers = [JOKER] * draw(st.integers(0, 5))
    return naturals + jokers, None, rules


@pytest.mark.parametrize(
    ("preset", "codes", "least"),
    [
        # Two wilds meld one of two cards with no partner: the five of hearts stays (5 points).
        ("online", "5H QS JK JK", 5),
        # ... and with the cards of its suit three ranks on: 4-5-6-7-8 of spades, the five of
        # hearts stays (the wilds on the five instead would leave 4 + 7 + 8).
        ("online", "4S 7S 8S 5H JK JK", 5),
        # Two cards with no partner three ranks apart in one suit share the two wilds: 5-6-7-8.
        ("online", "5H 8H JK JK", 0),
        # With three wilds, still one such card: the third wild only joins its meld (the king,
        # 13 points online; the queen is 12).
        ("online", "5H QS KD JK JK JK", 17),
        # ... or two, four ranks apart: 5-6-7-8-9 of hearts.
        ("online", "5H 9H KD JK JK JK", 13),
        # The fifth suit (stars): its tally lies in the floor's highest bits, next to the
        # diamonds' run 5-6-7-8-9 that the wilds make.
        ("five-crowns", "5D 8D 9D 6X JK JK", 6),
    ],
)
def test_the_floor_melds_a_card_with_no_partner_with_two_wilds(
    preset: str, codes: str, least: int
) -> None:
    """With two or three wilds, a card with no partner takes two of them (or shares them with one
    three or four ranks away in its suit): the floor counts that, and here reaches the least
    deadwood itself."""
    rules = Rules.from_spec(preset)
    floor, value, whole_hand = floor_and_value(parse_cards(codes.split()), None, rules)
    assert whole_hand
    assert value == least == reference_min_deadwood(parse_cards(codes.split()), None, rules)
    assert floor == value


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((1, 10)), hands((3, 10), wild_bias=True), sparse_hands()))
def test_the_floor_is_a_lower_bound(case: tuple[list[Card], int | None, Rules]) -> None:
    hand, wild, rules = case
    floor, value, whole_hand = floor_and_value(hand, wild, rules)
    assert floor <= value
    if whole_hand:
        assert value == reference_min_deadwood(hand, wild, rules, either_role=False)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((1, 10)), hands((3, 10), wild_bias=True)), st.booleans())
def test_each_order_arranges_the_hand_as_well_as_the_reference(
    case: tuple[list[Card], int | None, Rules], mirrored: bool
) -> None:
    """Small hands search in the mirror image; large ones race it against the hand as it is, and
    either may give the arrangement: each order, checked on hands the reference can judge."""
    hand, wild, rules = case
    variant = search_variant(hand, wild, rules, floored=False, mirrored=mirrored)
    points = sum(rules.points(c, wild) for c in variant.deadwood)
    arranged = Analysis(wild, variant.melds, variant.deadwood, points, ())
    assert points == variant.least == reference_min_deadwood(hand, wild, rules, either_role=False)
    check_arrangement(hand, wild, rules, arranged)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((1, 10)), hands((3, 10), wild_bias=True), sparse_hands()))
def test_a_floored_search_matches_the_reference(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    found = searched(hand, wild, rules, floored=True)
    assert found == reference_min_deadwood(hand, wild, rules, either_role=False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((16, 30)), hands((16, 30), wild_bias=True)))
def test_large_hands_search_the_same_with_and_without_the_floor(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    assert searched(hand, wild, rules, floored=True) == searched(hand, wild, rules, floored=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((16, 30)), hands((16, 30), wild_bias=True)))
def test_large_hands_search_the_same_in_both_orders(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    plain = search_variant(hand, wild, rules, floored=True, mirrored=False)
    mirrored = search_variant(hand, wild, rules, floored=True, mirrored=True)
    assert plain.least == mirrored.least


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((16, 30)), hands((16, 30), wild_bias=True)))
def test_large_hands_rank_every_discard_by_min_deadwood(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    """On large hands the discards' searches take shortcuts (budgets, the hand's two orders, a
    search that gives up): each must still be the least deadwood of the hand without the card."""
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    check_arrangement(hand, wild, rules, result)
    assert result.deadwood_points == min_deadwood(hand, wild, rules)
    assert result.deadwood_points <= searched(hand, wild, rules, floored=False)
    assert sorted(d.card for d in result.discards) == sorted(set(hand))
    for discard in result.discards:
        rest = without(hand, discard.card)
        assert discard.deadwood_points == min_deadwood(rest, wild, rules), discard


def test_the_widest_layout_fits_the_search_s_native_ints() -> None:
    """The search computes in 64-bit ints (see formats.state_key): its widest layout, two copies
    of each of five suits' aces (each with a digit after the kings as well) among 30 cards, takes
    40 bits; the hand searches as it does without the floor, every discard included."""
    rules = Rules.from_spec({"preset": "classic", "suits": 5, "aces": "high_or_low"})
    codes = [f"{rank}{suit}" for suit in "CDHSX" for rank in ("A", "A", "K", "J", "8", "5")]
    hand = parse_cards(codes)
    result = analyse(hand, None, rules)
    assert result.deadwood_points == searched(hand, None, rules, floored=False)
    for discard in result.discards:
        rest = without(hand, discard.card)
        assert discard.deadwood_points == searched(rest, None, rules, floored=False), discard


# The search's memo is an open-addressing table of native ints that grows as it fills, its keys
# the search's states. Issue 20's hand (eight jokers and two sevens, sevens wild, one wild per
# meld), with every seven a wild, takes tens of thousands of states in each variant (the memo
# grown from 128 slots many times over), most of them differing only in the fields above the
# naturals (the wilds left, the spare room): each variant, with its own memo, must reach the
# same least deadwood, and an arrangement that the reference accepts.
def test_every_variant_of_a_search_of_many_states_agrees() -> None:
    hand = parse_cards(ISSUE_20["hand"])
    wild = parse_rank(ISSUE_20["wild"])
    rules = Rules.from_spec(ISSUE_20["rules"])
    assert analyse(hand, wild, rules).deadwood_points == 0
    for floored in (False, True):
        for mirrored in (False, True):
            variant = search_variant(hand, wild, rules, floored=floored, mirrored=mirrored)
            points = sum(rules.points(c, wild) for c in variant.deadwood)
            assert variant.least == points == 0
            check_arrangement(
                hand, wild, rules, Analysis(wild, variant.melds, variant.deadwood, 0, ())
            )

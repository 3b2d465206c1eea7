"""The analyser against the brute-force reference, across presets, options and hand shapes."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Rules, analyse, min_deadwood
from engine.analysis import Analysis
from engine.analysis.arrangement import arrange
from engine.analysis.candidates import context_for
from engine.analysis.floor import floor, keep_field
from engine.analysis.hand import read_hand, split_wilds
from engine.analysis.memo import Memo
from engine.analysis.search import Search
from engine.analysis.table import MeldTable
from engine.cards import JOKER, Card, parse_cards
from tests.engine.reference import (
    is_laid_out_meld,
    is_valid_meld,
    is_wild,
    reference_min_deadwood,
)


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


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((1, 9)))
def test_small_hands_match_the_reference(case: tuple[list[Card], int | None, Rules]) -> None:
    hand, wild, rules = case
    expected = reference_min_deadwood(hand, wild, rules)
    assert min_deadwood(hand, wild, rules) == expected
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == expected
    check_arrangement(hand, wild, rules, result)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((3, 10), wild_bias=True))
def test_wild_heavy_hands_match_the_reference(case: tuple[list[Card], int | None, Rules]) -> None:
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == reference_min_deadwood(hand, wild, rules)
    check_arrangement(hand, wild, rules, result)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands((13, 15)))
def test_large_two_deck_hands_match_the_reference(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == reference_min_deadwood(hand, wild, rules)
    check_arrangement(hand, wild, rules, result)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


# -- the search's lower bound ----------------------------------------------------------------------
# Large hands cut their search with a lower bound (Search.floor). It must never exceed the true
# least deadwood, or the search would cut away the best arrangement: checked directly on whole
# hands against the reference, and through the search, forced on for small hands (where the
# reference can judge) and forced off for large ones (where the two searches must agree).


def search_of(
    hand: list[Card], wild: int | None, rules: Rules, *, floored: bool, mirrored: bool = False
) -> Search:
    """The analyser's search of the hand, with or without the floor, in either order: the hand
    as it is, or its mirror image (the analyser uses both: see _search_of); every wild-rank card
    plays as a wild (one split of the hand: see _roles)."""
    cards, wild_rank, rules_value = read_hand(hand, wild, rules)
    naturals, wilds = split_wilds(cards, wild_rank)
    context = context_for(rules_value, wild_rank)
    if mirrored:
        context, naturals = context.flipped(), [context.mirror[n] for n in naturals]
    table = MeldTable(context, naturals, len(wilds), floored)
    return Search(table, wilds)


def searched(hand: list[Card], wild: int | None, rules: Rules, *, floored: bool) -> int:
    search = search_of(hand, wild, rules, floored=floored)
    return search.best(search.table.full)


def aces_moved(table: MeldTable) -> int:
    """The table's whole hand with every ace moved after the kings, as the search moves them
    before it asks the floor (where an ace may play high)."""
    state: int = table.full
    for i, high in enumerate(table.high_of):
        if high >= 0:
            copies = (state >> table.offset[i]) & table.count_mask[i]
            state += copies * (table.unit[high] - table.unit[i])
    return state


def floor_and_value(hand: list[Card], wild: int | None, rules: Rules) -> tuple[int, int, bool]:
    """The floor at the first state of the hand where the search may ask it, the search's least
    deadwood there (without the floor), and whether that state is the whole hand. (Where an ace
    may play high, the search first moves every ace after the kings, or into a run from below:
    the floor is asked once they are all moved.)"""
    search = search_of(hand, wild, rules, floored=True)
    table = search.table
    state = aces_moved(table)
    present = table.present(state)
    bound = floor(
        table, search.tally, search.lone_limit, state, present, search.wild_count, 0, 0, 0
    )
    value = search_of(hand, wild, rules, floored=False).best(state)
    return bound, value, state == table.full


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


def test_the_floors_packed_tallies_keep_every_suit_apart() -> None:
    """The floor keeps a 12-bit tally a suit in one native int, the fifth suit's from bit 48
    (compiled, a mask shifted past bit 31 once cleared the others)."""
    tallies = 0
    for suit in range(5):
        tallies = keep_field(tallies, 12 * suit, 1000 + suit)
    assert [(tallies >> 12 * suit) & 4095 for suit in range(5)] == [1000, 1001, 1002, 1003, 1004]
    assert keep_field(tallies, 48, 999) == tallies  # (only ever raised)
    assert keep_field(tallies, 0, 2000) >> 12 == tallies >> 12


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((1, 10)), hands((3, 10), wild_bias=True), sparse_hands()))
def test_the_floor_is_a_lower_bound(case: tuple[list[Card], int | None, Rules]) -> None:
    hand, wild, rules = case
    floor, value, whole_hand = floor_and_value(hand, wild, rules)
    assert floor <= value
    if whole_hand:
        assert value == reference_min_deadwood(hand, wild, rules, either_role=False)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((1, 10)), hands((3, 10), wild_bias=True)), st.booleans())
def test_each_order_arranges_the_hand_as_well_as_the_reference(
    case: tuple[list[Card], int | None, Rules], mirrored: bool
) -> None:
    """Small hands search in the mirror image; large ones race it against the hand as it is, and
    either may give the arrangement: each order, checked on hands the reference can judge."""
    hand, wild, rules = case
    search = search_of(hand, wild, rules, floored=False, mirrored=mirrored)
    melds, deadwood = arrange(search, search.table.full)
    points = sum(rules.points(c, wild) for c in deadwood)
    arranged = Analysis(wild, melds, deadwood, points, ())
    assert points == reference_min_deadwood(hand, wild, rules, either_role=False)
    check_arrangement(hand, wild, rules, arranged)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((1, 10)), hands((3, 10), wild_bias=True), sparse_hands()))
def test_a_floored_search_matches_the_reference(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    found = searched(hand, wild, rules, floored=True)
    assert found == reference_min_deadwood(hand, wild, rules, either_role=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((16, 30)), hands((16, 30), wild_bias=True)))
def test_large_hands_search_the_same_with_and_without_the_floor(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    assert searched(hand, wild, rules, floored=True) == searched(hand, wild, rules, floored=False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands((16, 30)), hands((16, 30), wild_bias=True)))
def test_large_hands_search_the_same_in_both_orders(
    case: tuple[list[Card], int | None, Rules],
) -> None:
    hand, wild, rules = case
    plain = search_of(hand, wild, rules, floored=True)
    mirrored = search_of(hand, wild, rules, floored=True, mirrored=True)
    assert plain.best(plain.table.full) == mirrored.best(mirrored.table.full)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
    """The search computes in 64-bit ints (see _state_key): its widest layout, two copies of each
    of five suits' aces (each with a digit after the kings as well) among 30 cards, takes 40 bits,
    and the hand searches as it does without the floor, every discard included."""
    rules = Rules.from_spec({"preset": "classic", "suits": 5, "aces": "high_or_low"})
    codes = [f"{rank}{suit}" for suit in "CDHSX" for rank in ("A", "A", "K", "J", "8", "5")]
    hand = parse_cards(codes)
    naturals, wilds = split_wilds(hand, None)
    assert MeldTable(context_for(rules, None), naturals, len(wilds)).width == 40
    result = analyse(hand, None, rules)
    assert result.deadwood_points == searched(hand, None, rules, floored=False)
    for discard in result.discards:
        rest = without(hand, discard.card)
        assert discard.deadwood_points == searched(rest, None, rules, floored=False), discard


# The search's memo: an open-addressing table of native ints, against a dictionary. Keys go up to
# 59 bits (see _state_key), values are never negative; a few keys repeat, so some puts overwrite.
KEYS = st.one_of(st.integers(0, 40), st.integers(0, 2**59 - 1))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(KEYS, st.integers(0, 2**40)), max_size=600), st.lists(KEYS, max_size=50))
def test_the_memo_holds_what_a_dictionary_holds(
    puts: list[tuple[int, int]], others: list[int]
) -> None:
    memo, expected = Memo(), dict[int, int]()
    for key, value in puts:
        memo.put(key, value)
        expected[key] = value
        assert memo.get(key) == value
    assert memo.size == len(expected)
    for key, value in expected.items():
        assert memo.get(key) == value
    for key in others:
        assert memo.get(key) == expected.get(key, -1)


def test_the_memo_grows_past_many_keys_of_the_same_low_bits() -> None:
    # States that differ only in the small fields above the naturals (see _state_key).
    keys = [k << 40 | 12345 for k in range(5000)]
    memo = Memo()
    for value, key in enumerate(keys):
        memo.put(key, value)
    assert memo.size == 5000
    assert [memo.get(k) for k in keys] == list(range(5000))
    assert memo.get(5000 << 40 | 12345) == -1

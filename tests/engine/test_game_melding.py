"""The game's own uses of the analyser against slow, plain references: the go-outs that
``legal_actions`` lists (and the cheap bound that skips most searches), and the meld check used
when a card is laid off on the table."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.analysis import min_deadwood
from engine.cards import JOKER, Card, card
from engine.game.melding import (
    going_out_discards,
    lay_out_meld,
    may_meld,
    without,
)
from engine.rules import Rules
from tests.engine.game_scenarios import cards
from tests.engine.reference import is_laid_out_meld, is_valid_meld, is_wild


@st.composite
def game_rules(draw: st.DrawFn) -> Rules:
    preset = draw(st.sampled_from(["classic", "online", "five-crowns"]))
    spec: dict[str, object] = {"preset": preset}
    if preset != "five-crowns":
        spec["aces"] = draw(st.sampled_from(["low", "high_or_low"]))
    limit = draw(st.sampled_from([None, None, 1, 2]))
    spec["max_wilds_per_meld"] = limit
    if limit is None:
        spec["all_wild_melds"] = draw(st.booleans())
    if preset == "classic":
        spec["jokers"] = draw(st.sampled_from([0, 2]))
    return Rules.from_spec(spec)


@st.composite
def near_melded_hands(draw: st.DrawFn) -> tuple[tuple[Card, ...], int, Rules]:
    """Hands built from melds plus a few stray cards and wilds, so go-outs are common."""
    rules = draw(game_rules())
    wild = draw(st.sampled_from(list(rules.ranks)))
    ranks = list(rules.ranks)
    hand: list[Card] = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            rank = draw(st.sampled_from(ranks))
            suits = draw(st.lists(st.integers(0, rules.suits - 1), min_size=2, max_size=4))
            hand += [card(rank, s) for s in suits]
        else:
            suit = draw(st.integers(0, rules.suits - 1))
            start = draw(st.sampled_from(ranks[:-2]))
            length = draw(st.integers(2, min(5, 14 - start)))
            hand += [card(r, suit) for r in range(start, min(start + length, 14))]
    pack = sorted(set(rules.pack(2)) | ({JOKER} if rules.jokers else set()))
    hand += draw(st.lists(st.sampled_from(pack), min_size=1, max_size=3))
    wilds = [c for c in pack if is_wild(c, wild)]
    hand += draw(st.lists(st.sampled_from(wilds), max_size=3))
    return tuple(sorted(hand[:16])), wild, rules


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_melded_hands())
def test_go_outs_are_exactly_the_discards_that_leave_no_deadwood(
    case: tuple[tuple[Card, ...], int, Rules],
) -> None:
    hand, wild, rules = case
    if len(hand) < 2:
        return
    expected = tuple(
        c for c in sorted(set(hand)) if min_deadwood(without(hand, c), wild, rules) == 0
    )
    assert going_out_discards(hand, wild, rules) == expected


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_melded_hands())
def test_a_fully_melded_hand_always_passes_the_share_bound(
    case: tuple[tuple[Card, ...], int, Rules],
) -> None:
    """The bound only ever skips hands that cannot be melded: never one that can."""
    hand, wild, rules = case
    if min_deadwood(hand, wild, rules) == 0:
        assert may_meld(hand, wild, rules)


@pytest.mark.parametrize(
    ("hand", "wild", "why"),
    [
        ("7H 9S TS QS 2H 2D", 7, "the one wild fills the set of twos or the run's gap"),
        ("5D QD 9S JS QS", 5, "QD QS want the one wild for a set, 9S JS QS for a run"),
        ("7H 7H 3S TS QS KS KS", 7, "3S wants both wilds, and TS QS KS one more"),
        ("8H 9H 9H AS 2S 3S", 5, "8H 9H 9H is no run, and there is no wild"),
    ],
)
def test_the_share_bound_skips_hands_a_card_short(hand: str, wild: int, why: str) -> None:
    held = tuple(sorted(cards(hand)))
    assert min_deadwood(held, wild, "classic") > 0
    assert not may_meld(held, wild, Rules.from_spec("classic")), why


def test_the_share_bound_spares_the_card_a_go_out_discards() -> None:
    classic = Rules.from_spec("classic")
    one_stray = tuple(sorted(cards("4H 5H 6H KS")))
    assert not may_meld(one_stray, 8, classic)
    assert may_meld(one_stray, 8, classic, but_one=True)
    two_strays = tuple(sorted(cards("4H 5H 6H KS QD")))
    assert not may_meld(two_strays, 8, classic, but_one=True)


@settings(max_examples=300, deadline=None)
@given(game_rules(), st.data())
def test_laying_out_a_meld_agrees_with_the_reference(rules: Rules, data: st.DataObject) -> None:
    wild = data.draw(st.sampled_from(list(rules.ranks)))
    pack = sorted(set(rules.pack(2)) | ({JOKER} if rules.jokers else set()))
    suit = data.draw(st.integers(0, rules.suits - 1))
    same_suit = [c for c in pack if c != JOKER and c // 13 == suit]
    wilds = [c for c in pack if is_wild(c, wild)]
    pool = st.one_of(st.sampled_from(pack), st.sampled_from(same_suit), st.sampled_from(wilds))
    # Up to 15 cards: runs as long as the rules allow, and longer.
    cards = tuple(
        data.draw(st.lists(pool, min_size=1, max_size=data.draw(st.sampled_from([8, 15]))))
    )
    meld = lay_out_meld(cards, wild, rules)
    assert (meld is not None) == is_valid_meld(cards, wild, rules)
    if meld is not None:
        assert sorted(meld.cards) == sorted(cards)
        # Naturals sit at their own rank, a run reads in order, low to high.
        assert is_laid_out_meld(meld.kind, meld.cards, meld.stands_for, wild, rules), meld


@settings(max_examples=300, deadline=None)
@given(game_rules(), st.data())
def test_long_runs_with_wilds_agree_with_the_reference(rules: Rules, data: st.DataObject) -> None:
    """Runs near and past the longest the rules allow: an ace never plays low and high at once."""
    wild = data.draw(st.sampled_from(list(rules.ranks)))
    suit = data.draw(st.integers(0, rules.suits - 1))
    ranks = [r for r in rules.ranks if r != wild]
    naturals = [card(r, suit) for r in data.draw(st.sets(st.sampled_from(ranks), min_size=1))]
    pack = sorted(set(rules.pack(2)) | ({JOKER} if rules.jokers else set()))
    length = data.draw(st.integers(max(3, len(naturals)), 15))
    wild_cards = st.sampled_from([c for c in pack if is_wild(c, wild)])
    count = length - len(naturals)
    wilds = data.draw(st.lists(wild_cards, min_size=count, max_size=count))
    cards = tuple(naturals + wilds)
    meld = lay_out_meld(cards, wild, rules)
    assert (meld is not None) == is_valid_meld(cards, wild, rules), cards

"""The fast analyser against its specification (tests/engine/specification.py) on hands of up to
20 cards, and the specification against the partition brute force on small hands.

``SPEC_EXAMPLES`` (environment, default 16) sets the number of large hands each test draws; the
small hands' count is four times that.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import analyse, min_deadwood
from engine.cards import JOKER, Card
from engine.rules import Rules
from tests.engine.reference import is_wild, reference_min_deadwood
from tests.engine.specification import least_deadwood
from tests.engine.test_analysis_properties import hands

EXAMPLES = int(os.environ.get("SPEC_EXAMPLES", "16"))
LARGE = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL = settings(
    max_examples=4 * EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
Case = tuple[list[Card], int | None, Rules]


@SMALL
@given(hands((1, 9)))
def test_the_specification_agrees_with_the_partition_brute_force(case: Case) -> None:
    hand, wild, rules = case
    assert least_deadwood(hand, wild, rules) == reference_min_deadwood(hand, wild, rules)


@LARGE
@given(hands((10, 20)))
def test_min_deadwood_meets_the_specification_on_hands_of_up_to_20_cards(case: Case) -> None:
    hand, wild, rules = case
    assert min_deadwood(hand, wild, rules) == least_deadwood(hand, wild, rules)


@LARGE
@given(hands((10, 20), wild_bias=True))
def test_wild_heavy_hands_of_up_to_20_cards_meet_the_specification(case: Case) -> None:
    """Many wilds, and many wild-rank cards that may play either way under the limits."""
    hand, wild, rules = case
    assert analyse(hand, wild, rules).deadwood_points == least_deadwood(hand, wild, rules)


@st.composite
def limited_hands(draw: st.DrawFn) -> Case:
    """Hands under a limit on wilds (one or two per meld, or no all-wild melds) holding cards of
    the wild rank, which may play as wilds or as themselves: several splits of each hand."""
    preset = draw(st.sampled_from(["classic", "online", "five-crowns"]))
    spec: dict[str, object] = {"preset": preset, "jokers": draw(st.sampled_from([2, 4, 8]))}
    if draw(st.booleans()):
        spec["max_wilds_per_meld"] = draw(st.sampled_from([1, 2]))
    else:
        spec["all_wild_melds"] = False
    rules = Rules.from_spec(spec)
    wild = draw(st.sampled_from(list(rules.ranks)))
    pack = sorted(set(rules.pack(2)) | {JOKER})
    of_wild_rank = [c for c in pack if c != JOKER and is_wild(c, wild)]
    either = draw(st.lists(st.sampled_from(of_wild_rank), min_size=1, max_size=4))
    others = draw(st.lists(st.sampled_from(pack), min_size=6, max_size=13))
    return [*others, *either], wild, rules


@LARGE
@given(limited_hands())
def test_wild_limited_hands_rank_every_discard_by_the_specification(case: Case) -> None:
    """Under a limit on wilds a wild-rank card may play either way: the best arrangement and
    each discard's least deadwood are the least over every split of those cards."""
    hand, wild, rules = case
    result = analyse(hand, wild, rules)
    assert result.deadwood_points == least_deadwood(hand, wild, rules)
    assert min_deadwood(hand, wild, rules) == result.deadwood_points
    assert sorted(d.card for d in result.discards) == sorted(set(hand))
    for discard in result.discards:
        rest = list(hand)
        rest.remove(discard.card)
        assert discard.deadwood_points == least_deadwood(rest, wild, rules), discard

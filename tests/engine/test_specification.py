"""The fast analyser against its specification (tests/engine/specification.py) on hands of up to
20 cards, and the specification against the partition brute force on small hands.

``SPEC_EXAMPLES`` (environment, default 40) sets the number of large hands each test draws; the
small hands' count is four times that.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from engine import analyse, min_deadwood
from engine.cards import Card
from engine.rules import Rules
from tests.engine.reference import reference_min_deadwood
from tests.engine.specification import least_deadwood
from tests.engine.test_analysis_properties import hands

EXAMPLES = int(os.environ.get("SPEC_EXAMPLES", "40"))
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

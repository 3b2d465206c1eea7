"""The race (engine.bots.race) and the expert's hazard (engine.bots.expert): hand-computed
race figures, and outlooks against a brute force over every pair of draws."""

from __future__ import annotations

import math

import pytest

from engine.bots.expert import hazard
from engine.bots.race import Outlook, Outlooks, Race
from engine.cards import Card
from engine.game.melding import deadwood_points, without
from engine.rules import Rules
from engine.seen import Copies
from tests.engine.game_scenarios import cards

CLASSIC = Rules.from_spec("classic")
WILD = 3  # round 1 of classic: threes wild


def hand_of(text: str) -> tuple[Card, ...]:
    return tuple(sorted(cards(text)))


def copies_of(text: str) -> Copies:
    found: dict[Card, int] = {}
    for c in cards(text):
        found[c] = found.get(c, 0) + 1
    return tuple(sorted(found.items()))


def test_the_race_weighs_an_outlook_as_computed_by_hand() -> None:
    """ended 0.1, ends 0.2, the others hold 10, later weight 0.8; the hand keeps 4 after its
    next draw (out one time in four), 2 after the second (out half the time):
    second = 0.2*2 + 0.8*(-0.5*10 + 0.5*0.8*2) = -2.96; going on = -0.25*10 + 0.75*-2.96 =
    -4.72; points = 0.1*4 + 0.9*-4.72 = -3.848."""
    race = Race(ended=0.1, ends=0.2, others=10.0, later=0.8)
    assert race.points(Outlook(4.0, 0.25, 2.0, 0.5)) == pytest.approx(-3.848)
    # The round ends first for sure: the last draw's deadwood is the score.
    assert Race(1.0, 0.0, 10.0).points(Outlook(4.0, 0.25, 2.0, 0.5)) == pytest.approx(4.0)
    # Nobody else is near out and the next draw surely goes out: the others' points are won.
    assert Race(0.0, 0.0, 10.0).points(Outlook(0.0, 1.0, 0.0, 0.0)) == pytest.approx(-10.0)
    # One draw ahead: 0.1*4 + 0.9*(-0.25*10 + 0.75*0.8*4) = 0.4 - 0.09 = 0.31.
    assert race.one_draw((4.0, 0.25)) == pytest.approx(0.31)


def test_near_out_others_make_the_dearer_hand_worse() -> None:
    """Two hands: one keeps more now but goes out more often later. While the others are far
    from out the builder is better; when they are sure to end the round first, the one that
    keeps less now is."""
    builder = Outlook(kept=9.0, out=0.1, kept_later=3.0, out_later=0.5)
    dumper = Outlook(kept=3.0, out=0.05, kept_later=2.5, out_later=0.1)
    far = Race(ended=0.0, ends=0.0, others=20.0)
    near = Race(ended=0.9, ends=0.9, others=20.0)
    assert far.points(builder) < far.points(dumper)
    assert near.points(dumper) < near.points(builder)


def brute_outlook(hand: tuple[Card, ...], stock: Copies) -> Outlook:
    """Every first draw and every second draw, each kept hand's least deadwood found by
    trying every discard; the second draw follows the discard the outlook makes."""
    outlooks = Outlooks(WILD, CLASSIC, stock)
    total = sum(n for _, n in stock)
    kept = melded = later = out_later = 0.0
    for card, n in stock:
        drawn = (*hand, card)
        least = min(deadwood_points(without(drawn, d), WILD, CLASSIC) for d in set(drawn))
        kept += n * least
        if least == 0:
            melded += n
            continue
        rest = outlooks.after(hand, card)
        assert rest is not None
        assert deadwood_points(rest, WILD, CLASSIC) == least
        for second, m in stock:
            again = (*rest, second)
            best = min(deadwood_points(without(again, d), WILD, CLASSIC) for d in set(again))
            later += n * m * best / total
            out_later += n * m * (best == 0) / total
    going_on = total - melded
    return Outlook(kept / total, melded / total, later / going_on, out_later / going_on)


@pytest.mark.parametrize(
    ("hand", "stock"),
    [
        ("4H 5H 9C", "6H 3S 9D 9S KC 2D 7H 7H"),
        ("7S 8S KD", "9S 6S KH KC QD 3C 3C 4D"),
        ("AS AD 5C", "AH AC 5D 6C 7C 3H 2S 2S"),
    ],
)
def test_an_outlook_is_the_brute_force_over_two_draws(hand: str, stock: str) -> None:
    held, copies = hand_of(hand), copies_of(stock)
    found = Outlooks(WILD, CLASSIC, copies).outlook(held)
    expected = brute_outlook(held, copies)
    assert found.kept == pytest.approx(expected.kept)
    assert found.out == pytest.approx(expected.out)
    assert found.kept_later == pytest.approx(expected.kept_later)
    assert found.out_later == pytest.approx(expected.out_later)


def test_work_counts_a_hand_per_stock_card() -> None:
    copies = copies_of("6H 3S 9D 9S KC 2D 7H 7H")
    outlooks = Outlooks(WILD, CLASSIC, copies)
    outlooks.value(hand_of("4H 5H 9C"))
    outlooks.value(hand_of("4H 5H 9C"))  # worked out once
    assert outlooks.work == len(copies)


def test_the_hazard_is_the_chance_some_other_seat_goes_out_first() -> None:
    """Seat 1's samples: one that the 6H or the wild 3S completes, weight 3, one that nothing
    in the stock completes, weight 1; seat 2's one sample goes out on the 9D, the 9S or the
    3S. The stock: 6H, 3S, 9D, 9S, KC."""
    outlooks = Outlooks(WILD, CLASSIC, copies_of("6H 3S 9D 9S KC"))
    hands = {
        1: [(hand_of("4H 5H KD"), 3.0), (hand_of("JC KD 8S"), 1.0)],
        2: [(hand_of("9C 9H 5D"), 1.0)],
    }
    seat_1 = 3 / 4 * 2 / 5
    seat_2 = 3 / 5
    expected = 1 - (1 - seat_1) * (1 - seat_2)
    assert math.isclose(hazard(hands, 8, outlooks), expected)
    # Only the first sample of each seat read: seat 1's is the close one.
    assert math.isclose(hazard(hands, 1, outlooks), 1 - (1 - 2 / 5) * (1 - seat_2))

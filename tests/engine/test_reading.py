"""Reading the other hands (engine.bots.reading) and what a discard gives away
(engine.bots.feeding): samples consistent with the seat's sight, weighed by the others' play."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from engine.bots.feeding import fed_chance, may_feed, next_seat
from engine.bots.reading import (
    PASSED_A_MELD,
    THREW_A_MELD,
    TOOK_ALONE,
    built_hands,
    seat_likelihood,
)
from engine.game import Discard, Draw, GameState, Phase, apply, public_log, view
from engine.rules import Rules
from engine.seen import Sight, sight
from tests.engine.game_scenarios import cards, stacked


def seat_sight(state: GameState) -> Sight:
    seat = state.turn
    return sight(view(state, seat), public_log(state, seat), seat, state.rules)


def test_built_hands_keep_what_the_seat_was_seen_to_take_and_only_unseen_cards() -> None:
    """Seat 1 takes the 6H from the pile and throws the 9C: every sample of its hand holds
    the 6H, has its size, and holds nothing else that seat 0 has seen."""
    state = stacked(["7S 8S KD", "4H 5H 9C"], "6H", stock="QC JD")
    state = apply(state, 1, Draw("discard"))
    state = apply(state, 1, Discard(cards("9C")[0]))
    seen = seat_sight(state)
    unseen = Counter(dict(seen.unseen))
    for hand in built_hands(seen, random.Random(1), 20, 1):
        assert len(hand) == 3
        assert cards("6H")[0] in hand
        rest = Counter(hand) - Counter(cards("6H"))
        assert not rest - unseen


def test_the_likelihood_counts_each_observation_against_a_hand() -> None:
    """Seat 1 took the 6H and threw the 9C, having passed over nothing: a hand where the 6H
    meets nothing is less likely; one that the 9C would have melded with, too."""
    state = stacked(["7S 8S KD", "4H 5H 9C"], "6H", stock="QC JD")
    state = apply(state, 1, Draw("discard"))
    state = apply(state, 1, Discard(cards("9C")[0]))
    seen = seat_sight(state)
    assert seat_likelihood(seen, 1, tuple(sorted(cards("4H 5H 6H")))) == 1.0
    assert seat_likelihood(seen, 1, tuple(sorted(cards("6H QS KC")))) == TOOK_ALONE
    assert seat_likelihood(seen, 1, tuple(sorted(cards("5H 6H 9D 9S")))) == THREW_A_MELD
    state = apply(state, 0, Draw("stock"))  # seat 0 passes the 9C over
    state = apply(state, 0, Discard(cards("KD")[0]))
    seen = seat_sight(state)
    assert seen.declined[0] == tuple(cards("9C"))
    assert seat_likelihood(seen, 0, tuple(sorted(cards("7C 8C QD")))) == PASSED_A_MELD


def test_a_card_that_lets_the_next_seat_go_out_is_seen_as_feeding() -> None:
    """Seat 1 was seen to take the 4H and the 5H and holds one card more, which can only be the
    one card seat 0 has not seen (the JS): the 6H lets it go out, the 2C does not."""
    rules = Rules.from_spec("classic")
    seen = Sight(
        seat=0,
        rules=rules,
        players=2,
        wild=12,
        phase=Phase.DISCARD,
        hand=tuple(sorted(cards("6H 2C 9D 9C"))),
        unseen=((cards("JS")[0], 1),),
        tops=(),
        upcard=None,
        turns_done=4,
        active=(0, 1),
        out_seat=None,
        table=None,
        taken=((), tuple(sorted(cards("4H 5H")))),
        stock=((cards("JS")[0], 1),),
        hand_counts=(4, 3),
        stock_draws=(2, 0),
        discarded=((), ()),
        declined=((), ()),
    )
    assert next_seat(seen) == 1
    samples = [(hand, 1.0) for hand in built_hands(seen, random.Random(2), 8, 1)]
    assert {hand for hand, _ in samples} == {tuple(sorted(cards("4H 5H JS")))}
    assert fed_chance(seen, cards("6H")[0], samples) == 1.0
    assert fed_chance(seen, cards("2C")[0], samples) == 0.0
    # Once somebody is out, or before the first lap is over, nobody goes out on it.
    assert may_feed(seen)
    assert not may_feed(replace(seen, out_seat=0))
    first_lap = Rules.from_spec({"preset": "classic", "first_lap_go_out": False})
    assert not may_feed(replace(seen, rules=first_lap, turns_done=0))

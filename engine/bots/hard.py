"""``hard``: a determinized search of one round trip, with the other hands read from play.

The hidden cards are dealt out in samples (``engine.bots.reading``), each weighed by how well it
explains what the other seats did: the cards they took from a pile meet something in their
hands, the cards they threw and the pile tops they passed over make no meld with them (Buro et
al., IJCAI 2009). Over those samples and, exactly, over the cards the stock may hold, each
candidate discard is followed one round trip:

- the next seat takes it and goes out (its chance over the samples of its hand): the round ends
  after this seat's last turn, which keeps the deadwood its next draw leaves;
- otherwise this seat draws: it goes out with the chance the stock gives it (each other seat then
  scores its deadwood, the samples' mean), or keeps the expected deadwood the draw leaves.

Its score weighs the two sides of the race: what this seat expects to keep, and what the others
are left holding when it goes out first. So it throws what it can spare without feeding the next
seat, builds towards going out while the others hold many points, and dumps its dear cards as
its own chances fade (``RaceWeights``). Draws follow the hint, which is exact; so is a last turn
(the least deadwood is the round's score, and after a reshuffle the stock is known). The budget
is hands evaluated, never time. (``expert`` builds on its reading, two draws ahead.)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from engine.advice import draw_hint
from engine.bots.feeding import fed_chance, may_feed, next_seat
from engine.bots.levels import hinted_draw
from engine.bots.moves import (
    STOCK,
    best_lay_off,
    discard,
    discards,
    draw_action,
    going_out,
    keeps_wilds,
)
from engine.bots.reading import built_hands, seat_likelihood
from engine.cards import Card
from engine.draw_values import stock_value
from engine.game.actions import Action, Phase
from engine.game.melding import deadwood_points, without
from engine.seen import Sight

HARD_BUDGET: Final = 2400
"""Hands a hard decision may evaluate (a candidate costs one per distinct card the stock may
hold, and one per sample of the next seat's hand)."""
SAMPLES: Final = 32
"""Samples of each other hand a discard reads, at most (fewer when the budget is short)."""
ALWAYS_WEIGHED: Final = 3
"""Candidates weighed whatever the budget (normal's three)."""
SPREAD: Final = 5
"""Candidates: the discards within this many points of the least deadwood."""
DRAW_SAMPLES: Final = 8
"""Samples of the other hands a draw reads their deadwood from."""


@dataclass(frozen=True, slots=True)
class RaceWeights:
    """How a candidate's score weighs the race."""

    held: float = 0.3
    """Weight of the deadwood held after the discard (normal's)."""
    fed: float = 1.0
    """Weight of the next seat's chance to go out on the card (the round ends on it)."""
    others: float = 0.5
    """Weight of the others' deadwood when this seat goes out first."""


HARD_RACE: Final = RaceWeights()


def hard(sight: Sight, rng: random.Random, budget: int | None) -> Action:
    return play_hard(sight, rng, HARD_BUDGET if budget is None else budget, HARD_RACE)


def play_hard(sight: Sight, rng: random.Random, work: int, race: RaceWeights) -> Action:
    return reading_turn(
        sight,
        lambda: _draw(sight, rng, race),
        lambda ranked: _best_discard(sight, ranked, rng, work, race),
    )


def reading_turn(
    sight: Sight, draw: Callable[[], Action], throw: Callable[[list[tuple[Card, int]]], Card]
) -> Action:
    """The turn of a level that reads the other hands: ``draw()``, or a lay-off, a go-out or
    ``throw``'s card; a last turn is exact (the hint's draw, then the least deadwood, which is
    the round's score)."""
    if sight.phase is Phase.DRAW:
        return hinted_draw(sight) if sight.out_seat is not None else draw()
    lay_off = best_lay_off(sight)
    if lay_off is not None:
        return lay_off
    ranked = discards(sight)
    out = going_out(sight, ranked)
    if out is not None:
        return out
    if sight.out_seat is not None:
        return discard(ranked[0][0])
    return discard(throw(ranked))


def _draw(sight: Sight, rng: random.Random, race: RaceWeights) -> Action:
    """The hint's draw, but for the race: each source's expected deadwood less its chance to
    go out now times what the others would be left holding."""
    advice = draw_hint(sight)
    if sight.out_seat is not None or len(advice.options) == 1:
        return hinted_draw(sight)  # exact: a last turn keeps the least expected deadwood
    others = others_points(sight, read_hands(sight, rng, DRAW_SAMPLES))
    chosen = min(
        advice.options,
        key=lambda o: (
            o.expected_deadwood - race.others * o.go_out_chance * others,
            o.card is not None,
        ),
    )
    return STOCK if chosen.card is None else draw_action(chosen.pile)


Hands = dict[int, list[tuple[tuple[Card, ...], float]]]
"""Per other seat, samples of its hand with their weights."""


def read_hands(sight: Sight, rng: random.Random, count: int) -> Hands:
    """``count`` samples of each other seat's hand as its play built it, each weighed by how
    well it explains that play."""
    return {
        seat: [
            (hand, seat_likelihood(sight, seat, hand))
            for hand in built_hands(sight, rng, count, seat)
        ]
        for seat in sight.active
        if seat != sight.seat
    }


def _best_discard(
    sight: Sight, ranked: list[tuple[Card, int]], rng: random.Random, work: int, race: RaceWeights
) -> Card:
    candidates = keeps_wilds(sight, ranked)
    least = candidates[0][1]
    likely = [entry for entry in candidates if entry[1] <= least + SPREAD]
    if len(likely) == 1:
        return likely[0][0]
    count = max(4, min(SAMPLES, work // (4 * len(likely))))
    work -= count * len(likely)
    hands = read_hands(sight, rng, count)
    following = next_seat(sight)
    held_by_others = others_points(sight, hands)
    feeds = may_feed(sight) and following is not None
    scored: list[tuple[float, Card]] = []
    for index, (card, left) in enumerate(likely):
        if index >= ALWAYS_WEIGHED and work < len(sight.stock):
            break
        work -= len(sight.stock)
        rest = without(sight.hand, card)
        mean, chance = stock_value(rest, sight.wild, sight.rules, sight.stock)
        fed = fed_chance(sight, card, hands[following]) if feeds and following is not None else 0.0
        # Fed, the round ends on the next turn: this seat keeps what its last draw leaves and
        # loses its own chance to go out first.
        score = mean + race.held * left + race.fed * fed * mean
        score -= race.others * (1.0 - fed) * chance * held_by_others
        scored.append((score, card))
    return min(scored, key=lambda entry: entry[0])[1]


def others_points(sight: Sight, hands: Hands) -> float:
    """The others' mean deadwood over the samples: what each scores if this seat goes out
    first."""
    means = []
    for samples in hands.values():
        total = sum(w * deadwood_points(hand, sight.wild, sight.rules) for hand, w in samples)
        weights = sum(w for _, w in samples)
        means.append(total / weights if weights else 0.0)
    return sum(means) / len(means) if means else 0.0


__all__ = [
    "HARD_BUDGET",
    "Hands",
    "RaceWeights",
    "hard",
    "others_points",
    "play_hard",
    "read_hands",
]

"""``hard``: one draw ahead, the other hands read from play, every choice weighed by the race.

The hidden cards are dealt out in samples (``engine.bots.reading``), each weighed by how well it
explains what the other seats did: the cards they took from a pile meet something in their
hands, the cards they threw and the pile tops they passed over make no meld with them (Buro et
al., IJCAI 2009). From them it reads the race (``engine.bots.race``): the chance the next seat
goes out on this seat's discard (``engine.bots.feeding``), the chance some other seat goes out
on its own draw before this seat draws again (the *hazard*: the samples' weighted chance to be
fully melded after a draw from the stock), and what the others hold if this seat goes out
first.

Each candidate discard is then followed one draw, exact over the cards the stock may hold:
the round ends before that draw with the chance to feed the next seat or the hazard, and this
seat keeps what its last draw leaves; else it goes out with the chance the stock gives it and
the others score what they hold; else the race goes on with the deadwood the draw leaves. So
it throws what it can spare without feeding the next seat, builds while the others are far from
out and dumps its dear cards when they are near. Draws follow the hint, less each source's
chance to go out now times what the others would be left holding. A last turn is exact (the
least deadwood is the round's score, and after a reshuffle the stock is known). The budget is
hands evaluated, never time. ``expert`` weighs the same race two draws ahead.
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
    likely_discards,
)
from engine.bots.race import Outlooks, Race
from engine.bots.reading import built_hands, seat_likelihood
from engine.cards import Card
from engine.game.actions import Action, Phase
from engine.game.melding import deadwood_points, without
from engine.seen import Sight

HARD_BUDGET: Final = 2400
"""Hands a hard decision may evaluate before it weighs a candidate beyond its first three (each
stock value worked out costs one hand per distinct card the stock may hold): the hazard and
the candidates rarely need more, even at four players."""
ALWAYS_WEIGHED: Final = 3
"""Candidates weighed whatever the budget."""
SPREAD: Final = 5
"""Candidates: the discards within this many points of the least deadwood ..."""
WIDTH: Final = 5
"""... at most this many, the analyser's best first."""
DRAW_SAMPLES: Final = 8
"""Samples of the other hands a draw reads their deadwood from."""


@dataclass(frozen=True, slots=True)
class RaceWeights:
    """How a level reads the race."""

    samples: int = 16
    """Samples of each other hand a discard reads."""
    hazard_samples: int = 8
    """Of those, the samples the hazard is read from (a stock value each)."""
    others: float = 1.0
    """Weight of the others' deadwood when this seat goes out first on its next draw."""
    later: float = 0.8
    """Weight of the deadwood the next draw leaves while the race goes on (more turns follow,
    and they lower it)."""
    draw_others: float = 0.5
    """Weight of the others' deadwood against a draw source's chance to go out now."""


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
            o.expected_deadwood - race.draw_others * o.go_out_chance * others,
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


def hazard(hands: Hands, count: int, outlooks: Outlooks) -> float:
    """The chance some other seat goes out on its own draw from the stock before this seat
    draws again: per seat, the weighted chance over its first ``count`` samples."""
    stays = 1.0
    for samples in hands.values():
        total = out = 0.0
        for hand, weight in samples[:count]:
            total += weight
            out += weight * outlooks.value(hand)[1]
        stays *= 1.0 - (out / total if total else 0.0)
    return 1.0 - stays


@dataclass(frozen=True, slots=True)
class Read:
    """What a seat read from the table for one decision."""

    hands: Hands
    """Samples of each other hand, weighed."""
    race: Race
    """The race they make, before this seat's discard."""
    outlooks: Outlooks
    """The seat's stock values and outlooks, worked out once each."""


def read_race(sight: Sight, rng: random.Random, outlooks: Outlooks, weights: RaceWeights) -> Read:
    """The other hands read from ``weights.samples`` samples each, and the race they make: the
    hazard from the first ``weights.hazard_samples``, their deadwood weighed by
    ``weights.others``."""
    hands = read_hands(sight, rng, weights.samples)
    chance = hazard(hands, weights.hazard_samples, outlooks)
    held = weights.others * others_points(sight, hands)
    race = Race(ended=chance, ends=chance, others=held, later=weights.later)
    return Read(hands, race, outlooks)


def weigh_discards(
    sight: Sight,
    likely: list[tuple[Card, int]],
    read: Read,
    work: int,
    score: Callable[[Race, tuple[Card, ...]], float],
) -> Card:
    """The candidate whose ``score`` is least, given the race as it stands after the discard
    (it ends first if the next seat goes out on the card) and the hand the discard leaves.
    Candidates beyond the first three are weighed while ``read.outlooks`` has evaluated at most
    ``work`` hands."""
    following = next_seat(sight)
    feeds = may_feed(sight) and following is not None
    race = read.race
    scored = []
    for index, (card, _) in enumerate(likely):
        if index >= ALWAYS_WEIGHED and read.outlooks.work > work:
            break
        fed = (
            fed_chance(sight, card, read.hands[following])
            if feeds and following is not None
            else 0.0
        )
        now = Race(fed + (1.0 - fed) * race.ended, race.ends, race.others, race.later)
        scored.append((score(now, without(sight.hand, card)), card))
    return min(scored, key=lambda e: e[0])[1]


def _best_discard(
    sight: Sight, ranked: list[tuple[Card, int]], rng: random.Random, work: int, race: RaceWeights
) -> Card:
    likely = likely_discards(sight, ranked, SPREAD, WIDTH)
    if len(likely) == 1:
        return likely[0][0]
    outlooks = Outlooks(sight.wild, sight.rules, sight.stock)
    read = read_race(sight, rng, outlooks, race)
    return weigh_discards(
        sight, likely, read, work, lambda now, rest: now.one_draw(outlooks.value(rest))
    )


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
    "Read",
    "hard",
    "hazard",
    "others_points",
    "play_hard",
    "read_hands",
    "read_race",
    "reading_turn",
    "weigh_discards",
]

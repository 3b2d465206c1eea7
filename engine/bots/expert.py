"""``expert``: two draws ahead, the other hands read from play, every choice weighed by the race.

It reads the other hands as ``hard`` does (``engine.bots.reading``: samples of each hand as its
play built it, weighed by how well they explain that play) and draws two conclusions from
them: the chance the next seat goes out on this seat's discard (``engine.bots.feeding``), and
the chance some other seat goes out on its own draw before this seat draws again (the
*hazard*: the samples' weighted chance to be fully melded after a draw from the stock).

Each candidate discard is then scored by ``engine.bots.race``: the outlook of the hand it
leaves over this seat's next two draws (one in hands of more than 9 cards), exact over the
cards the stock may hold, weighed by the chance the round ends first (this seat keeps its last
draw's deadwood), the chance this seat goes out first (the others score what they hold) and
what the hand keeps while the race goes on. So it builds while the others are far from out and
dumps its dear cards when they are near. A draw is scored the same way one draw further on:
the stock, over each card it may hold followed by the best discard and one more draw, against
each pile's top card followed by the best of the first discards the discard step would weigh
(never that card itself: throwing it back only passes the turn). A last turn is exact, as in
every level. The budget is hands evaluated (one per distinct card the stock may hold in each
stock value worked out), never time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from engine.bots.hard import (
    RaceWeights,
    Read,
    hazard,
    read_race,
    reading_turn,
    weigh_discards,
)
from engine.bots.moves import STOCK, draw_action, likely_discards
from engine.bots.race import Outlooks
from engine.cards import Card
from engine.draw_values import kept_after, ranked_discards, with_card
from engine.game.actions import Action
from engine.game.melding import without
from engine.seen import Sight

EXPERT_BUDGET: Final = 10_000
"""Hands an expert decision may evaluate before it weighs a candidate beyond its first three
(each stock value worked out costs one hand per distinct card the stock may hold): a
two-player discard rarely needs more, a four-player one in its big rounds does."""


@dataclass(frozen=True, slots=True)
class Style:
    """The expert's settings."""

    others: float = 1.0
    """Weight of the others' deadwood when this seat goes out first."""
    later: float = 0.8
    """Weight of the deadwood kept after two draws while the race goes on."""
    samples: int = 16
    """Samples of each other hand a discard reads."""
    hazard_samples: int = 8
    """Of those, the samples the hazard is read from (a stock value each)."""
    spread: int = 5
    """Candidates: the discards within this many points of the least deadwood ..."""
    width: int = 8
    """... at most this many, the analyser's best first."""
    draw_discards: int = 3
    """Discards weighed after taking a pile's top card."""
    two_draws_up_to: int = 9
    """A discard that leaves at most this many cards is weighed over two draws, one leaving more
    over one draw (``hard``'s race): where the two levels' discards differed in five-crowns,
    rollouts found the two-draw choice the worse one in hands of 10 to 13 cards."""


EXPERT_STYLE: Final = Style()


def expert(
    sight: Sight, rng: random.Random, budget: int | None, style: Style = EXPERT_STYLE
) -> Action:
    """The level's decision; another ``style`` is one of the arena's variants of it."""
    return play_expert(sight, rng, EXPERT_BUDGET if budget is None else budget, style)


def play_expert(sight: Sight, rng: random.Random, work: int, style: Style) -> Action:
    return reading_turn(
        sight,
        lambda: _draw(sight, rng, style),
        lambda ranked: _best_discard(sight, ranked, rng, work, style),
    )


def _race(sight: Sight, rng: random.Random, style: Style, count: int, outlooks: Outlooks) -> Read:
    weights = RaceWeights(
        samples=count, hazard_samples=style.hazard_samples, others=style.others, later=style.later
    )
    return read_race(sight, rng, outlooks, weights)


def _candidates(
    sight: Sight, ranked: list[tuple[Card, int]], style: Style, taken: Card | None
) -> list[tuple[Card, int]]:
    """The discards worth weighing, from ``ranked`` (least deadwood first): not the card just
    ``taken`` from a pile while another will do (throwing it back only passes the turn, and two
    experts would pass it to each other for ever), no wild the hand can use, within
    ``style.spread`` points of the least deadwood, at most ``style.width`` of them."""
    kept = [e for e in ranked if e[0] != taken] or ranked
    return likely_discards(sight, kept, style.spread, style.width)


def _best_discard(
    sight: Sight, ranked: list[tuple[Card, int]], rng: random.Random, work: int, style: Style
) -> Card:
    likely = _candidates(sight, ranked, style, sight.upcard)
    if len(likely) == 1:
        return likely[0][0]
    outlooks = Outlooks(sight.wild, sight.rules, sight.stock)
    read = _race(sight, rng, style, style.samples, outlooks)
    two_draws = len(sight.hand) - 1 <= style.two_draws_up_to
    return weigh_discards(
        sight,
        likely,
        read,
        work,
        lambda now, rest: (
            now.points(outlooks.outlook(rest)) if two_draws else now.one_draw(outlooks.value(rest))
        ),
    )


def _draw(sight: Sight, rng: random.Random, style: Style) -> Action:
    """The source with the least points expected after this draw and the next: the stock over
    each card it may hold (then the best discard), each pile's top card with the best of the
    first discards ``_best_discard`` would weigh after taking it. A draw that goes out is taken
    at once."""
    if not sight.tops:
        return STOCK
    hand, wild, rules = sight.hand, sight.wild, sight.rules
    forbid = not rules.discard_drawn_upcard
    may_out = sight.may_go_out
    outlooks = Outlooks(wild, rules, sight.stock)
    race = _race(sight, rng, style, style.hazard_samples, outlooks).race
    total = 0
    value = 0.0
    for card, copies in sight.stock:
        total += copies
        rest = outlooks.after(hand, card)
        if rest is None:
            value += copies * (-race.others if may_out else 0.0)
        else:
            value += copies * race.one_draw(outlooks.value(rest))
    best: tuple[float, int | None] | None = None
    stock = value / total if total else 0.0
    for pile, top in sight.tops:
        drawn = with_card(hand, top)
        forbidden = top if forbid and drawn.count(top) == 1 else None
        if may_out and kept_after(drawn, wild, rules, forbidden) == 0:
            return draw_action(pile)
        ranked = ranked_discards(drawn, wild, rules, forbidden)
        options = _candidates(sight, ranked, style, top)[: style.draw_discards]
        worth = min(race.one_draw(outlooks.value(without(drawn, c))) for c, _ in options)
        if worth < stock and (best is None or worth < best[0]):
            best = (worth, pile)
    return STOCK if best is None else draw_action(best[1])


__all__ = ["EXPERT_BUDGET", "Style", "expert", "hazard", "play_expert"]

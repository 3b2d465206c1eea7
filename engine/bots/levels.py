"""The computer players, weakest first. Each is a function of a seat's ``Sight`` (its view and
the public log), a random generator seeded by the caller, and a budget of work (hands
evaluated, never seconds: a decision made twice, on any machine, is the same): never the
state.

Every level lays off under redemption when that lowers its deadwood, and goes out as soon as it
can. They differ in how they draw and what they throw:

- ``greedy``: takes a pile's top card when it lowers its least deadwood after the best discard,
  else the stock; throws the analyser's suggested card.
- ``easy``: greedy with human slips: it forgets the cards under the piles' tops and what others
  took, and now and then throws the second or third best card.
- ``normal``: draws by expectation (the hint) and throws the card whose loss leaves the best
  expectation for its next draw, never a wild it can use; on a last turn, the least deadwood.

``hard`` (``engine.bots.hard``) reads the other hands and weighs the race on top of normal's
look-ahead; ``expert`` (``engine.bots.expert``) looks two draws ahead.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.advice import draw_hint
from engine.analysis import min_deadwood
from engine.bots.moves import (
    STOCK,
    best_lay_off,
    discard,
    discards,
    draw_action,
    going_out,
    likely_discards,
)
from engine.cards import Card
from engine.draw_values import kept_after, stock_mean_below, with_card
from engine.game.actions import Action, Phase
from engine.game.melding import without
from engine.seen import Sight

Ranked = list[tuple[Card, int]]
Level = Callable[[Sight, random.Random, int | None], Action]
"""A level: the move from a sight, a seeded generator and a budget of work (None: the level's
own)."""

EASY_SLIP = 0.25
"""How often ``easy`` throws a worse card than the analyser's."""


def _play(sight: Sight, draw: Callable[[Sight], Action], throw: Callable[[Ranked], Card]) -> Action:
    """A turn's move: the draw, or a lay-off, a go-out or the chosen discard."""
    if sight.phase is Phase.DRAW:
        return draw(sight)
    lay_off = best_lay_off(sight)
    if lay_off is not None:
        return lay_off
    ranked = discards(sight)
    out = going_out(sight, ranked)
    return out if out is not None else discard(throw(ranked))


# -- greedy ---------------------------------------------------------------------------------------


def greedy(sight: Sight, rng: random.Random, budget: int | None) -> Action:
    return _play(sight, _greedy_draw, lambda ranked: ranked[0][0])


def _greedy_draw(sight: Sight) -> Action:
    hand, wild, rules = sight.hand, sight.wild, sight.rules
    now = min_deadwood(hand, wild, rules)
    best: tuple[int, int | None] | None = None
    for pile, top in sight.tops:
        drawn = with_card(hand, top)
        forbidden = top if not rules.discard_drawn_upcard and drawn.count(top) == 1 else None
        kept = kept_after(drawn, wild, rules, forbidden)
        if kept < now and (best is None or kept < best[0]):
            best = (kept, pile)
    return STOCK if best is None else draw_action(best[1])


# -- easy -----------------------------------------------------------------------------------------


def easy(sight: Sight, rng: random.Random, budget: int | None) -> Action:
    return _play(forgetful(sight), hinted_draw, lambda ranked: _slip(ranked, rng))


def forgetful(sight: Sight) -> Sight:
    """``sight`` as a player who keeps only its hand, the piles' tops and the table in mind:
    every other card of the pack is unseen to it."""
    known = list(sight.hand) + [top for _, top in sight.tops]
    known += [c for melds in sight.table or () for meld in melds for c in meld]
    pack: dict[Card, int] = {}
    for c in sight.rules.pack(sight.players):
        pack[c] = pack.get(c, 0) + 1
    for c in known:
        pack[c] -= 1
    unseen = tuple((c, n) for c, n in sorted(pack.items()) if n > 0)
    return replace(
        sight, unseen=unseen, stock=unseen, stock_known=False, taken=((),) * sight.players
    )


def _slip(ranked: Ranked, rng: random.Random) -> Card:
    if len(ranked) > 1 and rng.random() < EASY_SLIP:
        return rng.choice(ranked[1:3])[0]
    return ranked[0][0]


# -- normal ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lookahead:
    """Which discards a level weighs by its next draw."""

    spread: int
    """Only the discards leaving at most this many points more deadwood than the best (a card
    that costs more now is rarely worth it next turn)."""
    width: int | None
    """At most this many of them, the analyser's best first (None: all of them)."""


NORMAL_LOOKAHEAD = Lookahead(spread=4, width=3)
NORMAL_WEIGHT = 0.3
"""The weight of the deadwood held now against the next draw's expectation."""


def normal(sight: Sight, rng: random.Random, budget: int | None) -> Action:
    return _play(sight, hinted_draw, lambda ranked: _lookahead(sight, ranked, NORMAL_LOOKAHEAD))


def hinted_draw(sight: Sight) -> Action:
    advised = draw_hint(sight).advised
    return STOCK if advised.card is None else draw_action(advised.pile)


def _lookahead(sight: Sight, ranked: Ranked, look: Lookahead) -> Card:
    """The card whose discard leaves the least expected deadwood after the next draw from the
    stock, plus ``NORMAL_WEIGHT`` times the deadwood held meanwhile: a one-draw expectimax,
    exact over the cards the stock may hold, over the candidates ``look`` admits. On a last
    turn it is the least deadwood now, which is the round's score."""
    if sight.out_seat is not None:
        return ranked[0][0]
    likely = likely_discards(sight, ranked, look.spread, look.width)
    best: tuple[float, Card] | None = None
    for card, left in likely:
        held = NORMAL_WEIGHT * left
        bound = math.inf if best is None else best[0] - held
        mean = stock_mean_below(
            without(sight.hand, card),
            sight.wild,
            sight.rules,
            sight.stock,
            bound,
            deadwood=left,
        )
        if mean is not None and (best is None or mean + held < best[0]):
            best = (mean + held, card)
    assert best is not None
    return best[1]

"""The moves a seat may make, from its ``Sight`` alone, and the choices every level shares.

``engine.game.legal_actions`` needs the state; a bot must not see it. The rules it applies are
few and all public: the draw sources, the one discard ``discard_drawn_upcard`` may forbid, when
a go-out may be declared (nobody out yet, ``first_lap_go_out``), and under redemption the
lay-offs on other seats' melds on a last turn. A bot declares a go-out only when its hand is
fully melded, so the failed go-out penalty never applies to it.
"""

from __future__ import annotations

from engine.analysis.hand import is_wild
from engine.cards import Card
from engine.draw_values import kept_after, ranked_discards
from engine.game.actions import DISCARD_DRAW, DISCARDS, GO_OUTS, STOCK_DRAW, Action, Draw, LayOff
from engine.game.melding import lay_out_meld, without
from engine.seen import Sight

STOCK = STOCK_DRAW


def draw_action(pile: int | None) -> Draw:
    """The draw from a pile's top: the shared pile (``pile`` None) or seat ``pile``'s own."""
    return DISCARD_DRAW if pile is None else Draw("discard", pile)


def best_lay_off(sight: Sight) -> LayOff | None:
    """Redemption, on a last turn: the lay-off that lowers the deadwood kept most, if any does.
    (One at a time: the bot is asked again with the smaller hand.)"""
    if not sight.rules.redemption or sight.out_seat in (None, sight.seat) or not sight.table:
        return None
    hand, wild, rules = sight.hand, sight.wild, sight.rules
    now = kept_after(hand, wild, rules, sight.forbidden_discard)
    best: tuple[int, LayOff] | None = None
    for c in sorted(set(hand)):
        rest = without(hand, c)
        if not _keeps_a_discard(sight, rest):
            continue
        for owner, melds in enumerate(sight.table):
            if owner == sight.seat:
                continue
            for index, meld in enumerate(melds):
                if lay_out_meld((*meld, c), wild, rules) is None:
                    continue
                left = (
                    0 if len(rest) == 1 else kept_after(rest, wild, rules, sight.forbidden_discard)
                )
                if left < now and (best is None or left < best[0]):
                    best = (left, LayOff(c, owner, index))
    return None if best is None else best[1]


def _keeps_a_discard(sight: Sight, rest: tuple[Card, ...]) -> bool:
    forbidden = sight.forbidden_discard
    return (
        any(c != forbidden for c in rest) or rest.count(forbidden) > 1 if forbidden else bool(rest)
    )


def discards(sight: Sight) -> list[tuple[Card, int]]:
    """Each card the seat may discard with the deadwood it leaves, best first."""
    return ranked_discards(sight.hand, sight.wild, sight.rules, sight.forbidden_discard)


def going_out(sight: Sight, ranked: list[tuple[Card, int]]) -> Action | None:
    """The go-out, when the best discard leaves no deadwood and going out is allowed now."""
    card, left = ranked[0]
    if left == 0 and sight.may_go_out:
        return GO_OUTS[card]
    return None


def discard(card: Card) -> Action:
    return DISCARDS[card]


def keeps_wilds(sight: Sight, ranked: list[tuple[Card, int]]) -> list[tuple[Card, int]]:
    """``ranked`` without the wilds the hand can use: a wild is thrown only when throwing it
    leaves less deadwood than any natural would (it is then dead weight), or when the hand holds
    nothing else to discard."""
    naturals = [entry for entry in ranked if not is_wild(entry[0], sight.wild)]
    if not naturals:
        return ranked
    best_natural = naturals[0][1]
    return [e for e in ranked if not is_wild(e[0], sight.wild) or e[1] < best_natural]


def likely_discards(
    sight: Sight, ranked: list[tuple[Card, int]], spread: int, width: int | None
) -> list[tuple[Card, int]]:
    """The discards a look-ahead weighs, from ``ranked`` (least deadwood first): those
    ``keeps_wilds`` keeps within ``spread`` points of the least deadwood, at most ``width``
    (None: all of them)."""
    candidates = keeps_wilds(sight, ranked)
    least = candidates[0][1]
    return [e for e in candidates if e[1] <= least + spread][:width]

"""Exact hand analysis: the arrangement into melds with the least deadwood, and every discard
ranked by the deadwood it leaves.

The chain, one module a step (docs/analysis.md tells it whole):

1. ``hand`` reads the hand: card codes or ints, checked against the rules' pack and wild rank;
   split into natural cards and wilds (jokers and the wild rank), and a hand with no wild at all
   settled from bit masks where it can be.
2. ``candidates`` lists the candidate melds under one rules value and wild rank: the runs a card
   heads, the ways a rank's pool of cards makes sets, what leftover wilds cost.
3. ``table`` lays one hand out as packed digits (``formats`` describes every packed integer) and
   lists its runs; ``search`` is the exact, memoised branch-and-bound search over it, with its
   memo (``memo``) and its lower bound (``floor``) beside it; where the rules limit wilds,
   ``roles`` searches every split of the wild-rank cards into naturals and wilds over one table.
4. ``arrangement`` follows the search's recorded moves to the best arrangement and lays the wilds
   into its melds.
5. ``discards`` ranks every discard of the hand by the least deadwood it leaves.
6. ``results`` holds what an analysis answers, and the one definition of its JSON document.

``variants.search_variant`` is a hook for checking the search from outside: one variant of it
(the floor on or off, either order), which the public functions choose for themselves.

A card of the wild rank plays either way: as a wild, or as the natural card it is, which counts
towards no limit on wilds; in an arrangement a card that plays as itself stands for None.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.analysis.arrangement import arrange as arrange_search
from engine.analysis.candidates import context_for
from engine.analysis.discards import analysis_of
from engine.analysis.formats import MAX_HAND, UNLIMITED
from engine.analysis.hand import read_hand, split_wilds
from engine.analysis.results import (
    Analysis,
    Meld,
    MeldKind,
    RankedDiscard,
    analysis_document,
    build_document,
)
from engine.analysis.roles import Roles, plays_either_way
from engine.analysis.search import least_of_split, search_of
from engine.analysis.variants import SearchVariant, search_variant
from engine.cards import Card, Rank, format_card, format_rank
from engine.rules import RulesSpec

__all__ = [
    "MAX_HAND",
    "Analysis",
    "Meld",
    "MeldKind",
    "RankedDiscard",
    "SearchVariant",
    "analyse",
    "analysis_document",
    "arrange",
    "build_document",
    "describe",
    "min_deadwood",
    "search_variant",
]


def min_deadwood(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> int:
    """The least deadwood penalty of ``cards`` over every arrangement into melds."""
    hand, wild_rank, rules_value = read_hand(cards, wild, rules)
    context = context_for(rules_value, wild_rank)
    naturals, wilds = split_wilds(hand, wild_rank)
    if plays_either_way(context, wilds):
        return Roles(context, hand).least()
    return least_of_split(context, naturals, wilds, UNLIMITED)


def arrange(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """The best arrangement alone (no ranking of discards): melds, deadwood, deadwood points."""
    hand, wild_rank, rules_value = read_hand(cards, wild, rules)
    context = context_for(rules_value, wild_rank)
    naturals, wilds = split_wilds(hand, wild_rank)
    if plays_either_way(context, wilds):
        search, state, _ = Roles(context, hand).best()
    else:
        (table, search), _ = search_of(context, naturals, wilds)
        state = table.full
    melds, deadwood = arrange_search(search, state)
    return melds, deadwood, sum(context.card_points[c] for c in deadwood)


def analyse(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> Analysis:
    """The best arrangement of ``cards``, its deadwood, and every discard ranked by what it leaves.

    ``wild`` is a rank (int or code such as ``"8"``), or None when only jokers are wild.
    """
    hand, wild_rank, rules_value = read_hand(cards, wild, rules)
    context = context_for(rules_value, wild_rank)
    return analysis_of(context, hand)


def describe(analysis: Analysis) -> str:
    """A readable, multi-line account of an analysis."""
    wild = "none" if analysis.wild is None else format_rank(analysis.wild)
    lines = [f"wild rank: {wild}"]
    for meld in analysis.melds:
        lines.append(f"  {repr(meld)[5:-1]}")
    dead = " ".join(format_card(c) for c in analysis.deadwood) or "-"
    lines.append(f"deadwood: {dead} ({analysis.deadwood_points} points)")
    if analysis.discards:
        ranked = ", ".join(f"{format_card(d.card)}→{d.deadwood_points}" for d in analysis.discards)
        lines.append(f"discards: {ranked}")
        lines.append(f"can go out: {'yes' if analysis.can_go_out else 'no'}")
    return "\n".join(lines)

"""One variant of the analyser's search, for checking it from outside: the public functions
choose the floor and the search order themselves, and a test cannot hold each choice to the
reference through them.

``search_variant`` searches a hand in the order asked (the mirror image or the hand as it is),
with the floor forced on or off, every wild-rank card playing as a wild (one split of the hand:
see roles), and answers what that search finds; with the floor on, also the floor's lower bound
at the first state where the search may ask it. Nothing else calls it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.analysis.arrangement import arrange
from engine.analysis.candidates import context_for
from engine.analysis.floor import floor
from engine.analysis.hand import read_hand, split_wilds
from engine.analysis.results import Meld
from engine.analysis.search import Search
from engine.analysis.table import MeldTable
from engine.cards import Card, Rank
from engine.rules import RulesSpec


@dataclass(frozen=True)
class SearchVariant:
    """What one variant of the search finds for a hand (see search_variant)."""

    least: int
    """The least deadwood of the hand, every wild-rank card a wild."""
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    """The arrangement the variant reaches (its melds and deadwood, as ``arrange`` gives)."""
    first_floor: int | None
    """With the floor on: its bound at the first state where the search may ask it (every ace
    that may play high moved after the kings, as the search moves them first); else None."""
    first_least: int
    """The least deadwood at that state."""
    first_is_whole: bool
    """Whether that state is the whole hand (no ace moved)."""


def search_variant(
    cards: Iterable[Card | str],
    wild: Rank | str | None,
    rules: RulesSpec = "classic",
    *,
    floored: bool,
    mirrored: bool,
) -> SearchVariant:
    """The search of ``cards`` with the floor on or off (``floored``), on the hand's mirror image
    or the hand as it is (``mirrored``), every wild-rank card playing as a wild."""
    hand, wild_rank, rules_value = read_hand(cards, wild, rules)
    naturals, wilds = split_wilds(hand, wild_rank)
    context = context_for(rules_value, wild_rank)
    if mirrored:
        context, naturals = context.flipped(), [context.mirror[n] for n in naturals]
    table = MeldTable(context, naturals, len(wilds), floored)
    search = Search(table, wilds)
    state = aces_moved(table)
    bound: int | None = None
    if floored:
        present = table.present(state)
        bound = floor(table, search.tally, search.lone_limit, state, present, len(wilds), 0, 0, 0)
    first_least = search.best(state)
    least = search.best(table.full)
    melds, deadwood = arrange(search, table.full)
    return SearchVariant(least, melds, deadwood, bound, first_least, state == table.full)


def aces_moved(table: MeldTable) -> int:
    """The table's whole hand with every ace moved after the kings, as the search moves them
    before it asks the floor (where an ace may play high)."""
    state: int = table.full
    for i, high in enumerate(table.high_of):
        if high >= 0:
            copies = (state >> table.offset[i]) & table.count_mask[i]
            state += copies * (table.unit[high] - table.unit[i])
    return state

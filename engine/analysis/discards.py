"""The ranked discards: for a hand one card over the deal, every distinct card's discard and the
least deadwood it leaves, the best first (ties: the dearest card first).

A card left as deadwood by the best arrangement costs exactly its penalty; a melded card gets a
search of the hand without it, under the budget of breaking its meld, in whichever search order
meets it early (see search).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.analysis.arrangement import arrange
from engine.analysis.candidates import Context
from engine.analysis.formats import DISCARD_CARD, DISCARD_LEFT_AT, DISCARD_POINTS, DISCARD_POINTS_AT
from engine.analysis.hand import split_wilds
from engine.analysis.results import Analysis, Meld, RankedDiscard
from engine.analysis.roles import Roles, plays_either_way
from engine.analysis.search import RACE_FROM, Exhausted, Search, search_of, wild_key
from engine.cards import JOKER, Card

NO_CARDS: Final = vec[i64]([0] * (JOKER + 1))
"""Per card, as analysis_of marks them: HELD in the hand, LEFT left as deadwood."""
HELD: Final = 1
LEFT: Final = 2


def analysis_of(context: Context, hand: list[Card]) -> Analysis:
    """The analysis of a hand: its best arrangement, its deadwood and every discard ranked.

    Each discard is one int that sorts best first (see formats), in a vector of native ints
    indexed by card: a set, a dict or a sort of a dozen boxed ints costs more than an
    analysis' search of a small hand."""
    naturals, wilds = split_wilds(hand, context.wild)
    if plays_either_way(context, wilds):
        return analyse_by_roles(context, hand)
    penalty = context.card_points
    (table, search), other = search_of(context, naturals, wilds)
    melds, deadwood = arrange(search, table.full)
    points = sum(penalty[c] for c in deadwood)
    search.keep_moves = False  # (the discards' searches need their results alone)
    if other:
        other[1].keep_moves = False
    ranked = vec[i64]()
    if len(hand) > 1:
        # A card left as deadwood by the best arrangement costs exactly its penalty: discarding
        # it leaves the rest of that arrangement (no better one can exist, or adding the card
        # back as deadwood would beat the best). Only melded cards need a search of their own.
        held = held_cards(hand, deadwood)
        broken = broken_melds(melds, points, penalty)
        # Discarding a natural keeps the wilds (and the memo); each kind of wild gets a search.
        by_wilds = {search.wild_key: search}
        late = late_cards(context, naturals, table.context.mirrored) if other else NO_CARDS
        for c in range(JOKER + 1):
            if not held[c]:
                continue
            if held[c] == LEFT:
                left = points - penalty[c]
            elif c in context.wild_cards:
                left = without_wild(search, c, by_wilds)
            elif other and late[c]:
                # A discard's search redoes what comes before the card in its search's order,
                # so on a large hand a card late in that order is searched in the other order,
                # where it comes early and the later states are shared with the other such
                # cards' searches. Once it holds more states than three times the search's (and
                # a race's first round), it gives up, and this and the remaining cards go back.
                other_table, other_search = other
                other_search.state_limit = 3 * search.known.size + RACE_FROM
                try:
                    left = discard_search(
                        partial(other_search.best, other_table.without(c)), True, points, broken[c]
                    )
                except Exhausted:
                    other = None
                    left = searched_without(search, c, points, broken[c])
            else:
                left = searched_without(search, c, points, broken[c])
            ranked = append(ranked, ranked_key(left, penalty[c], c))
    return Analysis(context.wild, melds, deadwood, points, ranked_discards(ranked))


def broken_melds(melds: tuple[Meld, ...], points: int, penalty: Sequence[int]) -> vec[i64]:
    """Per melded card, the deadwood left when discarding it breaks its meld: the rest of the
    meld becomes deadwood, the other melds stay. An upper bound, and its search's first budget."""
    broken = NO_CARDS[:]
    for meld in melds:
        cost = sum(penalty[m] for m in meld.cards)
        for m in meld.cards:
            broken[m] = points + cost - penalty[m]
    return broken


def late_cards(context: Context, naturals: list[Card], mirrored: bool) -> vec[i64]:
    """Per card, 1 for those that come late in the search's order, for the search in the other
    order: the low half of the ranks in the mirror image, the high half in the hand as it is.
    (An ace that may play high comes first in both orders: it stays with the search.)"""
    halfway = sorted([c % 13 for c in naturals])[len(naturals) // 2]
    lowest_late = 1 if context.ace_high else 0
    late = NO_CARDS[:]
    for c in naturals:
        if lowest_late <= c % 13 < halfway if mirrored else c % 13 > halfway:
            late[c] = 1
    return late


def without_wild(search: Search, c: Card, by_wilds: dict[tuple[int, ...], Search]) -> int:
    """The least deadwood of the hand less the wild ``c``: the same search with one wild fewer
    when ``c`` is one of the dearest (its tables still hold), else a search per kind of wilds."""
    table, penalty = search.table, search.context.card_points
    if penalty[c] == search.wild_key[-1]:
        return search.best(table.full, wilds=search.wild_count - 1)
    rest = list(search.wild_cards)
    rest.remove(c)
    key = wild_key(rest, penalty)
    if key not in by_wilds:
        by_wilds[key] = Search(table, rest)
    return by_wilds[key].best(table.full)


def analyse_by_roles(context: Context, hand: list[Card]) -> Analysis:
    """``analyse`` of a hand whose wild-rank cards may play either way under a limit on wilds:
    the best arrangement over every split of them, and each discard's least deadwood the same
    way (see roles)."""
    penalty = context.card_points
    roles = Roles(context, hand)
    search, state, _ = roles.best()
    melds, deadwood = arrange(search, state)
    points = sum(penalty[c] for c in deadwood)
    ranked = vec[i64]()
    if len(hand) > 1:
        held = held_cards(hand, deadwood)
        broken = broken_melds(melds, points, penalty)
        for c in range(JOKER + 1):
            if held[c] == LEFT:  # (as in analysis_of: it costs exactly its penalty)
                left = points - penalty[c]
            elif held[c]:
                left = discard_search(partial(roles.least, c), roles.floored, points, broken[c])
            else:
                continue
            ranked = append(ranked, ranked_key(left, penalty[c], c))
    return Analysis(context.wild, melds, deadwood, points, ranked_discards(ranked))


def held_cards(hand: list[Card], deadwood: tuple[Card, ...]) -> vec[i64]:
    """Per card: HELD in the hand, LEFT left as deadwood by the best arrangement."""
    held = NO_CARDS[:]
    for c in hand:
        held[c] = HELD
    for c in deadwood:
        held[c] = LEFT
    return held


def ranked_key(left: i64, points: i64, c: i64) -> i64:
    """A discard as one int that sorts best first (see formats)."""
    return left << DISCARD_LEFT_AT | (DISCARD_POINTS - points) << DISCARD_POINTS_AT | c


def ranked_discards(ranked: vec[i64]) -> tuple[RankedDiscard, ...]:
    insertion_sort(ranked)
    return tuple([RankedDiscard(key & DISCARD_CARD, key >> DISCARD_LEFT_AT) for key in ranked])


def insertion_sort(values: vec[i64]) -> None:
    """Sorts ``values`` in place, by insertion: an analysis' dozen discards."""
    value: i64
    j: i64
    for i in range(1, len(values)):
        value = values[i]
        j = i - 1
        while j >= 0 and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


def searched_without(search: Search, c: Card, points: int, broken: int) -> int:
    """discard_search of the hand of ``search`` less the melded card ``c``."""
    ask = partial(search.best, search.table.without(c))
    return discard_search(ask, search.table.floored, points, broken)


def discard_search(least: Callable[[int], int], floored: bool, points: int, broken: int) -> int:
    """The least deadwood of a hand less a melded card, where ``least(budget)`` searches it
    under a budget (see Search.best): at most ``broken``, and on large (``floored``) hands most
    often no more than ``points``, the whole hand's."""
    if floored:
        # First ask that, under the tighter budget, then under wider ones (the bounds each
        # proves carry over to the next).
        budget, step = points + 1, 2
        while budget <= broken:
            left = least(budget)
            if left < budget:
                return left
            budget, step = left + step, 2 * step
    return least(broken + 1)

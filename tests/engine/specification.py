"""The analyser's specification: a plain, exact search for the least deadwood of a hand.

It reads as the rules do. Take the hand's first card (plain naturals first, by suit and rank, then
the wild cards). Either it is deadwood, or it is in a meld with some of the cards after it: a set
of its rank, or a run of its suit through its rank. Try both, and every such meld, on the rest of
the hand; the least deadwood of all is the hand's. Whether a group of cards is a meld (every way
its wild-rank cards and its aces may play) is the brute-force reference's ``is_valid_meld``.

Fast enough for hands of 20 cards because a meld holding the first card is chosen among few
cards: the other naturals of its rank, or one copy of each rank of its suit, and the wilds.
Nothing in it is shared with the engine's analyser.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import product

from engine.cards import Card
from engine.rules import Rules
from tests.engine.reference import is_valid_meld, is_wild

Hand = tuple[Card, ...]
"""A hand as the search sees it: sorted by ``order``, so its first card is the one to decide."""


def least_deadwood(hand: Sequence[Card], wild: int | None, rules: Rules) -> int:
    """The least deadwood penalty of ``hand`` over every arrangement into melds."""

    def order(c: Card) -> tuple[bool, int, int]:
        return is_wild(c, wild), c // 13, c % 13

    @cache
    def best(cards: Hand) -> int:
        if not cards:
            return 0
        first, rest = cards[0], cards[1:]
        least = rules.points(first, wild) + best(rest)  # the first card as deadwood
        for meld in melds_with(first, rest, wild, rules):
            least = min(least, best(without(rest, meld)))
        return least

    return best(tuple(sorted(hand, key=order)))


def melds_with(first: Card, rest: Hand, wild: int | None, rules: Rules) -> set[Hand]:
    """Every group of cards of ``rest`` that makes a meld with ``first``, each group once."""
    wilds = tuple(c for c in rest if is_wild(c, wild))
    if is_wild(first, wild):  # then every card left is wild: any group of them may do
        return melds_among(first, wilds, wild, rules)
    same_rank = tuple(c for c in rest if not is_wild(c, wild) and c % 13 == first % 13)
    # One copy of each other rank of its suit: copies of a card are alike.
    same_suit = {c for c in rest if not is_wild(c, wild) and c // 13 == first // 13}
    same_suit -= {c for c in same_suit if c % 13 == first % 13}
    sets = melds_among(first, same_rank + wilds, wild, rules)
    return sets | melds_among(first, tuple(sorted(same_suit)) + wilds, wild, rules)


@cache
def melds_among(first: Card, cards: Hand, wild: int | None, rules: Rules) -> set[Hand]:
    """Every group of ``cards`` that makes a meld with ``first``. (Memoised: the search meets
    the same first card among the same candidates in many states.)"""
    found: set[Hand] = set()
    for group in sub_multisets(cards):
        if len(group) >= 2 and is_meld(tuple(sorted((first, *group))), wild, rules):
            found.add(group)
    return found


@cache
def is_meld(cards: Hand, wild: int | None, rules: Rules) -> bool:
    """``is_valid_meld`` of sorted ``cards``, memoised: groups recur among other candidates."""
    return is_valid_meld(cards, wild, rules)


def sub_multisets(cards: Sequence[Card]) -> Iterator[Hand]:
    """Every sub-multiset of ``cards``, each once, as a sorted tuple."""
    counts = sorted(Counter(cards).items())
    for taken in product(*[range(count + 1) for _, count in counts]):
        yield tuple(c for (c, _), k in zip(counts, taken, strict=True) for _ in range(k))


def without(cards: Hand, group: Hand) -> Hand:
    """``cards`` less one copy of each card of ``group`` (in order)."""
    left = list(cards)
    for c in group:
        left.remove(c)
    return tuple(left)

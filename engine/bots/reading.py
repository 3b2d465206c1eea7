"""Reading the other hands: samples of a seat's hand as its play built it, each weighed by how
well it explains what that seat did.

A sample deals a seat the cards it was seen to take from the piles, and as many cards as it has
seen that this seat has not (dealt, and drawn from the stock) from those this seat has not seen
(``Sight.unseen``, and after a reshuffle the stock's known cards); then it throws the analyser's
best discard, one card at a time, until the hand has its size. A hand a player kept the best of
is far closer to melded than a random one: in games of two ``normal`` bots, such samples say a
card lets the next seat go out one time in four when it truly does, one in nine when it does
not (random hands: one in fifty against one in eighty).

The seat's play then tells some samples from others (Buro et al., IJCAI 2009, did this for
Skat): a seat that took a pile's top card likely holds cards it melds with; a seat that threw a
card, or passed a pile's top card over for the stock, likely holds nothing that card would have
made a meld with. A sample's weight is the product of one factor per such observation.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

from engine.analysis.hand import is_wild
from engine.cards import KING, Card, Rank
from engine.draw_values import RUN_REACH, best_discard, ranked_discards
from engine.game.melding import without
from engine.seen import Copies, Sight

TOOK_ALONE: Final = 0.35
"""The weight of a sample in which a card the seat took from a pile meets nothing in its hand."""
THREW_A_MELD: Final = 0.25
"""... in which a card it threw would have made a meld with two of its cards."""
PASSED_A_MELD: Final = 0.35
"""... in which a pile's top card it passed over for the stock would have made one."""
RECENT: Final = 6
"""Only a seat's last few discards and passes are read (its hand has changed since the rest)."""
SET_PARTNERS: Final = 2
"""Naturals of a card's rank that make a set with it."""


def built_hands(sight: Sight, rng: random.Random, count: int, seat: int) -> list[tuple[Card, ...]]:
    """``count`` samples of ``seat``'s hand as its play built it: the cards it was dealt and
    drew from the stock, unseen by this seat, dealt at random, and the cards it took from the
    piles; then, one card at a time, the analyser's best discard thrown until the hand has its
    size. A hand a player kept the best of is far closer to melded than a random one."""
    pool = pool_of(sight)
    known = list(sight.taken[seat])
    size = sight.hand_counts[seat]
    seen_by_it = max(size - len(known), 0) + sight.stock_draws[seat]
    held = Counter(known)
    hands = []
    for _ in range(count):
        hand = tuple(sorted(known + rng.sample(pool, min(seen_by_it, len(pool)))))
        while len(hand) > size:
            card, _ = best_discard(hand, sight.wild, sight.rules)
            if hand.count(card) <= held[card]:  # it was seen to take that one: it keeps it
                ranked = ranked_discards(hand, sight.wild, sight.rules)
                card = next(c for c, _ in ranked if hand.count(c) > held[c])
            hand = without(hand, card)
        hands.append(hand)
    return hands


def pool_of(sight: Sight) -> list[Card]:
    """Every hidden copy: the unseen cards, and after a reshuffle the stock's known ones."""
    if sight.stock_known:
        return _cards(sight.stock) + _cards(sight.unseen)
    return _cards(sight.unseen)


def _cards(copies: Copies) -> list[Card]:
    return [c for c, n in copies for _ in range(n)]


def seat_likelihood(sight: Sight, seat: int, hand: tuple[Card, ...]) -> float:
    """How well ``hand`` explains ``seat``'s play: one factor per observation."""
    weight = 1.0
    wild = sight.wild
    for card in sight.taken[seat]:
        if card in hand and not _meets(card, _less(hand, card), wild):
            weight *= TOOK_ALONE
    for card in sight.discarded[seat][-RECENT:]:
        if _melds(card, hand, wild):
            weight *= THREW_A_MELD
    for card in sight.declined[seat][-RECENT:]:
        if _melds(card, hand, wild):
            weight *= PASSED_A_MELD
    return weight


def _less(hand: Sequence[Card], card: Card) -> list[Card]:
    rest = list(hand)
    rest.remove(card)
    return rest


def _meets(card: Card, hand: Iterable[Card], wild: Rank) -> bool:
    """Whether ``card`` could meld with anything in ``hand``: it is wild, or the hand holds a
    wild, a natural of its rank, or one of its suit within two ranks."""
    if is_wild(card, wild):
        return True
    for other in hand:
        if is_wild(other, wild):
            return True
        if other % 13 == card % 13 or (
            other // 13 == card // 13 and abs(other % KING - card % KING) <= RUN_REACH
        ):
            return True
    return False


def _melds(card: Card, hand: Sequence[Card], wild: Rank) -> bool:
    """Whether ``card`` makes a three-card meld with two naturals of ``hand``, or with one and
    a wild (a wild itself is always wanted, so throwing one tells nothing)."""
    if is_wild(card, wild):
        return False
    wilds = sum(1 for c in hand if is_wild(c, wild))
    naturals = {c for c in hand if not is_wild(c, wild)}
    same_rank = sum(1 for c in hand if c % 13 == card % 13 and not is_wild(c, wild))
    suit, rank = card // 13, card % KING
    near = {
        r
        for r in range(rank - RUN_REACH, rank + RUN_REACH + 1)
        if 0 <= r < KING and suit * 13 + r in naturals
    }
    if same_rank >= SET_PARTNERS or any(
        rank + a in near and rank + b in near for a, b in _RUN_PAIRS
    ):
        return True
    return wilds > 0 and (same_rank >= 1 or bool(near - {rank}))


_RUN_PAIRS: Final = ((-2, -1), (-1, 1), (1, 2))
"""The two other ranks of each three-card run a card sits in."""

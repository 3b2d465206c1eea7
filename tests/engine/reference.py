"""A slow, obviously correct reference for hand analysis.

It checks meld validity by trying every window a run could occupy and every way an ace could play,
then finds the least deadwood over every partition of the hand into valid melds (a memoised
search over bitmasks of card positions). Nothing in it is shared with the engine's analyser.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engine.cards import JOKER, Card
from engine.rules import Rules


def is_wild(c: Card, wild: int | None) -> bool:
    return c == JOKER or (wild is not None and c % 13 + 1 == wild)


def is_valid_meld(cards: Sequence[Card], wild: int | None, rules: Rules) -> bool:
    if len(cards) < 3:
        return False
    wilds = [c for c in cards if is_wild(c, wild)]
    naturals = [c for c in cards if not is_wild(c, wild)]
    if rules.max_wilds_per_meld is not None and len(wilds) > rules.max_wilds_per_meld:
        return False
    if not naturals:
        return rules.all_wild_melds
    if len({c % 13 for c in naturals}) == 1:
        return True  # a set: one rank, any suits, repeats allowed
    if len({c // 13 for c in naturals}) != 1:
        return False
    return _fits_a_run([c % 13 + 1 for c in naturals], len(cards), rules)


def _fits_a_run(ranks: list[int], length: int, rules: Rules) -> bool:
    """Whether naturals of these ranks, plus wilds, make a run of ``length`` cards."""
    # Every way to read each ace: low (1), or also high (14) with high_or_low.
    readings: list[list[int]] = [[]]
    for rank in ranks:
        options = [1, 14] if rank == 1 and rules.aces == "high_or_low" else [rank]
        readings = [[*reading, option] for reading in readings for option in options]
    top = 14 if rules.aces == "high_or_low" else 13
    for reading in readings:
        if len(set(reading)) != len(reading):
            continue  # two naturals on one position
        for start in range(rules.low_rank, top - length + 2):
            window = range(start, start + length)
            if 1 in window and 14 in window:
                continue  # an ace plays low or high, never both
            if all(position in window for position in reading):
                return True
    return False


def points(c: Card, wild: int | None, rules: Rules) -> int:
    return rules.points(c, wild)


def reference_min_deadwood(hand: Sequence[Card], wild: int | None, rules: Rules) -> int:
    """The least deadwood over every partition of ``hand`` into valid melds and deadwood."""
    cards = sorted(hand)
    n = len(cards)
    melds_with: list[list[int]] = [[] for _ in range(n)]
    for mask in range(1, 1 << n):
        if mask.bit_count() < 3:
            continue
        chosen = [cards[i] for i in range(n) if mask >> i & 1]
        if is_valid_meld(chosen, wild, rules):
            lowest = (mask & -mask).bit_length() - 1
            melds_with[lowest].append(mask)

    @cache
    def best(mask: int) -> int:
        if mask == 0:
            return 0
        lowest = (mask & -mask).bit_length() - 1
        result = points(cards[lowest], wild, rules) + best(mask & ~(1 << lowest))
        for meld in melds_with[lowest]:
            if meld & mask == meld:
                result = min(result, best(mask & ~meld))
        return result

    return best((1 << n) - 1)

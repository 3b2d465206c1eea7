"""A slow, obviously correct reference for hand analysis.

It checks meld validity by trying every window a run could occupy, every way an ace could play
and every way the wild-rank cards could play (as wilds, or as the natural cards they are, which
count towards no limit on wilds), then finds the least deadwood over every partition of the hand
into valid melds (a memoised search over bitmasks of card positions). Nothing in it is shared
with the engine's analyser.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

from engine.cards import JOKER, Card
from engine.rules import Rules


def is_wild(c: Card, wild: int | None) -> bool:
    return c == JOKER or (wild is not None and c % 13 + 1 == wild)


def is_valid_meld(
    cards: Sequence[Card], wild: int | None, rules: Rules, *, either_role: bool = True
) -> bool:
    """Whether ``cards`` make one meld, each wild-rank card playing as a wild or as itself (or,
    not ``either_role``, as a wild alone: what the engine's search of one split of a hand into
    naturals and wilds finds, where the split holds every wild-rank card among its wilds)."""
    if len(cards) < 3:
        return False
    always = [c for c in cards if c == JOKER]
    either = [c for c in cards if c != JOKER and is_wild(c, wild)]
    plain = [c for c in cards if not is_wild(c, wild)]
    for count in range(len(either) + 1 if either_role else 1):
        for natural in combinations(range(len(either)), count):
            naturals = plain + [either[i] for i in natural]
            wilds = always + [either[i] for i in range(len(either)) if i not in natural]
            if is_valid_reading(naturals, wilds, rules):
                return True
    return False


def is_valid_reading(naturals: Sequence[Card], wilds: Sequence[Card], rules: Rules) -> bool:
    """Whether these naturals and wilds make one meld."""
    cards = [*naturals, *wilds]
    if len(cards) < 3:
        return False
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


def reference_min_deadwood(
    hand: Sequence[Card], wild: int | None, rules: Rules, *, either_role: bool = True
) -> int:
    """The least deadwood over every partition of ``hand`` into valid melds and deadwood
    (``either_role``: see is_valid_meld)."""
    cards = sorted(hand)
    n = len(cards)
    melds_with: list[list[int]] = [[] for _ in range(n)]
    for mask in range(1, 1 << n):
        if mask.bit_count() < 3:
            continue
        chosen = [cards[i] for i in range(n) if mask >> i & 1]
        if is_valid_meld(chosen, wild, rules, either_role=either_role):
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


def is_laid_out_meld(
    kind: str,
    cards: Sequence[Card],
    stands_for: Sequence[Card | None],
    wild: int | None,
    rules: Rules,
) -> bool:
    """Whether a meld as the engine lays it out says what it is: each card that stands for None
    plays as itself (never a joker), each other card is a wild, the naturals and wilds so read
    make a meld, and the cards played (a wild as what it stands for) are one rank for a set and
    consecutive ranks of one suit, low to high, for a run."""
    if len(cards) != len(stands_for):
        return False
    naturals = [c for c, s in zip(cards, stands_for, strict=True) if s is None]
    wilds = [c for c, s in zip(cards, stands_for, strict=True) if s is not None]
    if JOKER in naturals or not all(is_wild(c, wild) for c in wilds):
        return False
    if not is_valid_reading(naturals, wilds, rules):
        return False
    played = [c if s is None else s for c, s in zip(cards, stands_for, strict=True)]
    if kind == "set":
        return len({c % 13 for c in played}) == 1
    positions = [c % 13 + 1 for c in played]
    if len(positions) > 1 and positions[-1] == 1:
        positions[-1] = 14  # an ace played high closes the run
    return len({c // 13 for c in played}) == 1 and positions == list(
        range(positions[0], positions[0] + len(positions))
    )

"""Melding in the game: go-out checks, the best arrangement of a hand for scoring, and the layout
of a meld a card is laid off on (redemption) — what the game asks of the analyser.

Go-out checks call ``engine.analysis.min_deadwood``, after a cheap bound (``may_meld``) has
ruled out the many hands that cannot be melded; scoring calls ``engine.analysis.arrange``, the
best arrangement without the ranking of every discard that ``analyse`` adds.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from engine.analysis import Meld, analyse, min_deadwood
from engine.analysis import arrange as best_arrangement
from engine.analysis.arrangement import AS_IS, set_stands
from engine.analysis.hand import is_wild
from engine.cards import JOKER, Card, Rank, card
from engine.rules import Rules

SHARE_UNIT: Final = 360360
"""One wild card in ``may_meld``'s shares: the least common multiple of 1 to 15, so a meld's wilds
split evenly among its naturals (at most 14 run positions) is always a whole number."""
NO_MELD: Final = 64 * SHARE_UNIT
"""The share of a natural that fits no meld with the hand's wilds: more than any hand holds."""


@lru_cache(maxsize=4096)
def deadwood_points(hand: tuple[Card, ...], wild: Rank | None, rules: Rules) -> int:
    """The least deadwood of ``hand`` (sorted), memoised: legal_actions and apply ask the same."""
    if not hand:
        return 0
    return min_deadwood(hand, wild, rules)


def arrange(
    hand: tuple[Card, ...], wild: Rank | None, rules: Rules
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """The best arrangement of ``hand``: melds, deadwood cards, deadwood points."""
    if not hand:
        return (), (), 0
    return best_arrangement(hand, wild, rules)


def going_out_discards(hand: tuple[Card, ...], wild: Rank | None, rules: Rules) -> tuple[Card, ...]:
    """The distinct cards whose discard leaves ``hand`` (sorted, just drawn) fully melded."""
    # Most hands are far from melded: rule them out before any search. The rest take one
    # analysis, which ranks every discard in one search (a view's legal moves ask this).
    if not may_meld(hand, wild, rules, but_one=True):
        return ()
    ranked = analyse(hand, wild, rules).discards
    out = {d.card for d in ranked if d.deadwood_points == 0}
    return tuple(c for c in dict.fromkeys(hand) if c in out)  # sorted, as the hand is


def may_meld(
    hand: tuple[Card, ...], wild: Rank | None, rules: Rules, *, but_one: bool = False
) -> bool:
    """False only for a hand that cannot be fully melded, ``but_one``: not even once any one of
    its cards is discarded. A cheap bound on the wilds a full melding needs, in two steps.

    Split each meld's wilds evenly among its naturals. A natural's share is then at least the
    least over every meld it could sit in: a set of its rank with every natural of that rank
    (no share with three or more), or a run of its suit from one natural to another around it,
    counted with every natural in between. Each meld's wilds fill the gaps between its
    naturals and make it three long, and more naturals only lower the share, so the real share
    is never below that least one. A full melding needs at least the sum of the least shares
    in wilds. Discarding a card takes its share away and never lowers the others'.

    The first step counts only the naturals with no other natural of their suit near enough
    for the wilds to bridge: alone of its rank, such a card needs two wilds to itself; one of
    two, half a wild. Most hands are ruled out there; the rest get every natural's least share.
    """
    bits = _POSITION_BITS[wild or 0]
    present = twins = ranks = ranks_twice = ranks_thrice = wilds = 0
    for c in hand:
        bit = bits[c]
        if not bit:
            wilds += 1
            continue
        if present & bit:
            twins |= bit
        present |= bit
        rank = _RANK_BITS[c]
        if ranks & rank:
            if ranks_twice & rank:
                ranks_thrice |= rank
            else:
                ranks_twice |= rank
        else:
            ranks |= rank
    # Ranks with three naturals or more make sets with no wild: their cards carry no share.
    singles = ranks & ~ranks_twice
    pairs = ranks_twice & ~ranks_thrice
    if not singles | pairs:
        return True
    ace_high = rules.aces == "high_or_low"
    shares = _Shares(present, twins, singles, pairs, wilds, ace_high, but_one)
    return shares.isolated() <= wilds * SHARE_UNIT and shares.least() <= wilds * SHARE_UNIT


class _Shares:
    """may_meld's two steps over a hand's naturals (their run positions, 16 bits a suit)."""

    def __init__(  # noqa: PLR0913, PLR0917 - the hand's masks, as may_meld reads them
        self,
        present: int,
        twins: int,
        singles: int,
        pairs: int,
        wilds: int,
        ace_high: bool,
        but_one: bool,
    ) -> None:
        self.present, self.twins, self.singles, self.pairs = present, twins, singles, pairs
        self.wilds, self.ace_high, self.but_one = wilds, ace_high, but_one
        self.alone = 2 * SHARE_UNIT if wilds >= 2 else NO_MELD  # a set of the rank's only natural
        self.paired = SHARE_UNIT // 2 if wilds else NO_MELD  # a set of both naturals of the rank

    def isolated(self) -> int:
        """Step one, every suit at once: the shares of the naturals with no other natural of
        their suit near enough for the wilds to bridge. (A shift that crosses into the next
        suit only finds a partner too many, which keeps the bound a bound.)"""
        present, wilds = self.present, self.wilds
        reach = present | (present & _ACES) << 13 if self.ace_high else present
        near = reach << 1 | reach >> 1
        for distance in range(2, wilds + 2 if wilds < 13 else 15):
            near |= reach << distance | reach >> distance
        if self.ace_high:
            near |= near >> 13 & _ACES  # an ace has a partner if it has one low or high
        isolated = present & ~near
        alone_count = (isolated & self.singles * _LANES).bit_count()
        isolated_pairs = isolated & self.pairs * _LANES
        paired_count = isolated_pairs.bit_count() + (isolated_pairs & self.twins).bit_count()
        least = alone_count * self.alone + paired_count * self.paired
        if self.but_one:
            least -= self.alone if alone_count else self.paired if paired_count else 0
        return least

    def least(self) -> int:
        """Step two: every natural's least share."""
        wilds_key = (self.wilds if self.wilds < 15 else 15) << 16  # no meld needs more
        alone, paired = self.alone, self.paired
        total = most = 0
        for shift in _SUIT_SHIFTS:
            positions = self.present >> shift & 0xFFFF
            lone = positions & self.singles
            two = positions & self.pairs
            if not lone | two:
                continue
            doubled = self.twins >> shift & two
            # Shares depend only on the distances between positions: memoise them from the lowest.
            low = (positions & -positions).bit_length() - 1
            lone >>= low
            two >>= low
            doubled >>= low
            if self.ace_high and positions & 2:  # an ace is also the highest position, 14
                key = (positions | 1 << 14) >> low | _ACE_AT_BOTH_ENDS | wilds_key
            else:
                key = positions >> low | wilds_key
            for run, group in _run_shares(key):
                # Conditional expressions, not min() and max(): this loop is the bound's hot spot.
                if group & lone:
                    share = run if run < alone else alone
                    total += (group & lone).bit_count() * share
                    most = share if share > most else most
                if group & two:
                    share = run if run < paired else paired
                    total += ((group & two).bit_count() + (group & doubled).bit_count()) * share
                    most = share if share > most else most
        return total - (most if self.but_one else 0)


_SUIT_SHIFTS: Final = (0, 16, 32, 48, 64)
_LANES: Final = sum(1 << shift for shift in _SUIT_SHIFTS)
_ACES: Final = _LANES << 1
_POSITION_BITS: Final = tuple(
    # By the wild rank (0: none), each card's run position in its suit's 16 bits, 0 for a wild.
    tuple(
        0 if c == JOKER or c % 13 + 1 == wild else 1 << (c // 13 * 16 + c % 13 + 1)
        for c in range(JOKER + 1)
    )
    for wild in range(14)
)
_RANK_BITS: Final = tuple(1 << (c % 13 + 1) for c in range(JOKER + 1))
_ACE_AT_BOTH_ENDS: Final = 1 << 15


@lru_cache(maxsize=1 << 14)
def _run_shares(key: int) -> tuple[tuple[int, int], ...]:
    """The least share of wilds a natural pays in a run of its suit, grouped: (share, the
    naturals that pay it). ``key``: the suit's run positions in its low 15 bits, shifted down to
    start at bit 0; ``_ACE_AT_BOTH_ENDS`` when the lowest and the highest are one ace; the
    hand's wilds above."""
    wilds = key >> 16
    positions = []
    rest = key & 0x7FFF
    while rest:
        lowest = rest & -rest
        positions.append(lowest.bit_length() - 1)
        rest ^= lowest
    shares = [NO_MELD] * len(positions)
    for low, start in enumerate(positions):
        for high in range(low, len(positions)):
            span = positions[high] - start + 1
            present = high - low + 1
            if span - present > wilds:
                break  # the gaps only grow from here
            needed = span - present + (3 - span if span < 3 else 0)
            if needed <= wilds:
                share = needed * SHARE_UNIT // present
                for i in range(low, high + 1):
                    if share < shares[i]:  # noqa: PLR1730 (a call to min() costs more)
                        shares[i] = share
    if key & _ACE_AT_BOTH_ENDS:  # an ace plays low or high
        positions.pop()
        shares[0] = min(shares[0], shares.pop())
    groups: dict[int, int] = {}
    for p, share in zip(positions, shares, strict=True):
        groups[share] = groups.get(share, 0) | 1 << p
    return tuple(groups.items())


def without(hand: tuple[Card, ...], c: Card) -> tuple[Card, ...]:
    """``hand`` less one copy of ``c`` (which it holds)."""
    i = hand.index(c)
    return hand[:i] + hand[i + 1 :]


def lay_out_meld(cards: tuple[Card, ...], wild: Rank | None, rules: Rules) -> Meld | None:
    """``cards`` laid out as one meld (a set or a run, wilds assigned), or None if they are not
    one meld. Used when a card is laid off on a meld on the table. A card of the wild rank may
    play as itself, counting as no wild (see _readings); it then stands for None."""
    if len(cards) < 3:
        return None
    for naturals, wilds in _readings(cards, wild):
        meld = _lay_out_reading(naturals, wilds, wild, rules)
        if meld is not None:
            return meld
    return None


def _readings(cards: tuple[Card, ...], wild: Rank | None) -> list[tuple[list[Card], list[Card]]]:
    """The ways worth trying to read ``cards`` as naturals and wilds, the fewest wilds first.

    Jokers are always wild. Wild-rank cards alone (with jokers) are a set of the wild rank, every
    one of them natural. Otherwise the other naturals fix the meld: a set of another rank, where
    every wild-rank card is a wild, or a run of one suit, where one wild-rank card of that suit
    at most plays as itself (a run holds one card of each rank, and an ace plays low or high)."""
    wilds = [c for c in cards if is_wild(c, wild)]
    naturals = sorted(c for c in cards if not is_wild(c, wild))
    own = sorted(c for c in wilds if c != JOKER)
    if own and not naturals:
        return [(own, [c for c in wilds if c == JOKER])]
    readings = []
    if naturals and all(c // 13 == naturals[0] // 13 for c in naturals):
        for c in dict.fromkeys(own):
            if c // 13 == naturals[0] // 13:
                rest = list(wilds)
                rest.remove(c)
                readings.append((sorted([*naturals, c]), rest))
    readings.append((naturals, wilds))
    return readings


def _lay_out_reading(
    naturals: list[Card], wilds: list[Card], wild: Rank | None, rules: Rules
) -> Meld | None:
    """``naturals`` (sorted) and ``wilds`` laid out as one meld, or None if they are not one."""
    if rules.max_wilds_per_meld is not None and len(wilds) > rules.max_wilds_per_meld:
        return None
    if not naturals:
        if not rules.all_wild_melds:
            return None
        rank = wild if wild is not None else 13
        return Meld("set", tuple(wilds), tuple(set_stands(rank - 1, (), wilds, AS_IS, rules.suits)))
    if len({c % 13 for c in naturals}) == 1:
        stands = set_stands(naturals[0] % 13, naturals, wilds, AS_IS, rules.suits)
        return Meld("set", (*naturals, *wilds), (*[None] * len(naturals), *stands))
    return _lay_out_run(naturals, wilds, rules)


def _lay_out_run(naturals: list[Card], wilds: list[Card], rules: Rules) -> Meld | None:
    suit = naturals[0] // 13
    if any(c // 13 != suit for c in naturals):
        return None
    ranks = [c % 13 + 1 for c in naturals]
    if len(set(ranks)) != len(ranks):
        return None
    readings = [ranks]
    if 1 in ranks and rules.aces == "high_or_low":
        readings.append([14 if r == 1 else r for r in ranks])
    length = len(naturals) + len(wilds)
    if length > rules.max_run_length:
        return None  # an ace plays low or high, never both: no run wraps or spans 14 ranks
    for positions in readings:
        top = 14 if 14 in positions or (rules.aces == "high_or_low" and 1 not in positions) else 13
        bottom = 2 if 14 in positions else rules.low_rank
        lo, hi = min(positions), max(positions)
        if hi - lo + 1 > length:
            continue
        # Fill the gaps, then extend upwards, then downwards.
        start = max(bottom, min(lo, top - length + 1))
        if start + length - 1 > top or start > lo:
            continue
        at = dict(zip(positions, naturals, strict=True))
        spare = iter(wilds)
        cards: list[Card] = []
        stands: list[Card | None] = []
        for position in range(start, start + length):
            if position in at:
                cards.append(at[position])
                stands.append(None)
            else:
                cards.append(next(spare))
                stands.append(card((position - 1) % 13 + 1, suit))
        return Meld("run", tuple(cards), tuple(stands))
    return None

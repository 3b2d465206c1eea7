"""What the game asks of the analyser: go-out checks, the best arrangement of a hand, and
whether a card can be laid off on a meld on the table (redemption).

Go-out checks call ``engine.analysis.min_deadwood``, after a cheap bound (``wild_shares``) has
ruled out the many hands that cannot be melded; scoring calls ``engine.analysis.arrange``, the
best arrangement without the ranking of every discard that ``analyse`` adds.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from engine.analysis import Meld, min_deadwood
from engine.analysis import arrange as best_arrangement
from engine.cards import JOKER, Card, Rank, card
from engine.rules import Rules

SHARE_UNIT: Final = 360360
"""One wild card in ``wild_shares``: the least common multiple of 1 to 15, so a meld's wilds
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
    total, shares, wilds = wild_shares(hand, wild, rules)
    budget = wilds * SHARE_UNIT
    # Most hands are far from melded: rule them out before any search (see wild_shares).
    # Discarding a card takes its share away and leaves the others' shares at least as large.
    if total - max(shares.values(), default=0) > budget:
        return ()
    found = []
    for c in sorted(set(hand)):
        share = shares.get(c)
        if (total > budget - SHARE_UNIT) if share is None else (total - share > budget):
            continue
        rest = without(hand, c)
        if may_meld(rest, wild, rules) and deadwood_points(rest, wild, rules) == 0:
            found.append(c)
    return tuple(found)


def may_meld(hand: tuple[Card, ...], wild: Rank | None, rules: Rules) -> bool:
    """False only for a hand that cannot be fully melded (see ``wild_shares``)."""
    total, _, wilds = wild_shares(hand, wild, rules)
    return total <= wilds * SHARE_UNIT


def wild_shares(
    hand: tuple[Card, ...], wild: Rank | None, rules: Rules
) -> tuple[int, dict[Card, int], int]:
    """A lower bound on the wild cards a full melding of ``hand`` needs, in ``SHARE_UNIT``\\ s:
    the bound, each natural's least share of it, and the hand's wild cards.

    Split each meld's wilds evenly among its naturals. A natural's share is then at least the
    least over every meld it could sit in: a set of its rank with every natural of that rank
    (no share with three or more), or a run of its suit from one natural to another around it,
    counted with every natural in between. Each meld's wilds fill the gaps between its
    naturals and make it three long, and more naturals only lower the share, so the real share
    is never below that least one. A full melding therefore needs at least the sum of the
    least shares in wilds, and a hand with fewer is not worth a search. Removing a card never
    lowers the others' least shares.
    """
    ace_high = rules.aces == "high_or_low"
    by_rank = [0] * 14
    masks = [0] * 5
    naturals = []
    wilds = 0
    for c in hand:
        rank = c % 13 + 1
        if c == JOKER or rank == wild:
            wilds += 1
            continue
        naturals.append(c)
        by_rank[rank] += 1
        masks[c // 13] |= 1 << rank
        if ace_high and rank == 1:
            masks[c // 13] |= 1 << 14
    set_shares = _SET_SHARES[min(wilds, 2)]
    total = 0
    shares: dict[Card, int] = {}
    for c in naturals:
        rank = c % 13 + 1
        share = set_shares[min(by_rank[rank], 3)]
        if share:
            runs = _run_shares(masks[c // 13], wilds)
            share = min(share, runs[rank], runs[14] if rank == 1 else share)
        shares[c] = share
        total += share
    return total, shares, wilds


_SET_SHARES: Final = (
    # By the hand's wilds (0, 1, 2 or more), then the naturals of the rank (0 unused, 1, 2, 3+).
    (NO_MELD, NO_MELD, NO_MELD, 0),
    (NO_MELD, NO_MELD, SHARE_UNIT // 2, 0),
    (NO_MELD, 2 * SHARE_UNIT, SHARE_UNIT // 2, 0),
)


@lru_cache(maxsize=16384)
def _run_shares(mask: int, wilds: int) -> tuple[int, ...]:
    """For each run position (0 to 15) of a suit whose naturals sit at the bits of ``mask``, the
    least share of wilds a natural there pays in a run, with ``wilds`` wilds in the hand."""
    positions = [p for p in range(16) if mask >> p & 1]
    shares = [NO_MELD] * 16
    for low, start in enumerate(positions):
        for high in range(low, len(positions)):
            span = positions[high] - start + 1
            present = high - low + 1
            if span - present > wilds:
                break  # the gaps only grow from here
            needed = span - present + max(0, 3 - span)
            if needed > wilds:
                continue
            share = needed * SHARE_UNIT // present
            for p in positions[low : high + 1]:
                shares[p] = min(shares[p], share)
    return tuple(shares)


def without(hand: tuple[Card, ...], c: Card) -> tuple[Card, ...]:
    """``hand`` less one copy of ``c`` (which it holds)."""
    i = hand.index(c)
    return hand[:i] + hand[i + 1 :]


def is_wild(c: Card, wild: Rank | None) -> bool:
    return c == JOKER or (wild is not None and c % 13 + 1 == wild)


def lay_out_meld(cards: tuple[Card, ...], wild: Rank | None, rules: Rules) -> Meld | None:
    """``cards`` laid out as one meld (a set or a run, wilds assigned), or None if they are not
    one meld. Used when a card is laid off on a meld on the table."""
    if len(cards) < 3:
        return None
    wilds = [c for c in cards if is_wild(c, wild)]
    naturals = sorted(c for c in cards if not is_wild(c, wild))
    if rules.max_wilds_per_meld is not None and len(wilds) > rules.max_wilds_per_meld:
        return None
    if not naturals:
        if not rules.all_wild_melds:
            return None
        rank = wild if wild is not None else 13
        return Meld("set", tuple(wilds), tuple(card(rank, i % 4) for i in range(len(wilds))))
    if len({c % 13 for c in naturals}) == 1:
        rank = naturals[0] % 13 + 1
        present = {c // 13 for c in naturals}
        free = [s for s in range(rules.suits) if s not in present] or list(range(rules.suits))
        stands = [card(rank, free[i % len(free)]) for i in range(len(wilds))]
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

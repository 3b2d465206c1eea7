"""What the game asks of the analyser: go-out checks, the best arrangement of a hand, and
whether a card can be laid off on a meld on the table (redemption).

Go-out checks call ``engine.analysis.min_deadwood``; scoring calls ``engine.analysis.arrange``,
the best arrangement without the ranking of every discard that ``analyse`` adds.
"""

from __future__ import annotations

from functools import lru_cache

from engine.analysis import Meld, min_deadwood
from engine.analysis import arrange as best_arrangement
from engine.cards import JOKER, Card, Rank, card
from engine.rules import Rules


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
    lonely, paired, wilds = meld_partners(hand, wild, rules)
    # Most hands are far from melded: rule them out before any search (see meld_partners).
    if not _may_meld(len(lonely) - 1, len(paired) - 1, len(wilds)):
        return ()
    whole = deadwood_points(hand, wild, rules)
    found = []
    for c in sorted(set(hand)):
        left_lonely = len(lonely) - (c in lonely)
        left_paired = len(paired) - (c in paired)
        if not _may_meld(left_lonely, left_paired, len(wilds) - (c in wilds)):
            continue
        # Discarding c leaves a melded hand only if the whole hand can be arranged with c as
        # its only deadwood.
        if rules.points(c, wild) < whole:
            continue
        if deadwood_points(without(hand, c), wild, rules) == 0:
            found.append(c)
    return tuple(found)


def _may_meld(lonely: int, paired: int, wilds: int) -> bool:
    """Whether a hand with this many naturals without a partner and with one partner could be
    fully melded with ``wilds`` wild cards: each of the first needs two wilds in its meld, and
    each meld holding one of the second needs one, for at most two of them."""
    return 2 * max(lonely, 0) + (max(paired, 0) + 1) // 2 <= wilds


def meld_partners(
    hand: tuple[Card, ...], wild: Rank | None, rules: Rules
) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
    """The naturals of ``hand`` with no possible meld partner, those with exactly one, and the
    hand's wild cards.

    Two naturals are partners if they could sit in one meld: the same rank (a set), or the same
    suit with few enough ranks missing between them for the hand's wilds to fill (a run).
    Every other natural in a meld holding ``c`` is a partner of ``c``, so removing cards never
    gives the rest more partners: the counts only bound the wilds a full melding needs.
    """
    ace_high = rules.aces == "high_or_low"
    wilds: list[Card] = []
    naturals: list[Card] = []
    by_rank = [0] * 13
    # How many naturals sit at each run position of each suit: suit * 16 + position (1-14, an
    # ace also at 14 when it may play high; 0 and 15 stay empty and stop the walks below).
    at = [0] * 80
    for c in hand:
        rank = c % 13
        if c == JOKER or rank + 1 == wild:
            wilds.append(c)
            continue
        naturals.append(c)
        by_rank[rank] += 1
        at[c // 13 * 16 + rank + 1] += 1
        if ace_high and rank == 0:
            at[c // 13 * 16 + 14] += 1
    spare = len(wilds)
    lonely: list[Card] = []
    paired: list[Card] = []
    for c in naturals:
        partners = by_rank[c % 13] - 1
        if partners > 1:
            continue
        base = c // 13 * 16
        start = c % 13 + 1
        # Walk away from the card either way; each rank missing on the way needs a wild.
        # Counting a partner twice (an ace low and high) only weakens the bound.
        for position in (start, 14) if ace_high and start == 1 else (start,):
            for step in (1, -1):
                missing = 0
                p = base + position + step
                while missing <= spare and partners < 2:
                    here = at[p]
                    if here:
                        partners += here
                    elif p == base or p == base + 15:
                        break
                    else:
                        missing += 1
                    p += step
        if partners == 0:
            lonely.append(c)
        elif partners == 1:
            paired.append(c)
    return tuple(lonely), tuple(paired), tuple(wilds)


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

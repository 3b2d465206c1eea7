"""What the game asks of the analyser: go-out checks, the best arrangement of a hand, and
whether a card can be laid off on a meld on the table (redemption).

Go-out checks call ``engine.analysis.min_deadwood``. Scoring needs the best arrangement but not
the ranking of every discard that ``analyse`` also computes (a dozen extra searches on a
13-card hand), so it asks the analyser's exact search for the arrangement alone.
"""

from __future__ import annotations

from functools import lru_cache

from engine.analysis import Meld, _Search, _split, min_deadwood
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
    naturals, wilds = _split(hand, wild)
    melds, deadwood = _Search(rules, wild, wilds).arrange(naturals)
    points = sum(rules.points(c, wild) for c in deadwood)
    return tuple(melds), tuple(deadwood), points


def going_out_discards(hand: tuple[Card, ...], wild: Rank | None, rules: Rules) -> tuple[Card, ...]:
    """The distinct cards whose discard leaves ``hand`` (sorted, just drawn) fully melded."""
    whole = deadwood_points(hand, wild, rules)
    found = []
    for c in sorted(set(hand)):
        # Discarding c leaves a melded hand only if the whole hand can be arranged with c as
        # its only deadwood: a cheap filter before searching the rest.
        if rules.points(c, wild) < whole:
            continue
        if deadwood_points(without(hand, c), wild, rules) == 0:
            found.append(c)
    return tuple(found)


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
        return Meld(
            "set",
            (*naturals, *wilds),
            (*[None] * len(naturals), *(card(rank, naturals[0] // 13) for _ in wilds)),
        )
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

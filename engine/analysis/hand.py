"""Reading a hand: card codes or ints checked against the rules' pack and the wild rank; natural
cards and wilds told apart; and a hand with no wild settled from bit masks where it can be.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import Final

from engine.analysis.formats import ACE_HIGH_AT, ACE_LOW, ACE_TO_HIGH, MAX_HAND, UNLIMITED
from engine.cards import JOKER, KING, Card, Rank, card, format_card, parse_cards, parse_rank
from engine.errors import HandError
from engine.rules import Rules, RulesSpec


def read_hand(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec
) -> tuple[list[Card], Rank | None, Rules]:
    rules_value = rules if isinstance(rules, Rules) else Rules.from_spec(rules)
    hand = card_ints(cards)
    if not 1 <= len(hand) <= MAX_HAND:
        raise HandError(f"a hand holds 1 to {MAX_HAND} cards, not {len(hand)}")
    if not rules_value.pack_cards.issuperset(hand):
        stranger = next(c for c in hand if c not in rules_value.pack_cards)
        raise HandError(f"{format_card(stranger)} is not in the {rules_value.preset} pack")
    wild_rank = parse_rank(wild) if isinstance(wild, str) else wild
    if wild_rank is not None and not rules_value.low_rank <= wild_rank <= KING:
        raise HandError(f"wild rank {wild_rank} is not a rank of the {rules_value.preset} pack")
    return hand, wild_rank, rules_value


def card_ints(cards: Iterable[Card | str]) -> list[Card]:
    """The hand as card ints: a list of card ints as it is (copied), the rest by parse_cards."""
    if type(cards) is list:
        for c in cards:
            if type(c) is not int or not 0 <= c <= JOKER:
                break
        else:
            return list(cards)
    return parse_cards(cards)


# The wild cards of each wild rank (index 0: no wild rank, jokers only).
WILD_CARDS: Final = (
    frozenset({JOKER}),
    *(frozenset({JOKER, *(card(rank, s) for s in range(5))}) for rank in range(1, 14)),
)


def is_wild(c: Card, wild: Rank | None) -> bool:
    """Whether ``c`` is wild in a round of wild rank ``wild``: a joker, or a card of that rank
    (which may also play as itself: see roles)."""
    return c == JOKER or (wild is not None and c % 13 + 1 == wild)


def split_wilds(hand: list[Card], wild: Rank | None) -> tuple[list[Card], list[Card]]:
    """The naturals and the wilds (see is_wild), in hand order."""
    naturals: list[Card] = []
    wilds: list[Card] = []
    for c in hand:
        if is_wild(c, wild):
            wilds.append(c)
        else:
            naturals.append(c)
    return naturals, wilds


def without_wilds(naturals: list[Card], points: tuple[int, ...], ace_high: bool) -> int | None:
    """The least deadwood of distinct naturals with no wild in the hand, from bit masks alone.

    With no wilds and no repeated card, a card in no possible meld is deadwood and the rest sort
    themselves out: every rank with three cards is a set and every stretch of three or more
    consecutive ranks of a suit is a run. Only a card that could go either way (a "conflict")
    needs a choice: try both sides for each. Returns None for a hand this cannot decide (an ace
    that could close a low and a high run, or many conflicts); the search takes those.
    """
    suits = [0] * 5
    by_rank = [0] * 15
    for c in naturals:
        rank = c % 13 + 1
        suits[c // 13] |= 1 << rank
        by_rank[rank] += 1

    penalty, conflicts = gin_deadwood(naturals, points, ace_high, suits, by_rank)
    if penalty < 0 or len(conflicts) > 6:
        return None
    if not conflicts:
        return penalty
    best = UNLIMITED
    for sides in product((0, 1), repeat=len(conflicts)):
        run_masks, set_counts = list(suits), list(by_rank)
        for c, to_run in zip(conflicts, sides, strict=True):
            if to_run:
                set_counts[c % 13 + 1] -= 1
            else:
                run_masks[c // 13] &= ~(1 << (c % 13 + 1))
        result, _ = gin_deadwood(naturals, points, ace_high, run_masks, set_counts)
        if result < 0:
            return None
        best = min(best, result)
    return best


def gin_deadwood(
    naturals: list[Card],
    points: tuple[int, ...],
    ace_high: bool,
    run_masks: list[int],
    set_counts: list[int],
) -> tuple[int, list[Card]]:
    """without_wilds' penalty of the cards in no meld, and the cards that could go either way
    (-1 for a hand with an ace that could close a low and a high run)."""
    penalty, conflicts = 0, []
    live_runs = []
    for mask in run_masks:
        reach = mask | (mask & ACE_LOW) << ACE_TO_HIGH if ace_high else mask
        starts = reach & (reach >> 1) & (reach >> 2)
        live = starts | (starts << 1) | (starts << 2)
        if live >> ACE_HIGH_AT:
            if live & ACE_LOW:
                return -1, []  # one ace could close a low and a high run: search
            live |= ACE_LOW
        live_runs.append(live)
    for c in naturals:
        rank = c % 13 + 1
        in_run = live_runs[c // 13] >> rank & 1
        in_set = set_counts[rank] >= 3
        if in_run and in_set:
            conflicts.append(c)
        elif not in_run and not in_set:
            penalty += points[c]
    return penalty, conflicts

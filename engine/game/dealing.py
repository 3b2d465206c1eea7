"""Given deals: rounds dealt from hands, an upcard and a stock the caller chose.

A deal is turned into the pack the engine would have shuffled to deal it (``pack_of``): the
game's dealing then takes that pack instead of a shuffle, and records it like any shuffle, so a
game of given deals replays, stores and shows exactly like another. Cards of the pack the deal
leaves out (a stock given in part, or not at all) are shuffled under the stock it gives.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.cards import JOKER, Card, format_card
from engine.errors import DealError
from engine.rules import Rules

GivenPacks = tuple[tuple[int, tuple[Card, ...]], ...]
"""The pack of each given round, as (round, pack), by round: what a game keeps."""


@dataclass(frozen=True, slots=True)
class Deal:
    """One round's deal: each seat's hand (seat by seat), the card turned up, and the top of
    the stock, its first card drawn first (the rest of the pack is shuffled under it)."""

    hands: tuple[tuple[Card, ...], ...]
    upcard: Card
    stock: tuple[Card, ...] = ()


def pack_of(
    hands: Sequence[Sequence[Card]],
    upcard: Card,
    stock: Sequence[Card],
    dealer: int,
    active: Sequence[int],
) -> tuple[Card, ...]:
    """The pack whose deal by ``dealer`` to the ``active`` seats gives these hands, turns up
    ``upcard`` and leaves ``stock`` (first drawn first). The deal takes cards off the end of
    the pack: one to each seat in turn from the dealer's left, then the upcard."""
    n = len(hands)
    order = [s for s in ((dealer + k) % n for k in range(1, n + 1)) if s in active]
    size = len(hands[order[0]]) if order else 0
    dealt = [hands[seat][i] for i in range(size) for seat in order]
    return (*reversed(stock), upcard, *reversed(dealt))


def given_packs(
    rules: Rules,
    players: int,
    first_dealer: int,
    deals: Mapping[int, Deal],
    seed: int | None,
) -> GivenPacks:
    """The pack of each given round, checked against the rules and completed: the cards no
    deal names are shuffled under the given stock (from the seed, or the cryptographic
    source without one)."""
    packs = []
    for round_number in sorted(deals):
        deal = deals[round_number]
        rest = check_deal(rules, players, round_number, deal)
        if seed is None:
            secrets.SystemRandom().shuffle(rest)
        else:
            random.Random(f"three-thirteen/{seed}/given/{round_number}").shuffle(rest)
        dealer = (first_dealer + round_number - 1) % players
        stock = (*deal.stock, *rest)
        packs.append(
            (round_number, pack_of(deal.hands, deal.upcard, stock, dealer, range(players)))
        )
    return tuple(packs)


def check_deal(rules: Rules, players: int, round_number: object, deal: object) -> list[Card]:
    """The cards of the pack ``deal`` leaves out, in pack order; ``DealError`` naming the field
    at fault when the deal does not fit the rules, the players or the round."""
    if not isinstance(round_number, int) or not 1 <= round_number <= rules.rounds:
        raise DealError(
            f"round {round_number!r} is not in the schedule: rounds are 1 to {rules.rounds}",
            round=None,
            field="round",
        )

    def refuse(message: str, field: str) -> DealError:
        return DealError(f"round {round_number}: {message}", round=round_number, field=field)

    if not isinstance(deal, Deal):
        raise refuse(f"not a deal: {deal!r}", "deal")
    if len(deal.hands) != players:
        raise refuse(f"{len(deal.hands)} hands for {players} seats", "hands")
    size = rules.hand_size(round_number)
    left = Counter(rules.pack(players))
    for seat, hand in enumerate(deal.hands):
        if len(hand) != size:
            raise refuse(f"seat {seat} holds {len(hand)} cards: the round deals {size}", "hands")
        _take(left, hand, refuse, f"hands[{seat}]")
    _take(left, (deal.upcard,), refuse, "upcard")
    _take(left, deal.stock, refuse, "stock")
    return sorted(left.elements())


def _take(
    left: Counter[Card],
    cards: Sequence[Card],
    refuse: Callable[[str, str], DealError],
    field: str,
) -> None:
    """Takes ``cards`` out of what is ``left`` of the pack."""
    for c in cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= JOKER:
            raise refuse(f"not a card: {c!r}", field)
        if c not in left:
            raise refuse(f"the pack has no {format_card(c)}", field)
        if left[c] <= 0:
            raise refuse(f"{format_card(c)} more times than the pack has", field)
        left[c] -= 1

"""A finished game's deals, to deal again at another table (a duplicate match).

``deal_from`` takes each round's first deal from a whole record (or a finished game's state),
optionally moving every hand ``rotate_seats`` seats on (in a speed game, each with the upcard
turned on its seat's pile). The first dealer moves with the hands, so each hand is played in
the same place in the turn order, only by another seat. A round dealt again (double naughts)
and a tie-break round are shuffled afresh in the new game: the play there differs, and so may
the seats tied.

``shuffled_deals`` deals every round of a game not played yet from a seed, so that tables that
start together (a duplicate tournament round) play the same deals, each ``rotated`` its own
number of seats on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TypeVar

from engine.errors import DealError
from engine.game import Deal, GameState
from engine.game.dealing import laid_out
from engine.records.record import GameRecord, record_of
from engine.rules import Rules

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GivenDeals:
    """What ``new_game(players, rules, seed, first_dealer=..., deals=...)`` takes."""

    first_dealer: int
    deals: dict[int, Deal]


def deal_from(game: GameRecord | GameState, rotate_seats: int = 0) -> GivenDeals:
    """The deals of a finished game (its whole record, or its state), every hand moved
    ``rotate_seats`` seats on (seat 0's hand goes to seat ``rotate_seats``)."""
    record = record_of(game) if isinstance(game, GameState) else game
    if not record.whole:
        raise DealError(
            "the game is not finished: its deals are secret until it is",
            round=None,
            field="deal_from",
        )
    n = len(record.headers.players)
    if not isinstance(rotate_seats, int) or isinstance(rotate_seats, bool):
        raise DealError(
            f"rotate_seats must be an integer, not {rotate_seats!r}",
            round=None,
            field="rotate_seats",
        )
    shift = rotate_seats % n
    deals: dict[int, Deal] = {}
    for entry in record.rounds:
        if entry.round in deals or entry.round > record.headers.rules.rounds:
            continue
        assert entry.dealt is not None  # a whole record's rounds all have their deal
        moved = _rotated(entry.dealt.hands, shift)
        if entry.upcards:  # a round's first deal is dealt to every seat: one upcard each
            deals[entry.round] = Deal(
                moved, None, entry.dealt.stock, _rotated(entry.upcards, shift)
            )
        else:
            deals[entry.round] = Deal(moved, entry.upcard, entry.dealt.stock)
    return GivenDeals((record.headers.first_dealer + shift) % n, deals)


def shuffled_deals(rules: Rules, players: int, seed: int, first_dealer: int) -> GivenDeals:
    """Each round's deal of a new game of ``players`` seats, shuffled from ``seed`` (the whole
    stock given, so nothing is left to the table's own shuffle), ``first_dealer`` dealing the
    first round: the same deals for every table given the same seed."""
    seats = tuple(range(players))
    deals: dict[int, Deal] = {}
    for number in range(1, rules.rounds + 1):
        pack = list(rules.pack(players))
        random.Random(f"three-thirteen/{seed}/shuffled/{number}").shuffle(pack)
        dealer = (first_dealer + number - 1) % players
        layout = laid_out(rules, players, tuple(pack), number, dealer, seats)
        stock = tuple(reversed(layout.stock))  # a layout's top card is last; a deal's first
        turned = tuple(pile[0] for pile in layout.piles if pile)
        if rules.turns == "speed":
            deals[number] = Deal(layout.hands, None, stock, turned)
        else:
            deals[number] = Deal(layout.hands, turned[0], stock)
    return GivenDeals(first_dealer, deals)


def rotated(given: GivenDeals, shift: int, players: int) -> GivenDeals:
    """``given`` with every hand (and a speed deal's upcards) moved ``shift`` seats on, and the
    first dealer with them."""
    deals = {
        number: Deal(
            _rotated(deal.hands, shift),
            deal.upcard,
            deal.stock,
            _rotated(deal.upcards, shift) if deal.upcards else (),
        )
        for number, deal in given.deals.items()
    }
    return GivenDeals((given.first_dealer + shift) % players, deals)


def _rotated(by_seat: tuple[T, ...], shift: int) -> tuple[T, ...]:
    """What seat ``s`` had, moved to seat ``s + shift``."""
    n = len(by_seat)
    return tuple(by_seat[(seat - shift) % n] for seat in range(n))

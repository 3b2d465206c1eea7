"""Card codes at the edges, small ints everywhere else.

A natural card is ``suit * 13 + (rank - 1)`` with ranks 1 (ace) to 13 (king) and suits
clubs, diamonds, hearts, spades and the five-crowns stars: 0 to 64. The joker is 65.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, cast

from engine.errors import CardCodeError

Card = int
Rank = int
Suit = int

ACE: Final = 1
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
JOKER: Final[Card] = 65

SUIT_CODES: Final = "CDHSX"
RANK_CODES: Final = "A23456789TJQK"
CLUBS, DIAMONDS, HEARTS, SPADES, STARS = range(5)

_SUIT_INPUT: Final = {"C": 0, "D": 1, "H": 2, "S": 3, "X": 4}
_SUIT_SYMBOLS: Final = {"♣": 0, "♧": 0, "♦": 1, "♢": 1, "♥": 2, "♡": 2, "♠": 3, "♤": 3, "★": 4}
_RANK_INPUT: Final = {code: index + 1 for index, code in enumerate(RANK_CODES)} | {"10": 10}

_CARD_EXPECTED: Final = (
    "a rank (A 2-9 T/10 J Q K) then a suit (C D H S, X for stars, or ♣ ♦ ♥ ♠ ★), or JK for a joker"
)
_RANK_EXPECTED: Final = "a rank: A, 2-9, T or 10, J, Q or K"


def card(rank: Rank, suit: Suit) -> Card:
    """The card of ``rank`` (1-13) in ``suit`` (0-4)."""
    return suit * 13 + rank - 1


def rank_of(card: Card) -> Rank:
    """The rank 1-13 of a natural card (not of the joker)."""
    return card % 13 + 1


def suit_of(card: Card) -> Suit:
    """The suit 0-4 of a natural card (not of the joker)."""
    return card // 13


def parse_rank(code: str) -> Rank:
    """``"8"``, ``"t"``, ``"10"``, ``"K"`` → the rank 1-13."""
    if not isinstance(code, str):
        raise CardCodeError(code, _RANK_EXPECTED)
    rank = _RANK_INPUT.get(code.strip().upper())
    if rank is None:
        raise CardCodeError(code, _RANK_EXPECTED)
    return rank


def format_rank(rank: Rank) -> str:
    return RANK_CODES[rank - 1]


def parse_card(code: str) -> Card:
    """A card code such as ``"TH"``, ``"10♥"``, ``"qs"``, ``"7X"`` or ``"JK"`` → its int."""
    if not isinstance(code, str):
        raise CardCodeError(code, _CARD_EXPECTED)
    text = code.strip().upper()
    if text == "JK":
        return JOKER
    if len(text) < 2:
        raise CardCodeError(code, _CARD_EXPECTED)
    rank = _RANK_INPUT.get(text[:-1])
    suit = _SUIT_INPUT.get(text[-1], _SUIT_SYMBOLS.get(text[-1]))
    if rank is None or suit is None:
        raise CardCodeError(code, _CARD_EXPECTED)
    return card(rank, suit)


def format_card(card: Card) -> str:
    """The canonical code of a card: ``"TH"``, ``"JK"``."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < JOKER:
        raise CardCodeError(card, "a card int from 0 to 65")
    return RANK_CODES[card % 13] + SUIT_CODES[card // 13]


def parse_cards(codes: Iterable[str | Card]) -> list[Card]:
    """Card codes or card ints (validated) → card ints."""
    given = list(codes)
    if set(map(type, given)) <= {int}:  # the engine's own callers: plain ints
        numbers = cast("list[Card]", given)
        if not numbers or (min(numbers) >= 0 and max(numbers) <= JOKER):
            return numbers
    out: list[Card] = []
    for code in given:
        if isinstance(code, str):
            out.append(parse_card(code))
        elif isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= JOKER:
            out.append(code)
        else:
            raise CardCodeError(code, "a card code, or a card int from 0 to 65")
    return out

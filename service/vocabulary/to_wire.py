"""Engine → wire: every answer's cards, ranks, rules, melds, views, logs, analyses, hints and
score sheets as the JSON shapes of the features' ``wire`` modules, in one place.

Cards are ints past the wire and text on it; the code of each card int is a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import msgspec

import engine
from engine.cards import (
    ACE,
    JOKER,
    KING,
    Card,
    Rank,
    format_card,
    format_rank,
)
from service.vocabulary.wire import MeldOut, RulesOut

_CODE_OF_CARD: Final = tuple(format_card(c) for c in range(JOKER + 1))
_CODE_OF_RANK: Final = tuple(format_rank(r) for r in range(ACE, KING + 1))


def card_code(card: Card) -> str:
    return _CODE_OF_CARD[card]


def card_codes(cards: Sequence[Card]) -> list[str]:
    code = _CODE_OF_CARD
    return [code[c] for c in cards]


def optional_card_code(card: Card | None) -> str | None:
    return None if card is None else _CODE_OF_CARD[card]


def rank_code(rank: Rank | None) -> str | None:
    return None if rank is None else _CODE_OF_RANK[rank - ACE]


def rules_to_wire(rules: engine.Rules) -> RulesOut:
    return msgspec.convert(rules.to_spec(), RulesOut)


@lru_cache(maxsize=256)
def game_rules_to_wire(rules: engine.Rules) -> RulesOut:
    """``rules_to_wire``, remembered per rules value: every view carries its game's rules."""
    return rules_to_wire(rules)


def meld_to_wire(meld: engine.Meld) -> MeldOut:
    code = _CODE_OF_CARD
    return MeldOut(
        kind=meld.kind,
        cards=[code[c] for c in meld.cards],
        stands_for=[optional_card_code(s) for s in meld.stands_for],
    )

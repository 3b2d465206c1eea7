"""Wire → engine for an analysis: the hand, the wild rank and the rules of an analyse request."""

from __future__ import annotations

import engine
from engine.cards import Card, Rank
from service.analysis.wire import AnalyseRequest
from service.vocabulary import to_engine


def analyse_inputs(data: AnalyseRequest) -> tuple[list[Card], Rank, engine.Rules]:
    """The hand, the wild rank and the rules of a request, or the problem with them."""
    rules = to_engine.rules_from_wire(data.rules)
    hand = to_engine.cards_from_codes(data.hand, "hand")
    wild = to_engine.wild_from_wire(data.wild, data.round, rules)
    return hand, wild, rules

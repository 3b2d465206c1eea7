"""Which analyses leave the event loop (``is_costly``), and what a worker process runs for one
(``analysed``); the pool is ``service.workers.pool``."""

from __future__ import annotations

import engine
from engine.cards import JOKER, Card, Rank, rank_of
from service.analysis.to_wire import analysis_to_wire
from service.analysis.wire import AnalyseResponse


def is_costly(hand: list[Card], wild: Rank, inline_cards: int, inline_wilds: int) -> bool:
    """Whether the analysis of ``hand`` should leave the event loop: more cards than
    ``inline_cards`` and more wilds than ``inline_wilds``.

    The exact search's cost grows with the hand and, far faster, with its wilds (each can fill
    any meld). Measured by hill-climbing towards the slowest hands: at 16 cards, a millisecond or
    two whatever the wilds; at 30 cards, about 2 ms with no wild, 20 ms with two, 50 ms with
    four, and over 100 ms with eight. Counting them costs next to nothing."""
    if len(hand) <= inline_cards:
        return False
    wilds = 0
    for card in hand:
        if card == JOKER or rank_of(card) == wild:
            wilds += 1
    return wilds > inline_wilds


def analysed(hand: list[Card], wild: Rank, rules: engine.Rules) -> AnalyseResponse:
    """The analysis as the wire has it; what a worker process runs (its answer comes back
    pickled, so its wire structs, not the engine's values)."""
    return analysis_to_wire(engine.analyse(hand, wild, rules))

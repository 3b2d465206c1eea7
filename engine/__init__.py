"""Three Thirteen: cards, rules, hand analysis and the game, in pure Python with no I/O."""

from engine.analysis import Analysis, Discard, Meld, analyse, describe, min_deadwood
from engine.cards import JOKER, format_card, format_rank, parse_card, parse_cards, parse_rank
from engine.errors import CardCodeError, EngineError, HandError, RulesError
from engine.rules import PRESETS, Rules

__all__ = [
    "JOKER",
    "PRESETS",
    "Analysis",
    "CardCodeError",
    "Discard",
    "EngineError",
    "HandError",
    "Meld",
    "Rules",
    "RulesError",
    "analyse",
    "describe",
    "format_card",
    "format_rank",
    "min_deadwood",
    "parse_card",
    "parse_cards",
    "parse_rank",
]

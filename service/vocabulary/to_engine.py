"""Wire → engine: card and rank codes, rules specs, actions and a sheet's entries as the
engine's values, in one place.

Cards are text only at this edge; everything past it works on the engine's ints. A code that
fails to parse becomes an ``InvalidField`` naming where it was (``hand[3]``, ``card``).

Every request pays for this edge, so it remembers: the engine's parse of each code (the wire's
patterns accept a few hundred spellings), and the ``Rules`` of each preset and each rules
object (frozen values, whose validation costs more than a small hand's analysis).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import msgspec

import engine
from engine.cards import (
    Card,
    Rank,
    parse_card,
    parse_rank,
)
from engine.rules import PRESET_NAMES
from service.http.problems import InvalidField, MissingWild
from service.vocabulary.wire import RulesSpec

_CARD_OF_CODE: Final[dict[str, Card]] = {}
"""The card of every code parsed so far, up to a bound (the wire's pattern accepts a few hundred
spellings, and every code that reaches this module has passed it)."""
_CARD_CODES_KEPT: Final = 1024
_parsed_rank: Final = lru_cache(maxsize=64)(parse_rank)
_PRESET_RULES: Final = {name: engine.Rules.preset_named(name) for name in PRESET_NAMES}


def card_from_code(code: str, field: str) -> Card:
    card = _CARD_OF_CODE.get(code)
    if card is None:
        try:
            card = parse_card(code)
        except engine.CardCodeError as exc:
            raise InvalidField(str(exc), field=field) from None
        if len(_CARD_OF_CODE) < _CARD_CODES_KEPT:
            _CARD_OF_CODE[code] = card
    return card


def cards_from_codes(codes: Sequence[str], field: str) -> list[Card]:
    known = _CARD_OF_CODE
    try:
        return [known[code] for code in codes]
    except KeyError:  # one by one, each new code parsed (and a bad one named)
        return [card_from_code(code, f"{field}[{index}]") for index, code in enumerate(codes)]


def rank_from_code(code: str, field: str) -> Rank:
    try:
        return _parsed_rank(code)
    except engine.CardCodeError as exc:
        raise InvalidField(str(exc), field=field) from None


def rules_from_wire(spec: RulesSpec) -> engine.Rules:
    """A preset name or overrides → engine Rules (RulesError, naming the field, if they clash)."""
    if isinstance(spec, str):
        preset = _PRESET_RULES.get(spec)
        return engine.Rules.from_spec(spec) if preset is None else preset  # unknown: its error
    return _rules_of_overrides(msgspec.json.encode(spec))


def game_rules_from_wire(
    spec: RulesSpec, call_seconds: int | None = None, turn_seconds: int | None = None
) -> engine.Rules:
    """The rules of a game to be played here: as ``rules_from_wire``; ``call_seconds`` (the
    speed caller's time) only with ``turns: speed``, ``turn_seconds`` (the turn clock) only
    without."""
    rules = rules_from_wire(spec)
    speed = rules.turns == "speed"
    if call_seconds is not None and not speed:
        raise InvalidField(
            "call_seconds: only a speed game (rules.turns: speed) has a caller",
            field="call_seconds",
        )
    if turn_seconds is not None and speed:
        raise InvalidField(
            "turn_seconds: a speed game has calls, not turns: give call_seconds",
            field="turn_seconds",
        )
    return rules


@lru_cache(maxsize=256)
def _rules_of_overrides(encoded: bytes) -> engine.Rules:
    """Keyed by the overrides' JSON (the struct holds a list, so it has no hash); a RulesError
    is raised again each time, never remembered."""
    return engine.Rules.from_spec(msgspec.json.decode(encoded))


def wild_from_wire(wild: str | None, round_number: int | None, rules: engine.Rules) -> Rank:
    """A request's wild rank: its ``wild`` (a rank of the rules' pack), else the wild of its
    ``round``; 422 naming ``wild`` when it has neither."""
    if wild is not None:
        rank = rank_from_code(wild, "wild")
        if rank not in rules.ranks:
            raise InvalidField(
                f"wild rank {wild!r} is not a rank of the {rules.preset} pack", field="wild"
            )
        return rank
    if round_number is not None:
        return rules.wild_rank(round_number)
    raise MissingWild("give the wild rank as `wild`, or the round as `round`", field="wild")

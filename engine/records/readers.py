"""The notation's small readers: a word, a number, a card, an action, a meld, an option's value;
each raises ``Bad`` with what it expected (``engine.records.parsing`` adds the line)."""

from __future__ import annotations

import json
import re
from typing import Final, NoReturn

from engine.analysis import Meld
from engine.cards import Card, parse_card
from engine.errors import CardCodeError
from engine.game import Action, Discard, Draw, LayOff, Status
from engine.records.notation import HIDDEN
from engine.records.record import Visibility

_MELD: Final = re.compile(r"(set|run)\(([^()]*)\)")
_INT: Final = re.compile(r"-?\d+")


class Bad(Exception):
    """What is wrong with the line being read (the parser adds its number)."""


def fail(message: str) -> NoReturn:
    raise Bad(message)


def parse_action(text: str) -> tuple[Action, Card | None]:
    """An action as the notation writes it, and its card (None for ``?``)."""
    words = text.split()
    match words:
        case ["draw", "stock", card]:
            return Draw("stock"), read_card_or_hidden(card)
        case ["draw", "discard", card]:
            return Draw("discard"), read_card(card)
        case ["draw", "discard", "pile", pile, card]:
            return Draw("discard", read_number(pile, "the pile")), read_card(card)
        case ["discard", card, *rest]:
            c = read_card(card)
            return read_discard(c, rest, text), c
        case ["layoff", card, "on", target]:
            owner, dot, meld = target.partition(".")
            if not dot:
                fail(f"a lay-off goes 'on SEAT.MELD', not {target!r}")
            c = read_card(card)
            return LayOff(c, read_number(owner, "the seat"), read_number(meld, "the meld")), c
    fail(f"not an action: {text!r}")


def read_discard(card: Card, rest: list[str], text: str) -> Discard:
    """``discard CARD``, then ``pile N`` for a joker onto another seat's pile, then ``out``."""
    go_out = rest[-1:] == ["out"]
    if go_out:
        rest = rest[:-1]
    match rest:
        case []:
            return Discard(card, go_out=go_out)
        case ["pile", pile]:
            return Discard(card, go_out=go_out, pile=read_number(pile, "the pile"))
    fail(f"not an action: {text!r}")


def read_melds(text: str) -> tuple[Meld, ...]:
    melds = []
    rest = text.strip()
    while rest:
        match = _MELD.match(rest)
        if match is None:
            fail(f"expected a meld such as 'run(4H 5H JK=6H)', not {rest!r}")
        kind, inner = match.groups()
        cards: list[Card] = []
        stands: list[Card | None] = []
        for word in inner.split():
            card, _, stand = word.partition("=")
            cards.append(read_card(card))
            stands.append(read_card(stand) if stand else None)
        melds.append(Meld("set" if kind == "set" else "run", tuple(cards), tuple(stands)))
        rest = rest[match.end() :].strip()
    return tuple(melds)


# -- small readers --------------------------------------------------------------------------------


def read_words(line: str | None) -> list[str]:
    return (line or "").split()


def read_at(words: list[str], index: int) -> str:
    return words[index] if index < len(words) else fail("the line is too short")


def read_unquoted(quoted: str) -> str:
    try:
        value = json.loads(quoted)
    except ValueError:
        fail(f"bad quoted value {quoted}")
    if not isinstance(value, str):
        fail(f"bad quoted value {quoted}")
    return value


def read_number(text: str, what: str) -> int:
    if _INT.fullmatch(text) is None:
        fail(f"{what} must be a whole number, not {text!r}")
    return int(text)


def read_numbers(text: str, what: str) -> tuple[int, ...]:
    return tuple(read_number(word, what) for word in text.split())


def read_card(code: str) -> Card:
    try:
        return parse_card(code)
    except CardCodeError as error:
        fail(str(error))


def read_card_or_hidden(code: str) -> Card | None:
    return None if code == HIDDEN else read_card(code)


def read_card_list(codes: list[str]) -> tuple[Card, ...]:
    return tuple(read_card(code) for code in codes)


def read_option_value(text: str) -> object:
    if text in _WORDS:
        return _WORDS[text]
    words = text.split()
    if words and all(_INT.fullmatch(w) for w in words):
        return int(words[0]) if len(words) == 1 else [int(w) for w in words]
    return text


_WORDS: Final[dict[str, object]] = {"null": None, "true": True, "false": False}


def read_status(text: str) -> Status:
    return "finished" if text == "finished" else "playing"


def read_visibility(text: str) -> Visibility:
    return "whole" if text == "whole" else "public"

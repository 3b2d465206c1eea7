"""The text notation read back: ``parse_record`` and ``parse_located``.

``parse_located`` also says on which line each part of the record stood (``Places``), so an
import can name the line of the first action that is not legal. A bad line raises
``NotationError`` with its number and what is wrong with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn

from engine.analysis import Meld
from engine.cards import Card, parse_card
from engine.errors import CardCodeError, NotationError, RulesError
from engine.game import Action, Discard, Draw, LayOff, LogEntry, RoundResult, SeatResult, Status
from engine.records.notation import GAME, HIDDEN, MAX_RECORD_BYTES, RULE_PREFIX
from engine.records.record import FORMAT, Dealt, GameRecord, Headers, RoundRecord, Visibility
from engine.rules import Rules

Place = tuple[object, ...]
"""A part of a record: ``("action", round_index, action_index)``, ``("score", round_index,
seat)``, ``("round", round_index)``, ``("header", key)`` and the like (see ``Places``)."""


@dataclass(slots=True)
class Places:
    """The line each part of a parsed record stood on."""

    lines: dict[Place, int] = field(default_factory=dict)

    def line(self, *place: object) -> int | None:
        return self.lines.get(place)


def parse_record(text: str) -> GameRecord:
    """The record a text in the notation holds; ``NotationError`` names the first bad line."""
    return parse_located(text)[0]


def parse_located(text: str) -> tuple[GameRecord, Places]:
    """``parse_record``, with the line each part of the record stood on."""
    size = len(text.encode())
    if size > MAX_RECORD_BYTES:
        raise NotationError(
            f"the record is {size} bytes: a record holds at most {MAX_RECORD_BYTES}"
        )
    return _Parser(text).parse()


_HEADER: Final = re.compile(r'\[([A-Za-z][A-Za-z0-9_.]*) ("(?:[^"\\]|\\.)*")\]')
_ACTION: Final = re.compile(r"(\d+)\. (\d+) (.+)")
_MELD: Final = re.compile(r"(set|run)\(([^()]*)\)")
_INT: Final = re.compile(r"-?\d+")


class _Bad(Exception):
    """What is wrong with the line being read (the parser adds its number)."""


def _fail(message: str) -> NoReturn:
    raise _Bad(message)


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.places = Places()
        self.number = 0

    def parse(self) -> tuple[GameRecord, Places]:
        try:
            lines = self._lines()
            headers = self._headers(lines)
            rounds = self._rounds(lines, headers)
        except _Bad as bad:
            raise NotationError(str(bad), line=self.number or None) from None
        return GameRecord(headers, rounds), self.places

    def _lines(self) -> Iterator[str]:
        """The lines with content, comments (from ``;`` on) and surrounding space removed."""
        for number, raw in enumerate(self.lines, 1):
            self.number = number
            line = raw.strip()
            if not line.startswith("["):  # a header's value may hold a ';'
                line = line.split(";", 1)[0].strip()
            if line:
                yield line
        self.number = 0

    # headers

    def _headers(self, lines: Iterator[str]) -> Headers:
        values: dict[str, str] = {}
        self.pending: str | None = None
        for line in lines:
            if not line.startswith("["):
                self.pending = line
                break
            match = _HEADER.fullmatch(line)
            if match is None:
                _fail(f'expected a header [Key "value"], not {line!r}')
            key, quoted = match.groups()
            if key in values:
                _fail(f"header {key} given twice")
            values[key] = _unquoted(quoted)
            self.places.lines["header", key] = self.number
        return self._headers_of(values)

    def _header_line(self, key: str) -> None:
        self.number = self.places.lines.get(("header", key), self.number)

    def _headers_of(self, values: dict[str, str]) -> Headers:
        def take(key: str, default: str | None = None) -> str:
            value = values.pop(key, default)
            if value is None:
                _fail(f"the record has no {key} header")
            self._header_line(key)
            return value

        end = self.number
        if take("Game", GAME) != GAME:
            _fail(f"the Game header must be {GAME!r}")
        if take("Format", str(FORMAT)) != str(FORMAT):
            _fail(f"this code reads records of format {FORMAT}")
        visibility = take("Record")
        if visibility not in ("public", "whole"):
            _fail(f"Record must be 'public' or 'whole', not {visibility!r}")
        status = take("Status")
        if status not in ("playing", "finished"):
            _fail(f"Status must be 'playing' or 'finished', not {status!r}")
        created = values.pop("Created", None)
        finished = values.pop("Finished", None)
        players: list[str] = []
        bots: list[str | None] = []
        while f"Player{len(players)}" in values:
            seat = len(players)
            players.append(take(f"Player{seat}"))
            bots.append(values.pop(f"Bot{seat}", None))
        first_dealer = _number(take("FirstDealer"), "FirstDealer")
        rules = self._rules(values)
        totals = _numbers(take("Totals", ""), "Totals")
        winners_text = values.pop("Winners", None)
        winners = None if winners_text is None else _numbers(winners_text, "Winners")
        if values:
            self._header_line(next(iter(values)))
            _fail(f"unknown header {next(iter(values))}")
        self.number = end
        return Headers(
            rules=rules,
            players=tuple(players),
            bots=tuple(bots),
            first_dealer=first_dealer,
            status=_status(status),
            visibility=_visibility(visibility),
            created=created,
            finished=finished,
            totals=totals,
            winners=winners,
        )

    def _rules(self, values: dict[str, str]) -> Rules:
        spec: dict[str, Any] = {}
        for key in [k for k in values if k.startswith(RULE_PREFIX)]:
            name = key.removeprefix(RULE_PREFIX)
            text = values.pop(key)
            spec[name] = text if name == "preset" else _option_value(text)
        try:
            return Rules.from_spec(spec)
        except RulesError as error:
            if error.field is not None:
                self._header_line(RULE_PREFIX + error.field)
            _fail(str(error))
        except (TypeError, ValueError) as error:  # a value of a type no option takes
            _fail(f"the Rules headers are not a rules object: {error}")

    # rounds

    def _rounds(self, lines: Iterator[str], headers: Headers) -> tuple[RoundRecord, ...]:
        rounds: list[RoundRecord] = []
        line = self.pending
        self.seats = len(headers.players)
        while line is not None:
            if not line.startswith("round "):
                _fail(f"expected a round line ('round N deal N dealer S seats ...'), not {line!r}")
            entry, line = self._round(len(rounds), line, lines, whole=headers.visibility == "whole")
            rounds.append(entry)
        return tuple(rounds)

    def _round(
        self, index: int, line: str, lines: Iterator[str], *, whole: bool
    ) -> tuple[RoundRecord, str | None]:
        words = line.split()
        if len(words) < 8 or words[2:7:2] != ["deal", "dealer", "seats"]:  # noqa: PLR2004
            _fail(f"expected 'round N deal N dealer S seats S ...', not {line!r}")
        round_number = _number(words[1], "the round")
        deal = _number(words[3], "the deal")
        dealer = self.seat(words[5])
        active = tuple(self.seat(w) for w in words[7:])
        self.places.lines["round", index] = self.number
        reader = _RoundReader(self, index, lines)
        dealt = reader.dealt(whole)
        upcard = reader.upcard
        actions = reader.actions(deal)
        result = reader.result(round_number)
        return (
            RoundRecord(round_number, deal, dealer, active, upcard, dealt, actions, result),
            reader.line,
        )

    def seat(self, word: str) -> int:
        seat = _number(word, "a seat")
        if not 0 <= seat < self.seats:
            _fail(f"no seat {seat}: the record has seats 0 to {self.seats - 1}")
        return seat


class _RoundReader:
    """Reads one round's lines in their order: hands, upcard, stock and restocks, actions,
    then the result. ``line`` is the first line past the round (None at the end)."""

    def __init__(self, parser: _Parser, index: int, lines: Iterator[str]) -> None:
        self.parser = parser
        self.index = index
        self.lines = lines
        self.line: str | None = next(lines, None)
        self.upcard: Card = -1

    def _mark(self, *place: object) -> None:
        self.parser.places.lines[place] = self.parser.number

    def _next(self) -> None:
        self.line = next(self.lines, None)

    def _word(self) -> str:
        return "" if self.line is None else self.line.split(" ", 1)[0]

    def dealt(self, whole: bool) -> Dealt | None:
        hands: list[tuple[Card, ...]] = []
        while self._word() == "hand":
            words = _words(self.line)
            seat = self.parser.seat(words[1]) if len(words) > 1 else _fail("hand needs a seat")
            if seat != len(hands):
                _fail(f"hand {seat} where hand {len(hands)} was expected")
            self._mark("hand", self.index, seat)
            hands.append(_card_list(words[2:]))
            self._next()
        if self._word() != "upcard":
            _fail(f"expected the upcard line ('upcard C'), not {self.line!r}")
        words = _words(self.line)
        if len(words) != 2:  # noqa: PLR2004
            _fail("the upcard line names one card")
        self.upcard = _card(words[1])
        self._mark("upcard", self.index)
        self._next()
        if not whole:
            if hands:
                _fail("a public record shows no hands")
            return None
        if len(hands) != self.parser.seats:
            _fail(f"a whole record gives every seat's hand: {len(hands)} of {self.parser.seats}")
        if self._word() != "stock":
            _fail(f"expected the stock line ('stock C C ...'), not {self.line!r}")
        self._mark("stock", self.index)
        stock = _card_list(_words(self.line)[1:])
        self._next()
        restocks: list[tuple[Card, ...]] = []
        while self._word() == "restock":
            self._mark("restock", self.index, len(restocks))
            restocks.append(_card_list(_words(self.line)[1:]))
            self._next()
        return Dealt(tuple(hands), stock, tuple(restocks))

    def actions(self, deal: int) -> tuple[LogEntry, ...]:
        entries: list[LogEntry] = []
        while self.line is not None and self.line[0].isdigit():
            match = _ACTION.fullmatch(self.line)
            if match is None:
                _fail(f"expected an action line ('V. S action'), not {self.line!r}")
            version, seat_word, text = match.groups()
            action, card = parse_action(text)
            self._mark("action", self.index, len(entries))
            entries.append(LogEntry(int(version), self.parser.seat(seat_word), action, card, deal))
            self._next()
        return tuple(entries)

    def result(self, round_number: int) -> RoundResult | None:
        if self._word() != "out":
            return None
        words = _words(self.line)
        self._mark("out", self.index)
        out = None if len(words) > 1 and words[1] == "-" else self.parser.seat(_at(words, 1))
        flags = words[2:]
        if any(f not in ("replayed", "tiebreak") for f in flags) or len(set(flags)) < len(flags):
            _fail(f"after the out seat, only 'replayed' and 'tiebreak' may follow: {flags}")
        self._next()
        scores = []
        while self._word() == "score":
            scores.append(self._score())
            self._next()
        return RoundResult(
            round_number,
            out,
            tuple(scores),
            replayed="replayed" in flags,
            tiebreak="tiebreak" in flags,
            out_seats=() if out is None else (out,),  # records are of games played in turns
        )

    def _score(self) -> SeatResult:
        line = self.line or ""
        head, sep, deadwood = line.partition(" deadwood")
        if not sep:
            _fail("a score line ends with 'deadwood' and the deadwood cards")
        words = head.split(" ", 3)
        if len(words) < 3:  # noqa: PLR2004
            _fail("expected 'score S points melds... deadwood cards...'")
        seat = self.parser.seat(words[1])
        self._mark("score", self.index, seat)
        points = _number(words[2], "the points")
        melds_text = words[3] if len(words) > 3 else ""  # noqa: PLR2004
        melds = _melds(melds_text)
        return SeatResult(seat, melds, _card_list(deadwood.split()), points)


def parse_action(text: str) -> tuple[Action, Card | None]:
    """An action as the notation writes it, and its card (None for ``?``)."""
    words = text.split()
    match words:
        case ["draw", "stock", card]:
            return Draw("stock"), _card_or_hidden(card)
        case ["draw", "discard", card]:
            return Draw("discard"), _card(card)
        case ["draw", "discard", "pile", pile, card]:
            return Draw("discard", _number(pile, "the pile")), _card(card)
        case ["discard", card, *rest]:
            c = _card(card)
            return _discard(c, rest, text), c
        case ["layoff", card, "on", target]:
            owner, dot, meld = target.partition(".")
            if not dot:
                _fail(f"a lay-off goes 'on SEAT.MELD', not {target!r}")
            c = _card(card)
            return LayOff(c, _number(owner, "the seat"), _number(meld, "the meld")), c
    _fail(f"not an action: {text!r}")


def _discard(card: Card, rest: list[str], text: str) -> Discard:
    """``discard CARD``, then ``pile N`` for a joker onto another seat's pile, then ``out``."""
    go_out = rest[-1:] == ["out"]
    if go_out:
        rest = rest[:-1]
    match rest:
        case []:
            return Discard(card, go_out=go_out)
        case ["pile", pile]:
            return Discard(card, go_out=go_out, pile=_number(pile, "the pile"))
    _fail(f"not an action: {text!r}")


def _melds(text: str) -> tuple[Meld, ...]:
    melds = []
    rest = text.strip()
    while rest:
        match = _MELD.match(rest)
        if match is None:
            _fail(f"expected a meld such as 'run(4H 5H JK=6H)', not {rest!r}")
        kind, inner = match.groups()
        cards: list[Card] = []
        stands: list[Card | None] = []
        for word in inner.split():
            card, _, stand = word.partition("=")
            cards.append(_card(card))
            stands.append(_card(stand) if stand else None)
        melds.append(Meld("set" if kind == "set" else "run", tuple(cards), tuple(stands)))
        rest = rest[match.end() :].strip()
    return tuple(melds)


# -- small readers --------------------------------------------------------------------------------


def _words(line: str | None) -> list[str]:
    return (line or "").split()


def _at(words: list[str], index: int) -> str:
    return words[index] if index < len(words) else _fail("the line is too short")


def _unquoted(quoted: str) -> str:
    try:
        value = json.loads(quoted)
    except ValueError:
        _fail(f"bad quoted value {quoted}")
    if not isinstance(value, str):
        _fail(f"bad quoted value {quoted}")
    return value


def _number(text: str, what: str) -> int:
    if _INT.fullmatch(text) is None:
        _fail(f"{what} must be a whole number, not {text!r}")
    return int(text)


def _numbers(text: str, what: str) -> tuple[int, ...]:
    return tuple(_number(word, what) for word in text.split())


def _card(code: str) -> Card:
    try:
        return parse_card(code)
    except CardCodeError as error:
        _fail(str(error))


def _card_or_hidden(code: str) -> Card | None:
    return None if code == HIDDEN else _card(code)


def _card_list(codes: list[str]) -> tuple[Card, ...]:
    return tuple(_card(code) for code in codes)


def _option_value(text: str) -> object:
    if text in _WORDS:
        return _WORDS[text]
    words = text.split()
    if words and all(_INT.fullmatch(w) for w in words):
        return int(words[0]) if len(words) == 1 else [int(w) for w in words]
    return text


_WORDS: Final[dict[str, object]] = {"null": None, "true": True, "false": False}


def _status(text: str) -> Status:
    return "finished" if text == "finished" else "playing"


def _visibility(text: str) -> Visibility:
    return "whole" if text == "whole" else "public"

"""The text notation read back: ``parse_record`` and ``parse_located``.

``parse_located`` also says on which line each part of the record stood (``Places``), so an
import can name the line of the first action that is not legal. A bad line raises
``NotationError`` with its number and what is wrong with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from engine.cards import Card
from engine.errors import NotationError, RulesError
from engine.game import LogEntry, RoundResult, SeatResult
from engine.game.actions import CALLER, DISCARD_PHASE, DRAW_PHASE, CallEnd, Discard, Draw, Move
from engine.names import name_fault
from engine.records import readers
from engine.records.notation import CALL, GAME, MAX_RECORD_BYTES, MOVES, RULE_PREFIX, TIMEOUT
from engine.records.record import FORMAT, Dealt, GameRecord, Headers, RoundRecord
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
_CALL: Final = re.compile(
    rf"(\d+)\. {CALL} (\d+) (draw|discard)( {TIMEOUT})?((?:{re.escape(MOVES)}.+)+)"
)
_MOVE: Final = re.compile(r"(\d+) (.+)")


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
        except readers.Bad as bad:
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
                readers.fail(f'expected a header [Key "value"], not {line!r}')
            key, quoted = match.groups()
            if key in values:
                readers.fail(f"header {key} given twice")
            values[key] = readers.read_unquoted(quoted)
            self.places.lines["header", key] = self.number
        return self._headers_of(values)

    def _header_line(self, key: str) -> None:
        self.number = self.places.lines.get(("header", key), self.number)

    def _headers_of(self, values: dict[str, str]) -> Headers:
        def take(key: str, default: str | None = None) -> str:
            value = values.pop(key, default)
            if value is None:
                readers.fail(f"the record has no {key} header")
            self._header_line(key)
            return value

        end = self.number
        if take("Game", GAME) != GAME:
            readers.fail(f"the Game header must be {GAME!r}")
        if take("Format", str(FORMAT)) != str(FORMAT):
            readers.fail(f"this code reads records of format {FORMAT}")
        visibility = take("Record")
        if visibility not in ("public", "whole"):
            readers.fail(f"Record must be 'public' or 'whole', not {visibility!r}")
        status = take("Status")
        if status not in ("playing", "finished"):
            readers.fail(f"Status must be 'playing' or 'finished', not {status!r}")
        created = values.pop("Created", None)
        finished = values.pop("Finished", None)
        players: list[str] = []
        bots: list[str | None] = []
        while f"Player{len(players)}" in values:
            seat = len(players)
            players.append(take(f"Player{seat}"))
            fault = name_fault(players[-1])
            if fault is not None:  # a record's names obey the rule of every name shown
                readers.fail(f"Player{seat}: {fault}")
            bots.append(values.pop(f"Bot{seat}", None))
        first_dealer = readers.read_number(take("FirstDealer"), "FirstDealer")
        rules = self._rules(values)
        totals = readers.read_numbers(take("Totals", ""), "Totals")
        winners_text = values.pop("Winners", None)
        winners = None if winners_text is None else readers.read_numbers(winners_text, "Winners")
        if values:
            self._header_line(next(iter(values)))
            readers.fail(f"unknown header {next(iter(values))}")
        self.number = end
        return Headers(
            rules=rules,
            players=tuple(players),
            bots=tuple(bots),
            first_dealer=first_dealer,
            status=readers.read_status(status),
            visibility=readers.read_visibility(visibility),
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
            spec[name] = text if name == "preset" else readers.read_option_value(text)
        try:
            return Rules.from_spec(spec)
        except RulesError as error:
            if error.field is not None:
                self._header_line(RULE_PREFIX + error.field)
            readers.fail(str(error))
        except (TypeError, ValueError) as error:  # a value of a type no option takes
            readers.fail(f"the Rules headers are not a rules object: {error}")

    # rounds

    def _rounds(self, lines: Iterator[str], headers: Headers) -> tuple[RoundRecord, ...]:
        rounds: list[RoundRecord] = []
        line = self.pending
        self.seats = len(headers.players)
        self.speed = headers.rules.turns == "speed"
        while line is not None:
            if not line.startswith("round "):
                readers.fail(
                    f"expected a round line ('round N deal N dealer S seats ...'), not {line!r}"
                )
            entry, line = self._round(len(rounds), line, lines, whole=headers.visibility == "whole")
            rounds.append(entry)
        return tuple(rounds)

    def _round(
        self, index: int, line: str, lines: Iterator[str], *, whole: bool
    ) -> tuple[RoundRecord, str | None]:
        words = line.split()
        if len(words) < 8 or words[2:7:2] != ["deal", "dealer", "seats"]:  # noqa: PLR2004
            readers.fail(f"expected 'round N deal N dealer S seats S ...', not {line!r}")
        round_number = readers.read_number(words[1], "the round")
        deal = readers.read_number(words[3], "the deal")
        dealer = self.seat(words[5])
        active = tuple(self.seat(w) for w in words[7:])
        self.places.lines["round", index] = self.number
        reader = _RoundReader(self, index, lines)
        dealt = reader.dealt(whole, len(active) if self.speed else 1)
        upcards = reader.upcards
        actions = reader.actions(deal)
        result = reader.result(round_number)
        return (
            RoundRecord(
                round_number,
                deal,
                dealer,
                active,
                upcards[0],
                dealt,
                actions,
                result,
                upcards if self.speed else (),
            ),
            reader.line,
        )

    def seat(self, word: str) -> int:
        seat = readers.read_number(word, "a seat")
        if not 0 <= seat < self.seats:
            readers.fail(f"no seat {seat}: the record has seats 0 to {self.seats - 1}")
        return seat


class _RoundReader:
    """Reads one round's lines in their order: hands, upcard, stock and restocks, actions,
    then the result. ``line`` is the first line past the round (None at the end)."""

    def __init__(self, parser: _Parser, index: int, lines: Iterator[str]) -> None:
        self.parser = parser
        self.index = index
        self.lines = lines
        self.line: str | None = next(lines, None)
        self.upcards: tuple[Card, ...] = ()

    def _mark(self, *place: object) -> None:
        self.parser.places.lines[place] = self.parser.number

    def _next(self) -> None:
        self.line = next(self.lines, None)

    def _word(self) -> str:
        return "" if self.line is None else self.line.split(" ", 1)[0]

    def dealt(self, whole: bool, upcards: int) -> Dealt | None:
        hands: list[tuple[Card, ...]] = []
        while self._word() == "hand":
            words = readers.read_words(self.line)
            seat = (
                self.parser.seat(words[1]) if len(words) > 1 else readers.fail("hand needs a seat")
            )
            if seat != len(hands):
                readers.fail(f"hand {seat} where hand {len(hands)} was expected")
            self._mark("hand", self.index, seat)
            hands.append(readers.read_card_list(words[2:]))
            self._next()
        if self._word() != "upcard":
            readers.fail(f"expected the upcard line ('upcard C'), not {self.line!r}")
        words = readers.read_words(self.line)
        if len(words) != 1 + upcards:
            # A speed game's deal turns up a card on each seat's pile, in the seats' order.
            readers.fail(f"the upcard line names {upcards} card{'s' if upcards > 1 else ''}")
        self.upcards = readers.read_card_list(words[1:])
        self._mark("upcard", self.index)
        self._next()
        if not whole:
            if hands:
                readers.fail("a public record shows no hands")
            return None
        if len(hands) != self.parser.seats:
            readers.fail(
                f"a whole record gives every seat's hand: {len(hands)} of {self.parser.seats}"
            )
        if self._word() != "stock":
            readers.fail(f"expected the stock line ('stock C C ...'), not {self.line!r}")
        self._mark("stock", self.index)
        stock = readers.read_card_list(readers.read_words(self.line)[1:])
        self._next()
        restocks: list[tuple[Card, ...]] = []
        while self._word() == "restock":
            self._mark("restock", self.index, len(restocks))
            restocks.append(readers.read_card_list(readers.read_words(self.line)[1:]))
            self._next()
        return Dealt(tuple(hands), stock, tuple(restocks))

    def actions(self, deal: int) -> tuple[LogEntry, ...]:
        entries: list[LogEntry] = []
        while self.line is not None and self.line[0].isdigit():
            self._mark("action", self.index, len(entries))
            if self.parser.speed:
                entries.append(self._call(self.line, deal))
                self._next()
                continue
            match = _ACTION.fullmatch(self.line)
            if match is None:
                readers.fail(f"expected an action line ('V. S action'), not {self.line!r}")
            version, seat_word, text = match.groups()
            action, card = readers.parse_action(text)
            entries.append(LogEntry(int(version), self.parser.seat(seat_word), action, card, deal))
            self._next()
        return tuple(entries)

    def _call(self, line: str, deal: int) -> LogEntry:
        """A speed call's line: ``V. call N draw|discard [timeout] | S choice | S choice ...``."""
        match = _CALL.fullmatch(line)
        if match is None:
            readers.fail(f"expected a call line ('V. call N draw | S choice | ...'), not {line!r}")
        version, number, phase, timeout, moves_text = match.groups()
        moves = []
        for text in moves_text.split(MOVES)[1:]:
            move = _MOVE.fullmatch(text)
            if move is None:
                readers.fail(f"expected a seat and its choice ('S draw stock C'), not {text!r}")
            action, card = readers.parse_action(move[2])
            if not isinstance(action, Draw if phase == "draw" else Discard):
                readers.fail(f"not a choice in a {phase} call: {move[2]!r}")
            moves.append(Move(self.parser.seat(move[1]), action, card))
        end = CallEnd(
            int(number),
            DRAW_PHASE if phase == "draw" else DISCARD_PHASE,
            tuple(moves),
            timed_out=timeout is not None,
        )
        return LogEntry(int(version), CALLER, end, None, deal)

    def result(self, round_number: int) -> RoundResult | None:
        if self._word() != "out":
            return None
        words = readers.read_words(self.line)
        self._mark("out", self.index)
        seats = 1
        if words[1:2] != ["-"]:  # several seats may go out on one speed call
            while seats < len(words) and words[seats].isdigit():
                seats += 1
            seats = max(seats, 2)
            outs = tuple(self.parser.seat(readers.read_at(words, i)) for i in range(1, seats))
        else:
            outs, seats = (), 2
        flags = words[seats:]
        if any(f not in ("replayed", "tiebreak") for f in flags) or len(set(flags)) < len(flags):
            readers.fail(f"after the out seat, only 'replayed' and 'tiebreak' may follow: {flags}")
        self._next()
        scores = []
        while self._word() == "score":
            scores.append(self._score())
            self._next()
        return RoundResult(
            round_number,
            outs[0] if outs else None,
            tuple(scores),
            replayed="replayed" in flags,
            tiebreak="tiebreak" in flags,
            out_seats=outs,
        )

    def _score(self) -> SeatResult:
        line = self.line or ""
        head, sep, deadwood = line.partition(" deadwood")
        if not sep:
            readers.fail("a score line ends with 'deadwood' and the deadwood cards")
        words = head.split(" ", 3)
        if len(words) < 3:  # noqa: PLR2004
            readers.fail("expected 'score S points melds... deadwood cards...'")
        seat = self.parser.seat(words[1])
        self._mark("score", self.index, seat)
        points = readers.read_number(words[2], "the points")
        melds_text = words[3] if len(words) > 3 else ""  # noqa: PLR2004
        melds = readers.read_melds(melds_text)
        return SeatResult(seat, melds, readers.read_card_list(deadwood.split()), points)

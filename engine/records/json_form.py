"""The record as plain JSON-ready values (dicts, lists, text, numbers), and back.

Cards are card codes, as everywhere at the edges; an action is an entry of the API's game log
(``version``, ``seat``, ``action`` with its ``type``, ``card``: null when hidden).
``record_from_json(record_json(r)) == r``; a bad value raises ``NotationError`` with its path
(``rounds[2].actions[5].card``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NoReturn, TypeVar

from engine.analysis import Meld
from engine.cards import Card, format_card, parse_card
from engine.errors import CardCodeError, NotationError, RulesError
from engine.game import Discard, Draw, LayOff, LogEntry, RoundResult, SeatResult
from engine.game.actions import CALLER, DISCARD_PHASE, DRAW_PHASE, CallEnd, Move
from engine.names import name_fault
from engine.records.record import FORMAT, Dealt, GameRecord, Headers, RoundRecord
from engine.rules import Rules

_T = TypeVar("_T")
Json = dict[str, Any]


def record_json(record: GameRecord) -> Json:
    h = record.headers
    times = {"created": h.created, "finished": h.finished}  # absent when not known, as in text
    return {
        "format": FORMAT,
        "record": h.visibility,
        "status": h.status,
        **{key: value for key, value in times.items() if value is not None},
        "players": list(h.players),
        "bots": list(h.bots),
        "first_dealer": h.first_dealer,
        "rules": h.rules.to_spec(),
        "totals": list(h.totals),
        "winners": None if h.winners is None else list(h.winners),
        "rounds": [_round_json(r) for r in record.rounds],
    }


def _codes(cards: tuple[Card, ...]) -> list[str]:
    return [format_card(c) for c in cards]


def _round_json(r: RoundRecord) -> Json:
    out: Json = {
        "round": r.round,
        "deal": r.deal,
        "dealer": r.dealer,
        "seats": list(r.active),
        "upcard": format_card(r.upcard),
    }
    if r.upcards:  # a speed game's deal: one upcard per seat's pile, in the seats' order
        out["upcards"] = _codes(r.upcards)
    if r.dealt is not None:
        out["hands"] = [_codes(hand) for hand in r.dealt.hands]
        out["stock"] = _codes(r.dealt.stock)
        out["restocks"] = [_codes(cards) for cards in r.dealt.restocks]
    out["actions"] = [entry_json(e) for e in r.actions]
    out["result"] = None if r.result is None else _result_json(r.result)
    return out


def entry_json(entry: LogEntry) -> Json:
    """An action as the API's log entries show it (``LogEntryOut``)."""
    action: Json
    match entry.action:
        case Draw() | Discard() | LayOff():
            action = _action_json(entry.action)
        case CallEnd(number=number, phase=phase, moves=moves, timed_out=timed_out):
            action = {
                "type": "call_end",
                "number": number,
                "phase": phase.value,
                "moves": [
                    {"seat": m.seat, "action": _action_json(m.action), "card": _code(m.card)}
                    for m in moves
                ],
                "timed_out": timed_out,
            }
        case _:
            raise ValueError(f"no JSON form for {entry.action!r}")
    return {
        "version": entry.version,
        "seat": entry.seat,
        "action": action,
        "card": _code(entry.card),
    }


def _code(card: Card | None) -> str | None:
    return None if card is None else format_card(card)


def _action_json(action: Draw | Discard | LayOff) -> Json:
    match action:
        case Draw(source=source, pile=pile):
            return {"type": "draw", "source": source, "pile": pile}
        case Discard(go_out=go_out, pile=pile):
            out: Json = {"type": "discard", "go_out": go_out}
            if pile is not None:  # a joker onto another seat's pile (``joker_discards``)
                out["pile"] = pile
            return out
        case LayOff(seat=owner, meld=meld):
            return {"type": "lay_off", "seat": owner, "meld": meld}


def _result_json(result: RoundResult) -> Json:
    return {
        "out_seat": result.out_seat,
        "out_seats": list(result.out_seats),
        "replayed": result.replayed,
        "tiebreak": result.tiebreak,
        "scores": [
            {
                "seat": s.seat,
                "points": s.points,
                "melds": [_meld_json(m) for m in s.melds],
                "deadwood": _codes(s.deadwood),
            }
            for s in result.results
        ],
    }


def _meld_json(meld: Meld) -> Json:
    stands = [None if s is None else format_card(s) for s in meld.stands_for]
    return {"kind": meld.kind, "cards": _codes(meld.cards), "stands_for": stands}


# -- reading --------------------------------------------------------------------------------------


class _Reader:
    """Reads a JSON value with its path, for errors that say where."""

    def __init__(self, value: object, path: str) -> None:
        self.value = value
        self.path = path

    def fail(self, message: str) -> NoReturn:
        raise NotationError(message, path=self.path or "record")

    def at(self, key: str | int) -> _Reader:
        value = self.value
        if isinstance(key, int):
            assert isinstance(value, list)
            return _Reader(value[key], f"{self.path}[{key}]")
        if not isinstance(value, dict):
            self.fail("expected an object")
        if key not in value:
            _Reader(None, _join(self.path, key)).fail("missing")
        return _Reader(value[key], _join(self.path, key))

    def optional(self, key: str) -> _Reader:
        value = self.value if isinstance(self.value, dict) else {}
        return _Reader(value.get(key), _join(self.path, key))

    def items(self) -> list[_Reader]:
        if not isinstance(self.value, list):
            self.fail("expected a list")
        return [self.at(i) for i in range(len(self.value))]

    def typed(self, kind: type[_T], what: str) -> _T:
        value = self.value
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.fail(f"expected {what}, not {value!r}")
        return value

    def integer(self) -> int:
        return self.typed(int, "an integer")

    def opt(self, read: Callable[[_Reader], _T]) -> _T | None:
        return None if self.value is None else read(self)

    def text(self) -> str:
        return self.typed(str, "text")

    def boolean(self) -> bool:
        return self.typed(bool, "true or false")

    def card(self) -> Card:
        try:
            return parse_card(self.text())
        except CardCodeError as error:
            self.fail(str(error))

    def cards(self) -> tuple[Card, ...]:
        return tuple(item.card() for item in self.items())

    def ints(self) -> tuple[int, ...]:
        return tuple(item.integer() for item in self.items())


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def record_from_json(value: object) -> GameRecord:
    """The record of a JSON value ``record_json`` wrote; ``NotationError`` with the bad path."""
    top = _Reader(value, "")
    if top.at("format").value != FORMAT:
        top.at("format").fail(f"this code reads records of format {FORMAT}")
    visibility = top.at("record").text()
    if visibility not in ("public", "whole"):
        top.at("record").fail("expected 'public' or 'whole'")
    status = top.at("status").text()
    if status not in ("playing", "finished"):
        top.at("status").fail("expected 'playing' or 'finished'")
    players = tuple(_name(p) for p in top.at("players").items())
    bots = tuple(b.opt(_Reader.text) for b in top.at("bots").items())
    if len(bots) != len(players):
        top.at("bots").fail(f"{len(bots)} bot levels for {len(players)} players")
    rules_reader = top.at("rules")
    try:
        rules = Rules.from_spec(rules_reader.typed(dict, "a rules object"))
    except RulesError as error:
        rules_reader.optional(error.field or "").fail(str(error))
    except (TypeError, ValueError) as error:  # a value of a type no option takes
        rules_reader.fail(f"not a rules object: {error}")
    headers = Headers(
        rules=rules,
        players=players,
        bots=bots,
        first_dealer=top.at("first_dealer").integer(),
        status="finished" if status == "finished" else "playing",
        visibility="whole" if visibility == "whole" else "public",
        created=top.optional("created").opt(_Reader.text),
        finished=top.optional("finished").opt(_Reader.text),
        totals=top.at("totals").ints(),
        winners=top.optional("winners").opt(_Reader.ints),
    )
    whole = visibility == "whole"
    rounds = tuple(_round_in(r, whole) for r in top.at("rounds").items())
    return GameRecord(headers, rounds)


def _name(player: _Reader) -> str:
    """A player's name, which obeys the rule of every name shown (``engine.names``)."""
    name = player.text()
    fault = name_fault(name)
    if fault is not None:
        player.fail(fault)
    return name


def _round_in(r: _Reader, whole: bool) -> RoundRecord:
    deal = r.at("deal").integer()
    number = r.at("round").integer()
    dealt = None
    if whole:
        dealt = Dealt(
            tuple(h.cards() for h in r.at("hands").items()),
            r.at("stock").cards(),
            tuple(s.cards() for s in r.optional("restocks").opt(_Reader.items) or ()),
        )
    return RoundRecord(
        round=number,
        deal=deal,
        dealer=r.at("dealer").integer(),
        active=r.at("seats").ints(),
        upcard=r.at("upcard").card(),
        dealt=dealt,
        actions=tuple(_entry_in(a, deal) for a in r.at("actions").items()),
        result=r.optional("result").opt(lambda result: _result_in(result, number)),
        upcards=r.optional("upcards").opt(_Reader.cards) or (),
    )


def _entry_in(entry: _Reader, deal: int) -> LogEntry:
    a = entry.at("action")
    version = entry.at("version").integer()
    if a.at("type").value == "call_end":
        return LogEntry(version, CALLER, _call_in(a), None, deal)
    card = entry.optional("card").opt(_Reader.card)
    return LogEntry(version, entry.at("seat").integer(), _action_in(a, card, entry), card, deal)


def _call_in(a: _Reader) -> CallEnd:
    """A speed call's end: its number, phase, every seat's choice with its card."""
    phase = a.at("phase").text()
    if phase not in ("draw", "discard"):
        a.at("phase").fail("expected 'draw' or 'discard'")
    moves = []
    for m in a.at("moves").items():
        card = m.optional("card").opt(_Reader.card)
        action = _action_in(m.at("action"), card, m)
        if not isinstance(action, Draw if phase == "draw" else Discard):
            m.at("action").fail(f"not a choice in a {phase} call")
        moves.append(Move(m.at("seat").integer(), action, card))
    return CallEnd(
        a.at("number").integer(),
        DRAW_PHASE if phase == "draw" else DISCARD_PHASE,
        tuple(moves),
        a.at("timed_out").boolean(),
    )


def _action_in(a: _Reader, card: Card | None, entry: _Reader) -> Draw | Discard | LayOff:
    kind = a.at("type").text()
    action: Draw | Discard | LayOff
    if kind == "draw":
        source = a.at("source").text()
        if source not in ("stock", "discard"):
            a.at("source").fail("expected 'stock' or 'discard'")
        pile = a.optional("pile").opt(_Reader.integer)
        action = Draw("stock" if source == "stock" else "discard", pile)
    elif kind in ("discard", "lay_off"):
        if card is None:
            entry.at("card").fail("a discard or lay-off names its card")
        if kind == "discard":
            go_out = a.optional("go_out").opt(_Reader.boolean) or False
            action = Discard(card, go_out, a.optional("pile").opt(_Reader.integer))
        else:
            action = LayOff(card, a.at("seat").integer(), a.at("meld").integer())
    else:
        a.at("type").fail(f"expected 'draw', 'discard', 'lay_off' or 'call_end', not {kind!r}")
    return action


def _result_in(r: _Reader, round_number: int) -> RoundResult:
    scores = tuple(
        SeatResult(
            s.at("seat").integer(),
            tuple(_meld_in(m) for m in s.at("melds").items()),
            s.at("deadwood").cards(),
            s.at("points").integer(),
        )
        for s in r.at("scores").items()
    )
    out = r.at("out_seat").opt(_Reader.integer)
    outs = r.optional("out_seats").opt(_Reader.ints)
    return RoundResult(
        round_number,
        out,
        scores,
        replayed=r.at("replayed").boolean(),
        tiebreak=r.at("tiebreak").boolean(),
        out_seats=(() if out is None else (out,)) if outs is None else outs,
    )


def _meld_in(m: _Reader) -> Meld:
    kind = m.at("kind").text()
    if kind not in _KINDS:
        m.at("kind").fail("expected 'set' or 'run'")
    cards = m.at("cards").cards()
    stands = tuple(s.opt(_Reader.card) for s in m.at("stands_for").items())
    if len(stands) != len(cards):
        m.at("stands_for").fail("one entry per card")
    return Meld("set" if kind == "set" else "run", cards, stands)


_KINDS: Final = ("set", "run")

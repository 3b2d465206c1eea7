"""Each value of a stored game as plain JSON lists and back (``engine.game.serialised`` puts them
together): melds, round results, actions, a speed game's call, rules, records; and the checks that
what is read back is a whole, consistent game.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from engine.analysis import Meld
from engine.cards import JOKER, Card
from engine.errors import EngineError, StateFormatError
from engine.game.actions import (
    CALL_TIMEOUT,
    CHOSEN,
    DISCARD_DRAW,
    DISCARDS,
    GO_OUTS,
    STOCK_DRAW,
    Action,
    CallEnd,
    CallTimeout,
    Chosen,
    Discard,
    Draw,
    EndLayOff,
    LayOff,
    Move,
    Phase,
)
from engine.game.state import RECORD_CHUNK, GameState, Record, RoundResult, SeatResult
from engine.rules import Rules

# -- out ------------------------------------------------------------------------------------------


def meld_out(meld: Meld) -> list[Any]:
    return [meld.kind, list(meld.cards), list(meld.stands_for)]


def round_out(result: RoundResult) -> dict[str, Any]:
    # Written only where it says more than ``out_seat`` (several went out on one call).
    out_seats = result.out_seats
    more = {} if out_seats == _out_seats_of(result.out_seat) else {"out_seats": out_seats}
    return {
        **more,
        "round": result.round,
        "out_seat": result.out_seat,
        "replayed": result.replayed,
        "tiebreak": result.tiebreak,
        "results": [
            [r.seat, [meld_out(m) for m in r.melds], list(r.deadwood), r.points]
            for r in result.results
        ],
    }


def action_out(action: Action) -> list[Any]:
    match action:
        case Discard(card, go_out, None):
            return ["discard", card, go_out]
        case Discard(card, go_out, pile):
            return ["discard", card, go_out, pile]
        case CallEnd(number, phase, moves, timed_out):
            out = [[m.seat, action_out(m.action), m.card] for m in moves]
            return ["call_end", number, phase.value, timed_out, out]
        case CallTimeout():
            return ["call_timeout"]
        case Chosen():
            return ["chosen"]
        case Draw(source, pile):
            return ["draw", source, pile]
        case LayOff(card, seat, meld):
            return ["lay_off", card, seat, meld]
        case EndLayOff():
            return ["end_lay_off"]
    raise AssertionError(action)  # pragma: no cover


# -- in -------------------------------------------------------------------------------------------


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise StateFormatError(f"stored game state is damaged: expected an integer, not {value!r}")
    return value


def _opt_int(value: object) -> int | None:
    return None if value is None else _int(value)


def ints(values: object) -> tuple[int, ...]:
    # One pass in C over the types first; the other path names what is wrong.
    if type(values) is list and set(map(type, values)) <= _JUST_INT:
        return tuple(values)
    if not isinstance(values, list):
        raise StateFormatError(f"stored game state is damaged: expected a list, not {values!r}")
    return tuple(_int(v) for v in values)


_JUST_INT: Final = frozenset((int,))


def _lists(values: object) -> list[Any]:
    if not isinstance(values, list):
        raise StateFormatError(f"stored game state is damaged: expected a list, not {values!r}")
    return values


def _meld_in(raw: object) -> Meld:
    kind, cards, stands = _lists(raw)
    if kind not in ("set", "run"):
        raise StateFormatError(f"stored game state is damaged: meld kind {kind!r}")
    return Meld(kind, ints(cards), tuple(_opt_int(s) for s in _lists(stands)))


def round_in(raw: dict[str, Any]) -> RoundResult:
    results = tuple(
        SeatResult(
            _int(seat),
            tuple(_meld_in(m) for m in _lists(melds)),
            ints(deadwood),
            _int(points),
        )
        for seat, melds, deadwood, points in _lists(raw["results"])
    )
    out_seat = _opt_int(raw["out_seat"])
    out_seats = raw.get("out_seats")
    return RoundResult(
        _int(raw["round"]),
        out_seat,
        results,
        replayed=bool(raw["replayed"]),
        tiebreak=bool(raw["tiebreak"]),
        out_seats=_out_seats_of(out_seat) if out_seats is None else ints(out_seats),
    )


def _out_seats_of(out_seat: int | None) -> tuple[int, ...]:
    return () if out_seat is None else (out_seat,)


def _action_in(raw: object) -> Action:
    shared = _shared_action_in(raw)
    if shared is not None:
        return shared
    tag, *rest = _lists(raw)
    match tag, rest:
        case "draw", [source, pile] if source in ("stock", "discard"):
            return Draw(source, _opt_int(pile))
        case "discard", [card, bool() as go_out]:
            return Discard(_int(card), go_out)
        case "discard", [card, bool() as go_out, pile]:
            return Discard(_int(card), go_out, _int(pile))
        case "call_end", [number, phase, bool() as timed_out, moves]:
            return CallEnd(_int(number), Phase(phase), _moves_in(moves), timed_out)
        case "call_timeout", []:
            return CALL_TIMEOUT
        case "chosen", []:
            return CHOSEN
        case "lay_off", [card, seat, meld]:
            return LayOff(_int(card), _int(seat), _int(meld))
        case "end_lay_off", []:
            return EndLayOff()
    raise StateFormatError(f"stored game state is damaged: unknown action {raw!r}")


def _shared_action_in(raw: object) -> Action | None:
    """Most records draw from the stock or discard: read back as the actions made once."""
    if type(raw) is list and len(raw) == 3:
        tag, first, second = raw
        if tag == "discard" and type(first) is int and 0 <= first <= JOKER:
            if second is True:
                return GO_OUTS[first]
            if second is False:
                return DISCARDS[first]
        elif tag == "draw" and second is None:
            if first == "stock":
                return STOCK_DRAW
            if first == "discard":
                return DISCARD_DRAW
    return None


def _moves_in(raw: object) -> tuple[Move, ...]:
    moves = []
    for seat, action, card in _lists(raw):
        choice = _action_in(action)
        if not isinstance(choice, Draw | Discard):
            raise StateFormatError(f"stored game state is damaged: a call's move {action!r}")
        moves.append(Move(_int(seat), choice, _opt_int(card)))
    return tuple(moves)


def speed_out(state: GameState) -> dict[str, Any]:
    """A speed game's own fields (none in a game played in turns)."""
    if not state.choices:
        return {}
    choices = [None if c is None else action_out(c) for c in state.choices]
    return {
        "speed": {
            "choices": choices,
            "calls": state.calls,
            "drawn": state.drawn,
            "upcards": state.upcards,
            "out_seats": state.out_seats,
        }
    }


def _speed_in(raw: object) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise StateFormatError(f"stored game state is damaged: speed {raw!r}")
    choices = []
    for c in _lists(raw["choices"]):
        choice = None if c is None else _action_in(c)
        if not (choice is None or isinstance(choice, Draw | Discard)):
            raise StateFormatError(f"stored game state is damaged: a choice {c!r}")
        choices.append(choice)
    return {
        "choices": tuple(choices),
        "calls": _int(raw["calls"]),
        "drawn": tuple(_opt_int(c) for c in _lists(raw["drawn"])),
        "upcards": tuple(_opt_int(c) for c in _lists(raw["upcards"])),
        "out_seats": ints(raw["out_seats"]),
    }


def checked_state(raw: dict[str, Any]) -> GameState:
    """``_state_in``, with any damage to the stored data reported as ``StateFormatError``."""
    try:
        return _state_in(raw)
    except StateFormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, EngineError) as error:
        raise StateFormatError(f"stored game state is damaged: {error!r}") from None


def _state_in(raw: dict[str, Any]) -> GameState:
    players = tuple(raw["players"])
    if not all(isinstance(p, str) for p in players):
        raise StateFormatError("stored game state is damaged: a player's name is not text")
    status = raw["status"]
    if status not in ("playing", "finished"):
        raise StateFormatError(f"stored game state is damaged: status {status!r}")
    winners = raw["winners"]
    last_round = raw["last_round"]
    return GameState(
        rules=_rules_in(raw["rules"]),
        players=players,
        seed=_opt_int(raw["seed"]),
        first_dealer=_int(raw["first_dealer"]),
        version=_int(raw["version"]),
        status=status,
        round=_int(raw["round"]),
        wild=_int(raw["wild"]),
        deal=_int(raw["deal"]),
        dealer=_int(raw["dealer"]),
        active=ints(raw["active"]),
        turn=_int(raw["turn"]),
        phase=Phase(raw["phase"]),
        hands=tuple(ints(h) for h in _lists(raw["hands"])),
        stock=ints(raw["stock"]),
        piles=tuple(ints(p) for p in _lists(raw["piles"])),
        upcard=_opt_int(raw["upcard"]),
        turns_done=_int(raw["turns_done"]),
        out_seat=_opt_int(raw["out_seat"]),
        last_turns=_int(raw["last_turns"]),
        table=tuple(tuple(_meld_in(m) for m in _lists(melds)) for melds in _lists(raw["table"])),
        penalties=ints(raw["penalties"]),
        round_scores=tuple(ints(s) for s in _lists(raw["round_scores"])),
        last_round=None if last_round is None else round_in(last_round),
        winners=None if winners is None else ints(winners),
        records=records_in(raw["history"]),
        shuffles=tuple(ints(p) for p in _lists(raw["shuffles"])),
        pending=tuple(ints(p) for p in _lists(raw["pending"])),
        **_speed_in(raw.get("speed")),
        deals=tuple((_int(r), ints(p)) for r, p in _lists(raw.get("deals", []))),
        results=tuple(round_in(r) for r in _lists(raw.get("results", []))),
    )


def _rules_in(spec: object) -> Rules:
    """The rules of a stored spec (every field, as ``Rules.to_spec`` writes them). Each game
    loaded checks its rules again, so the values are kept by spec: a few dozen fields' checks,
    for a ``repr`` and a dictionary lookup. (``repr``: JSON's values print apart where they
    compare equal, such as ``true`` and ``1``, and a damaged spec must fail its checks.)"""
    key = repr(spec)
    kept = _RULES_OF_SPEC.get(key)
    if kept is None:
        if not isinstance(spec, dict):
            raise StateFormatError(f"stored game state is damaged: rules {spec!r}")
        kept = Rules.from_spec(spec)  # its error is raised again each time, never kept
        if len(_RULES_OF_SPEC) < _RULES_KEPT:
            _RULES_OF_SPEC[key] = kept
    return kept


_RULES_OF_SPEC: Final[dict[str, Rules]] = {}
_RULES_KEPT: Final = 256


def records_in(raw: object) -> tuple[tuple[Record, ...], ...]:
    # (Hundreds of records a game, read whenever another instance wrote it last: the functions
    # as locals, and each record made as Record._make makes it, without the call: a quarter
    # less time than calling Record.)
    records: list[Record] = []
    append, new, action_in = records.append, tuple.__new__, _action_in
    for seat, action, card, deal in _lists(raw):
        if (
            type(seat) is not int
            or type(deal) is not int
            or not (card is None or type(card) is int)
        ):
            # JSON holds no other kind of int: one of them is not an integer, named here.
            _int(seat)
            _opt_int(card)
            _int(deal)
        append(new(Record, (seat, action_in(action), card, deal)))
    return tuple(tuple(records[i : i + RECORD_CHUNK]) for i in range(0, len(records), RECORD_CHUNK))


def check_pack(state: GameState) -> None:
    """Every card of the pack in exactly one place: hands, stock, discard piles, table."""
    n = len(state.players)
    per_seat = (state.hands, state.round_scores, state.table)
    speed = (state.choices, state.drawn, state.upcards) if state.choices else ()
    if any(len(field) != n for field in (*per_seat, *speed)):
        raise StateFormatError("stored game state is damaged: per-seat fields disagree in length")
    placed: list[Card] = [*state.stock]
    for cards in (*state.hands, *state.piles):
        placed += cards
    for melds in state.table:
        for meld in melds:
            placed += meld.cards
    if Counter(placed) != Counter(state.rules.pack(n)):
        raise StateFormatError("stored game state is damaged: its cards are not the whole pack")

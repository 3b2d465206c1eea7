"""The state as bytes and back: compact JSON of plain lists, with a format version.

Stored games must survive upgrades of the code, so the format is explicit (no pickle): every
field by name, cards as ints, actions as short tagged lists. ``loads`` reads every format
version this code knows (so far: 1) and checks that the pack is whole.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeVar

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

FORMAT = 1
_Kept = TypeVar("_Kept")


def dumps(state: GameState) -> bytes:
    # The history and the packs dealt, most of a long game's bytes, never change once written:
    # a full chunk of records and a pack are kept as text (see _kept_json), so an action writes
    # at most its last chunk anew, and a new deal its pack.
    history = ",".join([_chunk_json(chunk) for chunk in state.records if chunk])
    shuffles = ",".join([_kept_json(pack, _json) for pack in state.shuffles])
    return _assembled(state, history, shuffles, "")


class Sealed(NamedTuple):
    """How much of a state's history lives apart from its head (see ``dumps_parts``): its first
    ``chunks`` chunks of records (full ones) and its first ``packs`` packs dealt."""

    chunks: int
    packs: int


class StateParts(NamedTuple):
    head: bytes
    """The state without its sealed chunks and packs: a bounded size however long the game."""
    chunks: tuple[str, ...]
    """The JSON of each chunk sealed since the ``Sealed`` given (comma-separated records)."""
    packs: tuple[str, ...]
    """The JSON array of each pack dealt since the ``Sealed`` given."""


def sealed_of(state: GameState) -> Sealed:
    """What ``dumps_parts`` seals of ``state``: every full chunk of records, every pack."""
    records = state.records
    full = len(records) - (1 if records and len(records[-1]) < RECORD_CHUNK else 0)
    return Sealed(full, len(state.shuffles))


def dumps_parts(state: GameState, before: Sealed) -> StateParts:
    """The state as a head of bounded size and the parts sealed since ``before`` (what an
    earlier state of the same game had sealed): a store appends the parts to what it keeps of
    the game and replaces the head, so an action writes a few hundred bytes, not the whole
    history. ``loads_parts`` reads them back."""
    sealed = sealed_of(state)
    tail = state.records[sealed.chunks :]
    history = ",".join([_records_json(chunk) for chunk in tail if chunk])
    chunks = tuple(_chunk_json(c) for c in state.records[before.chunks : sealed.chunks])
    packs = tuple(_kept_json(p, _json) for p in state.shuffles[before.packs : sealed.packs])
    extra = f',"sealed":[{sealed.chunks},{sealed.packs}]'
    return StateParts(_assembled(state, history, "", extra), chunks, packs)


def loads_parts(
    head: bytes, chunks: Sequence[tuple[Record, ...]], packs: Sequence[tuple[Card, ...]]
) -> GameState:
    """The state of a head from ``dumps_parts`` and the chunks and packs it sealed, decoded
    (``chunk_in``, ``pack_in``, or taken from an earlier state of the game), in order. Parts
    past those the head sealed (appended by a later state, read along with it) are left out."""
    raw = _raw(head)
    sealed = raw.get("sealed")
    if not (
        isinstance(sealed, list)
        and len(sealed) == 2  # chunks and packs
        and all(type(n) is int for n in sealed)
        and sealed[0] <= len(chunks)
        and sealed[1] <= len(packs)
    ):
        raise StateFormatError(
            f"stored game state seals {sealed!r} chunks and packs, given {len(chunks)} and "
            f"{len(packs)}"
        )
    chunks, packs = chunks[: sealed[0]], packs[: sealed[1]]
    state = _checked_state(raw)
    fields = dict(state.__dict__)
    fields["records"] = (*chunks, *state.records)
    fields["shuffles"] = (*packs, *state.shuffles)
    whole = GameState(**fields)
    _check_pack(whole)
    return whole


def chunk_in(text: bytes) -> tuple[Record, ...]:
    """A sealed chunk of records (``StateParts.chunks``)."""
    records = _records_in(_parsed(b"[" + text + b"]"))
    if len(records) != 1 or len(records[0]) != RECORD_CHUNK:
        raise StateFormatError("stored game state is damaged: a sealed chunk is not full")
    return records[0]


def pack_in(text: bytes) -> tuple[Card, ...]:
    """A sealed pack (``StateParts.packs``)."""
    return _ints(_parsed(text))


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, TypeError) as error:
        raise StateFormatError(f"stored game state is not JSON: {error}") from None


def _chunk_json(chunk: tuple[Record, ...]) -> str:
    return _kept_json(chunk, _records_json) if len(chunk) == RECORD_CHUNK else _records_json(chunk)


def _assembled(state: GameState, history: str, shuffles: str, extra: str) -> bytes:
    # Tuples are written as JSON arrays, like lists. (The format and the rules come first, the
    # rules' text kept: see _kept_json.)
    head = {
        "players": state.players,
        "seed": state.seed,
        "first_dealer": state.first_dealer,
        "version": state.version,
        "status": state.status,
        "round": state.round,
        "wild": state.wild,
        "deal": state.deal,
        "dealer": state.dealer,
        "active": state.active,
        "turn": state.turn,
        "phase": state.phase.value,
        "hands": state.hands,
        "stock": state.stock,
        "piles": state.piles,
        "upcard": state.upcard,
        "turns_done": state.turns_done,
        "out_seat": state.out_seat,
        "last_turns": state.last_turns,
        "table": [[_meld_out(m) for m in melds] for melds in state.table],
        "penalties": state.penalties,
        "round_scores": state.round_scores,
        "last_round": None if state.last_round is None else _round_out(state.last_round),
        "winners": state.winners,
        **_speed_out(state),
    }
    pending = ",".join([_kept_json(pack, _json) for pack in state.pending])
    rules = _kept_json(state.rules, _rules_json)
    # Given deals only where a game has them: every other game's bytes stay as they were.
    deals = f',"deals":{_kept_json(state.deals, _json)}' if state.deals else ""
    return (
        f'{{"format":{FORMAT},"rules":{rules},{_json(head)[1:-1]},"history":[{history}],'
        f'"shuffles":[{shuffles}],"pending":[{pending}]{deals}{extra}}}'
    ).encode()


def _rules_json(rules: Rules) -> str:
    return _json(rules.to_spec())


def _records_json(chunk: tuple[Record, ...]) -> str:
    """Records as JSON arrays, comma-separated: the same bytes as the json module writes, for a
    third of what it takes over so many short lists."""
    shared = _SHARED_ACTIONS_JSON.get
    return ",".join(
        [
            f"[{seat},{shared(id(action)) or _json(_action_out(action))},"
            f"{'null' if card is None else card},{deal}]"
            for seat, action, card, deal in chunk
        ]
    )


def _kept_json(value: _Kept, write: Callable[[_Kept], str]) -> str:
    """``write(value)`` for a value every later state of its game shares (and a frozen one at
    that), kept by identity, holding the value so that its id stays its own."""
    kept = _KEPT_JSON.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    text = write(value)
    # Emptied whole when full: rarely, and safe beside another thread (evicting the oldest
    # would iterate the dictionary).
    if len(_KEPT_JSON) >= _KEPT:
        _KEPT_JSON.clear()
    _KEPT_JSON[id(value)] = (value, text)
    return text


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def loads(data: bytes) -> GameState:
    """The state ``dumps`` wrote, exactly; ``StateFormatError`` for anything else."""
    raw = _raw(data)
    if "sealed" in raw:
        raise StateFormatError("stored game state is a head of parts: read it with loads_parts")
    state = _checked_state(raw)
    _check_pack(state)
    return state


def _raw(data: bytes) -> dict[str, Any]:
    raw = _parsed(data)
    if not isinstance(raw, dict):
        raise StateFormatError("stored game state must be a JSON object")
    version = raw.get("format")
    if version != FORMAT:
        raise StateFormatError(
            f"stored game state has format {version!r}: this code reads format {FORMAT}"
        )
    return raw


# -- out ------------------------------------------------------------------------------------------


def _meld_out(meld: Meld) -> list[Any]:
    return [meld.kind, list(meld.cards), list(meld.stands_for)]


def _round_out(result: RoundResult) -> dict[str, Any]:
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
            [r.seat, [_meld_out(m) for m in r.melds], list(r.deadwood), r.points]
            for r in result.results
        ],
    }


def _action_out(action: Action) -> list[Any]:
    match action:
        case Discard(card, go_out, None):
            return ["discard", card, go_out]
        case Discard(card, go_out, pile):
            return ["discard", card, go_out, pile]
        case CallEnd(number, phase, moves, timed_out):
            out = [[m.seat, _action_out(m.action), m.card] for m in moves]
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


_KEPT_JSON: Final[dict[int, tuple[object, str]]] = {}
_KEPT: Final = 4096
"""Texts kept: rules, and the full chunks of 64 records and the packs dealt of several hundred
long games (a game of two players holds about seven chunks and eleven packs). What is kept stays
alive with it: tens of MB at most."""

_SHARED_ACTIONS: Final[tuple[Action, ...]] = (*DISCARDS, *GO_OUTS, STOCK_DRAW, DISCARD_DRAW)
_SHARED_ACTIONS_JSON: Final = {id(action): _json(_action_out(action)) for action in _SHARED_ACTIONS}
"""The JSON of the actions ``engine.game.actions`` makes once, by identity (they live as long as
the process): legal_actions lists them and loads reads them back, so most records hold one."""


# -- in -------------------------------------------------------------------------------------------


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise StateFormatError(f"stored game state is damaged: expected an integer, not {value!r}")
    return value


def _opt_int(value: object) -> int | None:
    return None if value is None else _int(value)


def _ints(values: object) -> tuple[int, ...]:
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
    return Meld(kind, _ints(cards), tuple(_opt_int(s) for s in _lists(stands)))


def _round_in(raw: dict[str, Any]) -> RoundResult:
    results = tuple(
        SeatResult(
            _int(seat),
            tuple(_meld_in(m) for m in _lists(melds)),
            _ints(deadwood),
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
        out_seats=_out_seats_of(out_seat) if out_seats is None else _ints(out_seats),
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


def _speed_out(state: GameState) -> dict[str, Any]:
    """A speed game's own fields (none in a game played in turns)."""
    if not state.choices:
        return {}
    choices = [None if c is None else _action_out(c) for c in state.choices]
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
        "out_seats": _ints(raw["out_seats"]),
    }


def _checked_state(raw: dict[str, Any]) -> GameState:
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
        active=_ints(raw["active"]),
        turn=_int(raw["turn"]),
        phase=Phase(raw["phase"]),
        hands=tuple(_ints(h) for h in _lists(raw["hands"])),
        stock=_ints(raw["stock"]),
        piles=tuple(_ints(p) for p in _lists(raw["piles"])),
        upcard=_opt_int(raw["upcard"]),
        turns_done=_int(raw["turns_done"]),
        out_seat=_opt_int(raw["out_seat"]),
        last_turns=_int(raw["last_turns"]),
        table=tuple(tuple(_meld_in(m) for m in _lists(melds)) for melds in _lists(raw["table"])),
        penalties=_ints(raw["penalties"]),
        round_scores=tuple(_ints(s) for s in _lists(raw["round_scores"])),
        last_round=None if last_round is None else _round_in(last_round),
        winners=None if winners is None else _ints(winners),
        records=_records_in(raw["history"]),
        shuffles=tuple(_ints(p) for p in _lists(raw["shuffles"])),
        pending=tuple(_ints(p) for p in _lists(raw["pending"])),
        **_speed_in(raw.get("speed")),
        deals=tuple((_int(r), _ints(p)) for r, p in _lists(raw.get("deals", []))),
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


def _records_in(raw: object) -> tuple[tuple[Record, ...], ...]:
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


def _check_pack(state: GameState) -> None:
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

"""The state as bytes and back: compact JSON of plain lists, with a format version.

Stored games must survive upgrades of the code, so the format is explicit (no pickle): every
field by name, cards as ints, actions as short tagged lists. ``loads`` reads every format
version this code knows (so far: 1) and checks that the pack is whole.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from engine.analysis import Meld
from engine.cards import Card
from engine.errors import EngineError, StateFormatError
from engine.game.actions import Action, Discard, Draw, EndLayOff, LayOff, Phase
from engine.game.state import RECORD_CHUNK, GameState, Record, RoundResult, SeatResult
from engine.rules import Rules

FORMAT = 1


def dumps(state: GameState) -> bytes:
    data = {
        "format": FORMAT,
        "rules": state.rules.to_spec(),
        "players": list(state.players),
        "seed": state.seed,
        "first_dealer": state.first_dealer,
        "version": state.version,
        "status": state.status,
        "round": state.round,
        "wild": state.wild,
        "deal": state.deal,
        "dealer": state.dealer,
        "active": list(state.active),
        "turn": state.turn,
        "phase": state.phase.value,
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "piles": [list(p) for p in state.piles],
        "upcard": state.upcard,
        "turns_done": state.turns_done,
        "out_seat": state.out_seat,
        "last_turns": state.last_turns,
        "table": [[_meld_out(m) for m in melds] for melds in state.table],
        "penalties": list(state.penalties),
        "round_scores": [list(s) for s in state.round_scores],
        "last_round": None if state.last_round is None else _round_out(state.last_round),
        "winners": None if state.winners is None else list(state.winners),
        "history": [[r.seat, _action_out(r.action), r.card, r.deal] for r in state.history],
        "shuffles": [list(p) for p in state.shuffles],
        "pending": [list(p) for p in state.pending],
    }
    return json.dumps(data, separators=(",", ":")).encode()


def loads(data: bytes) -> GameState:
    """The state ``dumps`` wrote, exactly; ``StateFormatError`` for anything else."""
    try:
        raw = json.loads(data)
    except (ValueError, TypeError) as error:
        raise StateFormatError(f"stored game state is not JSON: {error}") from None
    if not isinstance(raw, dict):
        raise StateFormatError("stored game state must be a JSON object")
    version = raw.get("format")
    if version != FORMAT:
        raise StateFormatError(
            f"stored game state has format {version!r}: this code reads format {FORMAT}"
        )
    try:
        state = _state_in(raw)
    except StateFormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, EngineError) as error:
        raise StateFormatError(f"stored game state is damaged: {error!r}") from None
    _check_pack(state)
    return state


# -- out ------------------------------------------------------------------------------------------


def _meld_out(meld: Meld) -> list[Any]:
    return [meld.kind, list(meld.cards), list(meld.stands_for)]


def _round_out(result: RoundResult) -> dict[str, Any]:
    return {
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
        case Draw(source, pile):
            return ["draw", source, pile]
        case Discard(card, go_out):
            return ["discard", card, go_out]
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


def _ints(values: object) -> tuple[int, ...]:
    if not isinstance(values, list):
        raise StateFormatError(f"stored game state is damaged: expected a list, not {values!r}")
    return tuple(_int(v) for v in values)


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
    return RoundResult(
        _int(raw["round"]),
        _opt_int(raw["out_seat"]),
        results,
        replayed=bool(raw["replayed"]),
        tiebreak=bool(raw["tiebreak"]),
    )


def _action_in(raw: object) -> Action:
    tag, *rest = _lists(raw)
    match tag, rest:
        case "draw", [source, pile] if source in ("stock", "discard"):
            return Draw(source, _opt_int(pile))
        case "discard", [card, bool() as go_out]:
            return Discard(_int(card), go_out)
        case "lay_off", [card, seat, meld]:
            return LayOff(_int(card), _int(seat), _int(meld))
        case "end_lay_off", []:
            return EndLayOff()
    raise StateFormatError(f"stored game state is damaged: unknown action {raw!r}")


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
        rules=Rules.from_spec(raw["rules"]),
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
        records=_chunked(
            [
                Record(_int(seat), _action_in(action), _opt_int(card), _int(deal))
                for seat, action, card, deal in _lists(raw["history"])
            ]
        ),
        shuffles=tuple(_ints(p) for p in _lists(raw["shuffles"])),
        pending=tuple(_ints(p) for p in _lists(raw["pending"])),
    )


def _chunked(records: list[Record]) -> tuple[tuple[Record, ...], ...]:
    return tuple(tuple(records[i : i + RECORD_CHUNK]) for i in range(0, len(records), RECORD_CHUNK))


def _check_pack(state: GameState) -> None:
    """Every card of the pack in exactly one place: hands, stock, discard piles, table."""
    n = len(state.players)
    if len(state.hands) != n or len(state.round_scores) != n or len(state.table) != n:
        raise StateFormatError("stored game state is damaged: per-seat fields disagree in length")
    placed: list[Card] = [*state.stock]
    for cards in (*state.hands, *state.piles):
        placed += cards
    for melds in state.table:
        for meld in melds:
            placed += meld.cards
    if Counter(placed) != Counter(state.rules.pack(n)):
        raise StateFormatError("stored game state is damaged: its cards are not the whole pack")

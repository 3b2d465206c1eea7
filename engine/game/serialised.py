"""The state as bytes and back: compact JSON of plain lists, with a format version.

Stored games must survive upgrades of the code, so the format is explicit (no pickle): every
field by name, cards as ints, actions as short tagged lists. ``loads`` reads every format
version this code knows (so far: 1) and checks that the pack is whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeVar

from engine.cards import Card
from engine.errors import StateFormatError
from engine.game import stored_json
from engine.game.actions import DISCARD_DRAW, DISCARDS, GO_OUTS, STOCK_DRAW, Action
from engine.game.state import RECORD_CHUNK, GameState, Record, RoundResult
from engine.rules import Rules

FORMAT = 1
_Kept = TypeVar("_Kept")


def dumps(state: GameState) -> bytes:
    # The history and the packs dealt, most of a long game's bytes, never change once written:
    # a full chunk of records and a pack are kept as text (see _kept_json), so an action writes
    # at most its last chunk anew, and a new deal its pack.
    history = ",".join([_chunk_json(chunk) for chunk in state.records if chunk])
    shuffles = ",".join([_kept_json(pack, _json) for pack in state.shuffles])
    results = ",".join([_kept_json(result, _result_json) for result in state.results])
    return _assembled(state, history, shuffles, results, "")


class Sealed(NamedTuple):
    """How much of a state's history lives apart from its head (see ``dumps_parts``): its first
    ``chunks`` chunks of records (full ones), its first ``packs`` packs dealt and its first
    ``results`` deals' results."""

    chunks: int
    packs: int
    results: int = 0


class StateParts(NamedTuple):
    head: bytes
    """The state without its sealed chunks and packs: a bounded size however long the game."""
    chunks: tuple[str, ...]
    """The JSON of each chunk sealed since the ``Sealed`` given (comma-separated records)."""
    packs: tuple[str, ...]
    """The JSON array of each pack dealt since the ``Sealed`` given."""
    results: tuple[str, ...] = ()
    """The JSON object of each deal's result since the ``Sealed`` given."""


def sealed_of(state: GameState) -> Sealed:
    """What ``dumps_parts`` seals of ``state``: every full chunk of records, every pack, every
    result."""
    records = state.records
    full = len(records) - (1 if records and len(records[-1]) < RECORD_CHUNK else 0)
    return Sealed(full, len(state.shuffles), len(state.results))


def dumps_parts(state: GameState, before: Sealed) -> StateParts:
    """The state as a head of bounded size and the parts sealed since ``before`` (what an
    earlier state of the same game had sealed): a store appends the parts to what it keeps of
    the game and replaces the head, so an action writes a few hundred bytes, not the whole
    history. ``loads_parts`` reads them back."""
    sealed = sealed_of(state)
    tail = state.records[sealed.chunks :]
    history = ",".join([_filling_json(chunk) for chunk in tail if chunk])
    chunks = tuple(_chunk_json(c) for c in state.records[before.chunks : sealed.chunks])
    packs = tuple(_kept_json(p, _json) for p in state.shuffles[before.packs : sealed.packs])
    results = tuple(_result_json(r) for r in state.results[before.results : sealed.results])
    extra = f',"sealed":[{sealed.chunks},{sealed.packs},{sealed.results}]'
    return StateParts(_assembled(state, history, "", "", extra), chunks, packs, results)


def loads_parts(
    head: bytes,
    chunks: Sequence[tuple[Record, ...]],
    packs: Sequence[tuple[Card, ...]],
    results: Sequence[RoundResult] = (),
) -> GameState:
    """The state of a head from ``dumps_parts`` and the chunks, packs and results it sealed,
    decoded (``chunk_in``, ``pack_in``, ``result_in``, or taken from an earlier state of the
    game), in order. Parts past those the head sealed (appended by a later state, read along
    with it) are left out. A head written before results were sealed seals chunks and packs
    only: its state holds no results of the deals before it."""
    raw = _raw(head)
    sealed = raw.get("sealed")
    given = (len(chunks), len(packs), len(results))
    if not (
        isinstance(sealed, list)
        and len(sealed) in (len(Sealed._fields) - 1, len(Sealed._fields))  # results or not
        and all(type(n) is int and n <= held for n, held in zip(sealed, given, strict=False))
    ):
        raise StateFormatError(
            f"stored game state seals {sealed!r} chunks, packs and results, given {given}"
        )
    counts = Sealed(*sealed)
    chunks, packs = chunks[: counts.chunks], packs[: counts.packs]
    results = results[: counts.results]
    state = stored_json.checked_state(raw)
    fields = dict(state.__dict__)
    fields["records"] = (*chunks, *state.records)
    fields["shuffles"] = (*packs, *state.shuffles)
    fields["results"] = (*results, *state.results)
    whole = GameState(**fields)
    stored_json.check_pack(whole)
    return whole


def chunk_in(text: bytes) -> tuple[Record, ...]:
    """A sealed chunk of records (``StateParts.chunks``)."""
    records = stored_json.records_in(_parsed(b"[" + text + b"]"))
    if len(records) != 1 or len(records[0]) != RECORD_CHUNK:
        raise StateFormatError("stored game state is damaged: a sealed chunk is not full")
    return records[0]


def pack_in(text: bytes) -> tuple[Card, ...]:
    """A sealed pack (``StateParts.packs``)."""
    return stored_json.ints(_parsed(text))


def result_in(text: bytes) -> RoundResult:
    """A sealed deal's result (``StateParts.results``)."""
    raw = _parsed(text)
    if not isinstance(raw, dict):
        raise StateFormatError("stored game state is damaged: a sealed result is not an object")
    try:
        return stored_json.round_in(raw)
    except (KeyError, TypeError, ValueError) as error:
        raise StateFormatError(f"stored game state is damaged: {error!r}") from None


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, TypeError) as error:
        raise StateFormatError(f"stored game state is not JSON: {error}") from None


def _chunk_json(chunk: tuple[Record, ...]) -> str:
    return _kept_json(chunk, _records_json) if len(chunk) == RECORD_CHUNK else _records_json(chunk)


def _assembled(state: GameState, history: str, shuffles: str, results: str, extra: str) -> bytes:
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
        "table": [[stored_json.meld_out(m) for m in melds] for melds in state.table],
        "penalties": state.penalties,
        "round_scores": state.round_scores,
        "last_round": None if state.last_round is None else stored_json.round_out(state.last_round),
        "winners": state.winners,
        **stored_json.speed_out(state),
    }
    pending = ",".join([_kept_json(pack, _json) for pack in state.pending])
    rules = _kept_json(state.rules, _rules_json)
    # Given deals only where a game has them: every other game's bytes stay as they were.
    deals = f',"deals":{_kept_json(state.deals, _json)}' if state.deals else ""
    return (
        f'{{"format":{FORMAT},"rules":{rules},{_json(head)[1:-1]},"history":[{history}],'
        f'"shuffles":[{shuffles}],"pending":[{pending}]{deals},"results":[{results}]{extra}}}'
    ).encode()


def _rules_json(rules: Rules) -> str:
    return _json(rules.to_spec())


def _result_json(result: RoundResult) -> str:
    return _json(stored_json.round_out(result))


def _records_json(chunk: tuple[Record, ...]) -> str:
    """Records as JSON arrays, comma-separated: the same bytes as the json module writes, for a
    third of what it takes over so many short lists."""
    shared = _SHARED_ACTIONS_JSON.get
    return ",".join(
        [
            f"[{seat},{shared(id(action)) or _json(stored_json.action_out(action))},"
            f"{'null' if card is None else card},{deal}]"
            for seat, action, card, deal in chunk
        ]
    )


def _filling_json(chunk: tuple[Record, ...]) -> str:
    """``_records_json`` of the chunk still filling, which every action of a game writes anew:
    the text of the same chunk one record shorter, as an earlier state of the game wrote it,
    and the new record's. A record is made once, by the action that appends it (``recorded``),
    so the records before it are the same in every chunk that holds it: the text is kept by
    the chunk's last record, holding it so that its id stays its own."""
    last = chunk[-1]
    shorter = _FILLING_JSON.get(id(chunk[-2])) if len(chunk) > 1 else None
    if shorter is not None and shorter[0] is chunk[-2]:
        text = f"{shorter[1]},{_records_json((last,))}"
    else:
        text = _records_json(chunk)
    if len(_FILLING_JSON) >= _KEPT:  # emptied whole when full, as _KEPT_JSON
        _FILLING_JSON.clear()
    _FILLING_JSON[id(last)] = (last, text)
    return text


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


_KEPT_JSON: Final[dict[int, tuple[object, str]]] = {}
_KEPT: Final = 4096
"""Texts kept: rules, and the full chunks of 64 records and the packs dealt of several hundred
long games (a game of two players holds about seven chunks and eleven packs). What is kept stays
alive with it: tens of MB at most."""

_FILLING_JSON: Final[dict[int, tuple[Record, str]]] = {}
"""The text of the records of a chunk still filling, by its last record (``_filling_json``): a
game's last few states' each, some kilobytes a game in play."""

_SHARED_ACTIONS: Final[tuple[Action, ...]] = (*DISCARDS, *GO_OUTS, STOCK_DRAW, DISCARD_DRAW)
_SHARED_ACTIONS_JSON: Final = {
    id(action): _json(stored_json.action_out(action)) for action in _SHARED_ACTIONS
}
"""The JSON of the actions ``engine.game.actions`` makes once, by identity (they live as long as
the process): legal_actions lists them and loads reads them back, so most records hold one."""


def loads(data: bytes) -> GameState:
    """The state ``dumps`` wrote, exactly; ``StateFormatError`` for anything else."""
    raw = _raw(data)
    if "sealed" in raw:
        raise StateFormatError("stored game state is a head of parts: read it with loads_parts")
    state = stored_json.checked_state(raw)
    stored_json.check_pack(state)
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

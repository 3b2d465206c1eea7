"""New states made cheaply: a game applies thousands of actions, and each makes a new frozen
``GameState``. Also the small checks every phase shares."""

from __future__ import annotations

import dataclasses
from typing import Any, Final, TypeVar

from engine.game.state import (
    RECORD_CHUNK,
    GameState,
    Record,
)

_T = TypeVar("_T")


def is_int(value: object) -> bool:
    """An int and not a bool (True == 1 would pass for a card, a seat or a pile)."""
    return isinstance(value, int) and not isinstance(value, bool)


def recorded(
    records: tuple[tuple[Record, ...], ...], record: Record
) -> tuple[tuple[Record, ...], ...]:
    """``records`` with one more, in chunks (see ``GameState.records``)."""
    if records and len(records[-1]) < RECORD_CHUNK:
        # Concatenation: unpacking into a new tuple goes through a list.
        return records[:-1] + (records[-1] + (record,),)  # noqa: RUF005
    return (*records, (record,))


_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(GameState))


def evolve(state: GameState, **changes: Any) -> GameState:
    """``dataclasses.replace`` without its per-call overhead. A draw and a discard, thousands
    a game, set their fields in ``dict(state.__dict__)`` and call ``state_from`` themselves:
    passing them as keyword arguments took a seventh of a whole game's replay."""
    fields = dict(state.__dict__)
    fields.update(changes)
    return state_from(fields)


def state_from(fields: dict[str, Any]) -> GameState:
    """The state of these fields (the state has no __post_init__: its fields are all there is).

    Make ``fields`` with dict(), not .copy(): the first state's fields come out as a split dict
    (shared keys), a copy of one stays split, and CPython 3.11 reads the attributes of such an
    instance on a slow path, several times slower; the game reads dozens a turn.
    """
    assert len(fields) == len(_FIELDS), set(fields) ^ _FIELDS  # a misspelt field
    new = object.__new__(GameState)
    _set_fields(new, fields)
    return new


_set_fields: Final = GameState.__dict__["__dict__"].__set__


def replace_at(items: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*items[:index], value, *items[index + 1 :])

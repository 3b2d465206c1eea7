"""Each kind of action has one name (``engine.game.ACTION_NAMES``), and every place the engine
writes one spells it so: a stored game and a record's JSON form (an error's message takes it
from the table; tests/engine/test_game_flow.py reads a few)."""

from __future__ import annotations

import pytest

from engine.game import (
    ACTION_NAMES,
    CALL_TIMEOUT,
    Action,
    CallEnd,
    Discard,
    Draw,
    EndLayOff,
    LayOff,
    LogEntry,
    Phase,
    action_name,
)
from engine.game.actions import CHOSEN
from engine.game.stored_json import action_out
from engine.records.json_form import entry_json

ONE_OF_EACH: list[Action] = [
    Draw("stock"),
    Discard(7),
    LayOff(7, 1, 0),
    EndLayOff(),
    CALL_TIMEOUT,
    CallEnd(1, Phase.DRAW, (), timed_out=True),
    CHOSEN,
]


def test_every_kind_of_action_is_named() -> None:
    assert {type(action) for action in ONE_OF_EACH} == set(ACTION_NAMES)
    assert len(set(ACTION_NAMES.values())) == len(ACTION_NAMES)


@pytest.mark.parametrize("action", ONE_OF_EACH, ids=lambda a: type(a).__name__)
def test_a_stored_game_names_an_action_by_its_name(action: Action) -> None:
    assert action_out(action)[0] == ACTION_NAMES[type(action)] == action_name(action)


@pytest.mark.parametrize(
    "action",
    [a for a in ONE_OF_EACH if isinstance(a, Draw | Discard | LayOff | CallEnd)],
    ids=lambda a: type(a).__name__,
)
def test_a_records_json_form_names_an_action_by_its_name(action: Action) -> None:
    shown = entry_json(LogEntry(1, 0, action, None))
    assert shown["action"]["type"] == ACTION_NAMES[type(action)]

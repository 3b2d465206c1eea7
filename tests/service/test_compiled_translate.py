"""``service.translate`` compiled by mypyc against its own pure-Python source.

The rest of the suite runs whichever module Python imports (the extension, after `make native`).
Here the source is loaded as a second, interpreted module, and both translate the same analyses,
game views, logs, actions and bad codes: their answers must encode to the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

import engine
from engine.cards import Card
from engine.game import (
    Action,
    Draw,
    GameState,
    GameView,
    LayOff,
    apply,
    legal_actions,
    new_game,
    public_log,
    view,
)
from engine.game.views import public_view
from engine.rules import PRESET_NAMES, Rules
from service import translate, wire
from service.problems import InvalidField
from tests.benchmarks.bench_game import PLAYERS, random_player
from tests.conftest import interpreted
from tests.engine.test_analysis_properties import hands

SOURCE = Path(translate.__file__).with_name("translate.py")
ENCODE = msgspec.json.Encoder().encode

pytestmark = pytest.mark.skipif(
    Path(translate.__file__) == SOURCE, reason="service.translate is not compiled"
)


@pytest.fixture(scope="module")
def pure() -> Iterator[ModuleType]:
    with interpreted(SOURCE, "service._translate_interpreted") as module:
        yield module


def test_the_pure_module_is_the_interpreted_source(pure: ModuleType) -> None:
    assert pure.__file__ == str(SOURCE)
    assert type(pure.analysis_to_wire).__name__ == "function"
    assert type(translate.analysis_to_wire).__name__ != "function"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands(sizes=(1, 16), wild_bias=True))
def test_analyses_translate_alike(
    pure: ModuleType, case: tuple[list[Card], int | None, Rules]
) -> None:
    analysis = engine.analyse(*case)
    assert ENCODE(translate.analysis_to_wire(analysis)) == ENCODE(pure.analysis_to_wire(analysis))


RULES = [*PRESET_NAMES, {"preset": "online", "redemption": True}]
"""Every preset, and a game with the redemption's lay-offs (which the log shows)."""


def states(rules: str | dict[str, Any], seed: int) -> Iterator[GameState]:
    """Every state of a random game, the redemption's lay-offs played whenever they are legal."""
    rng = random.Random(seed)
    state = new_game(PLAYERS[:3], rules, seed)
    yield state
    while state.status == "playing":
        lay_offs = [a for a in legal_actions(state, state.turn) if isinstance(a, LayOff)]
        state = apply(state, state.turn, lay_offs[0] if lay_offs else random_player(state, rng))
        yield state


@pytest.mark.parametrize("rules", RULES, ids=[*PRESET_NAMES, "redemption"])
def test_games_translate_alike(pure: ModuleType, rules: str | dict[str, Any]) -> None:
    game_id = "g" * 22
    seen = 0
    for state in states(rules, seed=7):
        views: list[tuple[int | None, GameView]] = [(None, public_view(state))]
        views += [(seat, view(state, seat)) for seat in range(len(PLAYERS[:3]))]
        for seat, shown in views:
            actions: list[Action] = [] if seat is None else legal_actions(state, seat)
            assert ENCODE(translate.legal_to_wire(actions)) == ENCODE(pure.legal_to_wire(actions))
            legal = None if seat is None else translate.legal_to_wire(actions)
            rules_out = translate.game_rules_to_wire(state.rules)
            assert ENCODE(rules_out) == ENCODE(pure.game_rules_to_wire(state.rules))
            assert ENCODE(translate.view_to_wire(game_id, shown, seat, rules_out, legal)) == (
                ENCODE(pure.view_to_wire(game_id, shown, seat, rules_out, legal))
            )
        seen += len(views)
    assert seen > 100
    for seat in (None, 0):
        log = public_log(state, seat)
        assert [ENCODE(translate.log_entry_to_wire(e)) for e in log] == [
            ENCODE(pure.log_entry_to_wire(e)) for e in log
        ]
    if isinstance(rules, dict):
        assert any(isinstance(entry.action, LayOff) for entry in log)


def test_actions_rules_and_bad_codes_translate_alike(pure: ModuleType) -> None:
    requests: list[wire.ActionRequest] = [
        wire.DrawAction(source="discard", pile=2),
        wire.DiscardAction(card="10h", go_out=True),
        wire.LayOffAction(card="JK", seat=1, meld=3),
    ]
    for request in requests:
        assert translate.action_from_wire(request) == pure.action_from_wire(request)
    assert translate.action_from_wire(requests[0]) == Draw("discard", 2)
    for name in get_args(wire.PresetName):
        rules = engine.Rules.preset_named(name)
        assert translate.rules_from_wire(name) == pure.rules_from_wire(name) == rules
        assert ENCODE(translate.rules_to_wire(rules)) == ENCODE(pure.rules_to_wire(rules))

    def problem(module: ModuleType, call: Callable[[ModuleType], object]) -> tuple[object, str]:
        with pytest.raises(InvalidField) as raised:
            call(module)
        return raised.value.field, raised.value.detail

    for call in (
        lambda m: m.cards_from_codes(["4H", "1H"], "hand"),
        lambda m: m.card_from_code("ZZ", "card"),
        lambda m: m.rank_from_code("1", "wild"),
    ):
        assert problem(translate, call) == problem(pure, call)

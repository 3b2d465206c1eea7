"""The engine's modules compiled by mypyc against their own pure-Python sources.

The other tests run whichever modules Python imports (the extensions, after `make native`). Here
the analyser's source is loaded as a second, interpreted module and compared with the compiled
one on random hands of every preset and wild rule; and whole games are played in a process that
imports every engine module from source, and compared state for state with this process's. So
the pure modules stay checked too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import engine.analysis
import engine.game.scoring
from engine.cards import Card, parse_cards
from engine.errors import HandError
from engine.game import dumps
from engine.rules import Rules
from tests.benchmarks.bench_game import play, purposeful_player, random_player
from tests.conftest import ENGINE, interpreted
from tests.engine.test_analysis_properties import aces_moved, hands, sparse_hands

SOURCE = Path(engine.analysis.__file__).with_name("analysis.py")

pytestmark = pytest.mark.skipif(
    Path(engine.analysis.__file__) == SOURCE, reason="engine.analysis is not compiled"
)


@pytest.fixture(scope="module")
def pure() -> Iterator[ModuleType]:
    with interpreted(SOURCE, "engine._analysis_interpreted") as module:
        yield module


def test_the_pure_module_is_the_interpreted_source(pure: ModuleType) -> None:
    assert pure.__file__ == str(SOURCE)
    assert type(pure.analyse).__name__ == "function"  # a Python function, not a compiled one
    assert type(engine.analysis.analyse).__name__ != "function"


def plain(meld: Any) -> tuple[object, ...]:
    return meld.kind, meld.cards, meld.stands_for


def outcomes(module: ModuleType, hand: list[Card], wild: int | None, rules: Rules) -> object:
    """Everything the module answers for the hand, as plain values (or the error it raises)."""
    try:
        analysis = module.analyse(hand, wild, rules)
        melds, deadwood, points = module.arrange(hand, wild, rules)
        return (
            analysis.wild,
            [plain(meld) for meld in analysis.melds],
            analysis.deadwood,
            analysis.deadwood_points,
            [(d.card, d.deadwood_points) for d in analysis.discards],
            module.describe(analysis),
            module.min_deadwood(hand, wild, rules),
            [plain(meld) for meld in melds],
            deadwood,
            points,
        )
    except HandError as error:
        return str(error)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands(sizes=(0, 16), wild_bias=True))
def test_compiled_and_pure_analyses_agree(
    pure: ModuleType, case: tuple[list[Card], int | None, Rules]
) -> None:
    assert outcomes(engine.analysis, *case) == outcomes(pure, *case)


def first_floor(module: ModuleType, hand: list[Card], wild: int | None, rules: Rules) -> int:
    """The module's lower bound (the search's floor) of the whole hand, its aces moved after the
    kings as the search moves them first, with every wild, forced on whatever the hand's size."""
    cards, wild_rank, rules_value = module._inputs(hand, wild, rules)
    naturals, wilds = module._split(cards, wild_rank)
    table = module._MeldTable(module._context(rules_value, wild_rank), naturals, len(wilds), True)
    search = module._Search(table, wilds)
    state = aces_moved(table)
    floor: int = search.floor(state, table.present(state), search.wild_count, 0, 0, 0)
    return floor


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hands(sizes=(1, 16), wild_bias=True), sparse_hands()))
# Cards with no partner in diamonds and stars: their tallies lie 48 bits apart (a bug once).
@example((parse_cards(["5D", "8D", "9D", "6X", "JK", "JK"]), None, Rules.from_spec("five-crowns")))
def test_compiled_and_pure_floors_agree(
    pure: ModuleType, case: tuple[list[Card], int | None, Rules]
) -> None:
    """The floor computes in native ints once compiled (packed tallies, masks up to bit 60):
    its bounds match the interpreted source's, bit for bit arithmetic and all."""
    assert first_floor(engine.analysis, *case) == first_floor(pure, *case)


# Plays the games below in a process whose engine modules all load from source: a path hook for
# the engine's directories that knows only source files (the standard library keeps its own).
INTERPRETED_GAMES = """
import importlib.machinery, json, sys
ROOT = sys.argv[1]

def source_only(path):
    if not path.startswith(ROOT + "/engine"):
        raise ImportError(path)
    return importlib.machinery.FileFinder(
        path, (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
    )

sys.path_hooks.insert(0, source_only)
sys.path_importer_cache.clear()
sys.path.insert(0, ROOT)
from tests.engine.test_compiled import games
import engine.analysis, engine.game.scoring
modules = [engine.analysis.__file__, engine.game.scoring.__file__]
print(json.dumps({"modules": modules, "games": games()}))
"""


def games() -> list[str]:
    """Whole seeded games, random and purposeful, as their stored form."""
    return [
        dumps(play(seed, player)).decode()
        for player in (random_player, purposeful_player)
        for seed in range(2)
    ]


def test_interpreted_and_compiled_games_agree() -> None:
    compiled = [Path(engine.analysis.__file__), Path(engine.game.scoring.__file__)]
    assert all(path.suffix != ".py" for path in compiled)
    answer = subprocess.run(
        [sys.executable, "-c", INTERPRETED_GAMES, str(ENGINE.parent)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    interpreted = json.loads(answer.stdout)
    assert [Path(path) for path in interpreted["modules"]] == [
        path.with_name(path.name.split(".")[0] + ".py") for path in compiled
    ]
    assert interpreted["games"] == games()

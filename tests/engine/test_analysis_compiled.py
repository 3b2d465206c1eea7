"""The analyser compiled by mypyc against its own pure-Python source, answer for answer.

The other analysis tests run whichever module Python imports (the extension after `make native`);
this one loads engine/analysis.py as a second, interpreted module and compares the two on random
hands of every preset and wild rule, so the pure module stays checked too.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings

import engine.analysis
from engine.cards import Card
from engine.errors import HandError
from engine.rules import Rules
from tests.engine.test_analysis_properties import hands

SOURCE = Path(engine.analysis.__file__).with_name("analysis.py")

pytestmark = pytest.mark.skipif(
    Path(engine.analysis.__file__) == SOURCE, reason="engine.analysis is not compiled"
)


@pytest.fixture(scope="module")
def pure() -> Iterator[ModuleType]:
    name = "engine._analysis_interpreted"  # registered: dataclasses look their module up
    spec = importlib.util.spec_from_file_location(name, SOURCE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[name]


def test_the_pure_module_is_the_interpreted_source(pure: ModuleType) -> None:
    assert pure.__file__ == str(SOURCE)
    assert type(pure.analyse).__name__ == "function"  # a Python function, not a compiled one
    assert type(engine.analysis.analyse).__name__ != "function"


def outcomes(module: ModuleType, hand: list[Card], wild: int | None, rules: Rules) -> object:
    """Everything the module answers for the hand, as plain values (or the error it raises)."""
    try:
        analysis = module.analyse(hand, wild, rules)
        melds, deadwood, points = module.arrange(hand, wild, rules)
        return (
            astuple(analysis),
            module.describe(analysis),
            module.min_deadwood(hand, wild, rules),
            [astuple(meld) for meld in melds],
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

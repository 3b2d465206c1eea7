"""The engine's modules compiled by mypyc against their own pure-Python sources.

The other tests run whichever modules Python imports (the extensions, after `make native`).
Here a second process imports every engine module from source (a path hook that knows only
source files) and answers the same questions: analyses of seeded random hands of every preset
and wild rule, the search's lower bound on them, and whole games, compared with this process's
answers value for value. So the pure modules stay checked too.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine.analysis
import engine.game.melding
from engine.analysis import search_variant
from engine.cards import JOKER, Card, parse_cards
from engine.errors import HandError
from engine.game import dumps
from engine.rules import Rules
from tests.benchmarks.bench_game import play, purposeful_player, random_player
from tests.conftest import ENGINE

COMPILED = [Path(engine.analysis.__file__ or ""), Path(engine.game.melding.__file__ or "")]

pytestmark = pytest.mark.skipif(
    COMPILED[0].suffix == ".py", reason="engine.analysis is not compiled"
)

# Answers the questions below in a process whose engine modules all load from source.
INTERPRETED = """
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
from tests.engine.test_compiled import answers
import engine.analysis, engine.game.melding
modules = [engine.analysis.__file__, engine.game.melding.__file__]
print(json.dumps({"modules": modules, **answers()}))
"""


Case = tuple[list[Card], int | None, dict[str, Any]]


def cases(count: int, seed: int = 19) -> list[Case]:
    """Seeded random hands (0 to 16 cards, many wilds) under random presets and options."""
    rng = random.Random(seed)
    # Cards with no partner in diamonds and stars: their floor tallies lie 48 bits apart.
    found: list[Case] = [
        (parse_cards(["5D", "8D", "9D", "6X", "JK", "JK"]), None, {"preset": "five-crowns"})
    ]
    for _ in range(count):
        preset = rng.choice(["classic", "online", "five-crowns"])
        limit = rng.choice([None, None, 1, 2, 3])
        spec: dict[str, Any] = {
            "preset": preset,
            "jokers": rng.choice([2, 4, 6]),
            "wild_points": rng.choice([None, 20, 50]),
            "max_wilds_per_meld": limit,
            "all_wild_melds": (limit is None or limit >= 3) and rng.random() < 0.5,
        }
        if preset != "five-crowns":
            spec["aces"] = rng.choice(["low", "high_or_low"])
        rules = Rules.from_spec(spec)
        wild = rng.choice([None, *rules.ranks])
        pack = sorted(set(rules.pack(2)) | {JOKER})
        wilds = [c for c in pack if c == JOKER or (wild is not None and c % 13 + 1 == wild)]
        size = rng.randint(0, 16)
        hand = [rng.choice(wilds if rng.random() < 0.3 else pack) for _ in range(size)]
        found.append((hand, wild, spec))
    return found


def outcomes(hand: list[Card], wild: int | None, spec: dict[str, Any]) -> object:
    """Everything the analyser answers for the hand, as plain values (or the error it raises)."""
    rules = Rules.from_spec(spec)
    try:
        analysis = engine.analysis.analyse(hand, wild, rules)
        melds, deadwood, points = engine.analysis.arrange(hand, wild, rules)
        return [
            analysis.wild,
            [[m.kind, m.cards, m.stands_for] for m in analysis.melds],
            analysis.deadwood,
            analysis.deadwood_points,
            [[d.card, d.deadwood_points] for d in analysis.discards],
            engine.analysis.describe(analysis),
            engine.analysis.min_deadwood(hand, wild, rules),
            [[m.kind, m.cards, m.stands_for] for m in melds],
            deadwood,
            points,
        ]
    except HandError as error:
        return str(error)


def first_floor(hand: list[Card], wild: int | None, spec: dict[str, Any]) -> int:
    """The search's lower bound of the whole hand, its aces moved after the kings as the search
    moves them first, with every wild, forced on whatever the hand's size."""
    if not hand:
        return 0
    variant = search_variant(hand, wild, Rules.from_spec(spec), floored=True, mirrored=False)
    assert variant.first_floor is not None
    return variant.first_floor


def answers() -> dict[str, object]:
    """The analyses, floors and games this process's engine gives, as JSON values."""
    analysed = cases(400)
    found: dict[str, object] = json.loads(
        json.dumps(
            {
                "analyses": [outcomes(*case) for case in analysed],
                "floors": [first_floor(*case) for case in analysed],
                "games": games(),
            }
        )
    )
    return found


def games() -> list[str]:
    """Whole seeded games, random and purposeful, as their stored form."""
    return [
        dumps(play(seed, player)).decode()
        for player in (random_player, purposeful_player)
        for seed in range(2)
    ]


def test_interpreted_and_compiled_engines_agree() -> None:
    """Analyses (the floor's packed tallies and masks up to bit 60 included) and whole games."""
    answer = subprocess.run(
        [sys.executable, "-c", INTERPRETED, str(ENGINE.parent)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    interpreted = json.loads(answer.stdout)
    assert [Path(path) for path in interpreted.pop("modules")] == [
        path.with_name(path.name.split(".")[0] + ".py") for path in COMPILED
    ]
    compiled = answers()
    for name in ("analyses", "floors", "games"):
        assert interpreted[name] == compiled[name], name

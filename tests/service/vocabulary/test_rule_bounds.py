"""The wire's rule bounds (``service.vocabulary.wire``) are the engine's: at each bound the
engine accepts the rules, one past it the engine refuses them, naming the option."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from service.vocabulary.wire import (
    MAX_DECKS,
    MAX_JOKERS,
    MAX_PLAYERS,
    MAX_POINTS,
    MAX_WILDS_PER_MELD,
    MIN_PLAYERS,
)


def rules(**options: Any) -> engine.Rules:
    return engine.Rules.from_spec({"preset": "classic", **options})


@pytest.mark.parametrize(
    ("option", "bound", "past", "refused_as"),
    [
        ("decks", MAX_DECKS, MAX_DECKS + 1, "decks"),
        ("jokers", MAX_JOKERS, MAX_JOKERS + 1, "jokers"),
        ("max_players", MAX_PLAYERS, MAX_PLAYERS + 1, "max_players"),
        ("min_players", MIN_PLAYERS, MIN_PLAYERS - 1, "max_players"),  # the engine names the pair
        ("ace_points", MAX_POINTS, MAX_POINTS + 1, "ace_points"),
        ("joker_points", MAX_POINTS, MAX_POINTS + 1, "joker_points"),
        ("max_wilds_per_meld", MAX_WILDS_PER_MELD, MAX_WILDS_PER_MELD + 1, "max_wilds_per_meld"),
    ],
)
def test_each_bound_is_where_the_engine_draws_it(
    option: str, bound: int, past: int, refused_as: str
) -> None:
    assert getattr(rules(**{option: bound}), option) == bound
    with pytest.raises(engine.RulesError) as refused:
        rules(**{option: past})
    assert refused.value.field == refused_as

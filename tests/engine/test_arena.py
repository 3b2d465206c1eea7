"""The arena (engine.arena, ``python -m engine arena``): rotated seats over the same deals, and
the confidence intervals it prints."""

from __future__ import annotations

import math

import pytest

from engine import arena
from engine.__main__ import main
from engine.rules import Rules


def test_estimate_is_the_mean_with_a_normal_95_percent_interval() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    found = arena.estimate(values)
    assert found.mean == 2.5
    # Sample standard deviation sqrt(5/3), standard error over four values.
    assert found.half_width == pytest.approx(1.96 * math.sqrt(5 / 3) / 2)
    assert arena.estimate([7.0]).half_width == math.inf


def test_every_level_sits_in_every_seat_of_every_deal() -> None:
    rules = Rules.from_spec({"preset": "classic", "schedule": "down"})
    result = arena.run(["greedy", "normal"], 2, 5, rules)
    assert result.games == 4  # two deals, each in both rotations
    assert len(result.per_deal["greedy"]) == len(result.per_deal["normal"]) == 2
    margin = result.margin("normal", "greedy")
    per_deal = [
        g - n for n, g in zip(result.per_deal["normal"], result.per_deal["greedy"], strict=True)
    ]
    assert margin.mean == pytest.approx(sum(per_deal) / 2)


def test_the_command_prints_a_table_and_refuses_bad_seats(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["arena", "--players", "2", "--games", "2", "--seats", "easy,greedy", "--seed", "3"]
    assert main([*args, "--blocks", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 deals (seeds 3 to 3, 1 block of 1) x 2 rotations = 2 games" in out
    assert "easy vs greedy:" in out
    # Two distinct rotations of four seats: --games counts games, not deals of four, rounded
    # up to whole blocks.
    args = ["arena", "--games", "6", "--seats", "greedy,easy,greedy,easy", "--seed", "3"]
    assert main([*args, "--blocks", "2"]) == 0
    out = capsys.readouterr().out
    assert "4 deals (seeds 3 to 6, 2 blocks of 2) x 2 rotations = 8 games" in out
    assert "blocks' t ±" in out
    assert "spread between blocks p =" in out
    assert main([*args, "--blocks", "0"]) == 2
    assert "--blocks must be at least 1" in capsys.readouterr().err
    assert main(["arena", "--players", "2", "--seats", "easy,grandmaster"]) == 2
    assert "unknown bot level 'grandmaster'" in capsys.readouterr().err
    assert main(["arena", "--players", "3", "--seats", "easy,normal"]) == 2


def test_deals_split_over_processes_give_the_same_figures() -> None:
    rules = Rules.from_spec({"preset": "classic", "schedule": "down"})
    alone = arena.run(["greedy", "normal"], 4, 8, rules, blocks=2)
    split = arena.run_split(["greedy", "normal"], 4, 8, rules, jobs=3, blocks=2)
    assert split.per_deal == alone.per_deal
    assert split.margin("normal", "greedy") == alone.margin("normal", "greedy")
    assert (split.games, split.decisions) == (alone.games, alone.decisions)

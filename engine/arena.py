"""The arena: computer players against each other over the same deals, seats rotated.

Each deal (a game's seed) is played once per rotation of the seat list, so every level sits in
every seat of every deal and the luck of the cards cancels. A game's deals are the seed's
shuffles, so the rotations see the same hands as long as the stock is reshuffled as often.

The figures are per deal: a level's mean points per game over its seats in that deal's games,
with a normal 95% interval (1.96 standard errors). A margin between two levels is the mean of
their per-deal differences. The deals are played in blocks of consecutive seeds, and the
margin's interval is the wider of a bootstrap over the deals and Student's t over the block
means (``engine.intervals``): a figure that holds on one block of seeds only shows as a wide
interval, and the blocks' spread is printed beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine.bots import decide
from engine.game import GameState, LogEntry, apply, new_game, public_log, view
from engine.intervals import Z95, Margin, margin, standard_error
from engine.rules import Rules


@dataclass(frozen=True, slots=True)
class Estimate:
    mean: float
    half_width: float
    """Half the 95% confidence interval."""
    n: int

    def __str__(self) -> str:
        return f"{self.mean:+.1f} ± {self.half_width:.1f}"


def estimate(values: Sequence[float]) -> Estimate:
    return Estimate(sum(values) / len(values), Z95 * standard_error(values), len(values))


@dataclass(slots=True)
class ArenaResult:
    seats: tuple[str, ...]
    seed: int = 0
    """The first deal's seed: the deals are seeds ``seed`` to ``seed + deals - 1``."""
    blocks: int = 1
    """The deals' blocks of consecutive seeds, as many deals each."""
    rotations: int = 0
    games: int = 0
    per_deal: dict[str, list[float]] = field(default_factory=dict)
    """Per level, its mean points per game in each deal."""
    decisions: int = 0
    seconds: float = 0.0

    def level(self, name: str) -> Estimate:
        return estimate(self.per_deal[name])

    def margin(self, better: str, worse: str) -> Margin:
        """How many points per game ``better`` scores fewer than ``worse`` (positive: better),
        over the deals in their blocks."""
        pairs = zip(self.per_deal[better], self.per_deal[worse], strict=True)
        return margin([w - b for b, w in pairs], self.blocks)

    def table(self) -> str:
        levels = list(dict.fromkeys(self.seats))
        deals = len(self.per_deal[levels[0]])
        lines = [
            f"{deals} deals (seeds {self.seed} to {self.seed + deals - 1}, {self.blocks} "
            f"block{'s' if self.blocks > 1 else ''} of {deals // self.blocks}) x "
            f"{self.rotations} rotations = {self.games} games, {self.decisions} decisions "
            f"in {self.seconds:.0f} s",
            f"{'level':<8} {'points/game':>12} {'95% CI':>16}",
        ]
        for name in levels:
            e = self.level(name)
            low, high = e.mean - e.half_width, e.mean + e.half_width
            lines.append(f"{name:<8} {e.mean:>12.1f} {f'[{low:.1f}, {high:.1f}]':>16}")
        lines.append("margins (points per game the first saves against the second, 95% CI):")
        for i, a in enumerate(levels):
            for b in levels[i + 1 :]:
                found = self.margin(a, b)
                lines.append(f"  {a} vs {b}: {found}  ({found.detail()})")
        return "\n".join(lines)


def play_game(
    seats: Sequence[str],
    seed: int,
    rules: Rules,
    *,
    budget: int | None = None,
    on_decision: Callable[[str, float], None] | None = None,
) -> GameState:
    """A whole game of the bots ``seats`` (one level per seat), each deciding from its own
    view and public log; ``on_decision`` hears each decision's level and CPU seconds (the
    view, the log and the decision: what a service would spend on the move)."""
    state = new_game([f"{level} {i}" for i, level in enumerate(seats)], rules, seed)
    logs: list[list[LogEntry]] = [[] for _ in seats]
    while state.status == "playing":
        seat = state.turn
        started = time.process_time()
        log = logs[seat]
        # Each seat's log grows by what it may see of the actions since its last look.
        log += public_log(state, seat, since=log[-1].version if log else 0)
        action = decide(
            seats[seat],
            view(state, seat),
            log,
            seat=seat,
            rules=rules,
            seed=seed * 16 + seat,
            budget=budget,
        )
        if on_decision is not None:
            on_decision(seats[seat], time.process_time() - started)
        state = apply(state, seat, action)
    return state


def rotations(seats: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct rotations of ``seats``: hard,normal,hard,normal has two, each played once."""
    n = len(seats)
    return list(dict.fromkeys(tuple(seats[(i + s) % n] for i in range(n)) for s in range(n)))


def run(
    seats: Sequence[str],
    deals: int,
    seed: int,
    rules: Rules,
    *,
    budget: int | None = None,
    blocks: int = 1,
    progress: Callable[[ArenaResult], None] | None = None,
) -> ArenaResult:
    """``deals`` deals (seeds ``seed`` on), each played once per rotation of ``seats``, in
    ``blocks`` blocks of as many deals."""
    result = ArenaResult(tuple(seats), seed, _checked_blocks(deals, blocks))
    levels = list(dict.fromkeys(seats))
    result.per_deal = {name: [] for name in levels}
    started = time.perf_counter()

    def count(_: str, __: float) -> None:
        result.decisions += 1

    rotated = rotations(seats)
    result.rotations = len(rotated)
    for deal in range(deals):
        points: dict[str, list[int]] = {name: [] for name in levels}
        for seats_now in rotated:
            final = play_game(seats_now, seed + deal, rules, budget=budget, on_decision=count)
            for seat, total in enumerate(final.totals):
                points[seats_now[seat]].append(total)
            result.games += 1
        for name in levels:
            result.per_deal[name].append(sum(points[name]) / len(points[name]))
        result.seconds = time.perf_counter() - started
        if progress is not None:
            progress(result)
    return result


def run_split(
    seats: Sequence[str],
    deals: int,
    seed: int,
    rules: Rules,
    *,
    jobs: int,
    budget: int | None = None,
    blocks: int = 1,
) -> ArenaResult:
    """``run`` over ``jobs`` worker processes, each a run of consecutive deals: the same
    figures as ``run`` (each deal's seed is its own), in the time of the slowest share."""
    if jobs <= 1 or deals <= 1:
        return run(seats, deals, seed, rules, budget=budget, blocks=blocks)
    started = time.perf_counter()
    share = -(-deals // jobs)
    parts = [
        (tuple(seats), min(share, deals - start), seed + start, rules.to_spec(), budget)
        for start in range(0, deals, share)
    ]
    result = ArenaResult(
        tuple(seats), seed, _checked_blocks(deals, blocks), rotations=len(rotations(seats))
    )
    result.per_deal = {name: [] for name in dict.fromkeys(seats)}
    with ProcessPoolExecutor(len(parts)) as pool:
        for part in pool.map(_run_part, parts):
            for name, values in part.per_deal.items():
                result.per_deal[name] += values
            result.games += part.games
            result.decisions += part.decisions
    result.seconds = time.perf_counter() - started
    return result


def deals_for(games: int, seats: Sequence[str], blocks: int) -> int:
    """The deals that play at least ``games`` games: whole rotations, whole blocks."""
    per_deal = len(rotations(seats))
    return max(1, -(-games // (per_deal * blocks))) * blocks


def _checked_blocks(deals: int, blocks: int) -> int:
    if blocks < 1 or deals % blocks:
        raise ValueError(f"{deals} deals do not make {blocks} blocks of as many deals")
    return blocks


def _run_part(part: tuple[tuple[str, ...], int, int, dict[str, Any], int | None]) -> ArenaResult:
    seats, deals, seed, spec, budget = part
    return run(seats, deals, seed, Rules.from_spec(spec), budget=budget)

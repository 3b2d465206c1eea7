"""A speed game's views and computer players at a large table, as the service builds them: one
seat's wire view (its ``call`` and ``legal`` choices: at most one analysis of its hand), the
public view, and one choice of the speed policy (``engine.bots.speed``), at the states that open
the calls of 10-player games (``bench_speed``'s). A seat's view of a 4-player game played in
turns, in the same run, is the ratios' base. Rows are CPU time of this process in one run."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from engine import game
from engine.bots import speed
from engine.game import GameState, apply, legal_actions, new_game
from engine.rules import Rules
from service.games.lifecycle import view_of
from service.games.records import GameRecord
from tests.benchmarks.bench_speed import GAMES, calls_of

RECORD = GameRecord(state=b"", token_hashes=(), created=0.0, call_seconds=20, turn_started=0.0)


def cpu_each(states: Sequence[GameState], work: Callable[[GameState], object]) -> list[float]:
    times = []
    for state in states:
        start = time.process_time()
        work(state)
        times.append(time.process_time() - start)
    return times


def in_turn_states() -> list[GameState]:
    rules = Rules.from_spec("classic")
    states: list[GameState] = []
    for seed in range(GAMES):
        state = new_game(["a", "b", "c", "d"], rules, seed)
        while state.status == "playing" and len(states) < 400 * (seed + 1):
            states.append(state)
            state = apply(state, state.turn, legal_actions(state, state.turn)[0])
    return states


def main() -> None:
    opened = [state for seed in range(GAMES) for state, _ in calls_of(seed)]
    base = statistics.median(cpu_each(in_turn_states(), lambda s: view_of("g", s, s.turn, RECORD)))
    print(f"{'(CPU time per item)':<44} {'median':>11} {'p95':>11} {'vs base':>9}")

    def row(name: str, times: list[float]) -> None:
        median, worst = statistics.median(times), sorted(times)[int(len(times) * 0.95)]
        print(f"{name:<44} {median * 1e3:>8.3f} ms {worst * 1e3:>8.3f} ms {median / base:>8.2f}x")

    row("seat's view, 4 players in turns (base)", [base])
    row("seat's view, 10 players speed", cpu_each(opened, lambda s: view_of("g", s, 3, RECORD)))
    row("public view, 10 players speed", cpu_each(opened, lambda s: view_of("g", s, None, RECORD)))
    choosing = [s for s in opened if legal_actions(s, 3)]
    row(
        "speed policy's choice, one seat",
        cpu_each(
            choosing,
            lambda s: speed.choose(game.view(s, 3), 3, legal_actions(s, 3), s.rules),
        ),
    )

"""Game engine speed: whole random-play games (4 players, classic), the engine's own share of
them (replaying their logs: deal, apply, go-out checks, scoring), and storing the state.

Every row is measured in the same run, in CPU time of this process; "vs target" compares each
with the issue's target of 50 ms for a whole game, so a noisy machine moves the rows together.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from engine.game import (
    Action,
    Discard,
    GameState,
    apply,
    dumps,
    legal_actions,
    loads,
    new_game,
    public_view,
    replay,
    view,
)
from tests.engine.game_scenarios import choose

PLAYERS = ["ann", "bob", "cy", "di"]
GAMES = 8
TARGET_SECONDS = 0.050


def random_player(state: GameState, rng: random.Random) -> Action:
    """A random legal action; a go-out whenever one is legal (else no round would end)."""
    actions = legal_actions(state, state.turn)
    outs = [a for a in actions if isinstance(a, Discard) and a.go_out]
    return rng.choice(outs) if outs else rng.choice(actions)


def purposeful_player(state: GameState, rng: random.Random) -> Action:
    return choose(state, rng)


def play(seed: int, player: Callable[[GameState, random.Random], Action]) -> GameState:
    rng = random.Random(seed)
    state = new_game(PLAYERS, "classic", seed)
    while state.status == "playing":
        state = apply(state, state.turn, player(state, rng))
    return state


def timed(function: Callable[[], object], repeat: int = 1) -> float:
    start = time.process_time()
    for _ in range(repeat):
        function()
    return (time.process_time() - start) / repeat


def row(name: str, seconds: float, detail: str) -> None:
    ratio = seconds / TARGET_SECONDS
    shown = f"{seconds * 1000:>10.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:>10.1f} µs"
    print(f"{name:<44} {shown} {ratio:>9.3f}x   {detail}")


def main() -> None:
    print(
        f"{'(4 players, classic, seeded; median of ' + str(GAMES) + ')':<44} "
        f"{'time':>13} {'vs target':>10}   detail"
    )
    for label, player in (("random", random_player), ("purposeful", purposeful_player)):
        games: list[GameState] = []
        times = []
        for seed in range(GAMES):
            start = time.process_time()
            games.append(play(seed, player))
            times.append(time.process_time() - start)
        actions = [g.version for g in games]
        whole = statistics.median(times)
        row(
            f"whole game, {label} player",
            whole,
            f"{statistics.median(actions):.0f} actions/game, {1 / whole:.1f} games/s",
        )
        replays = [
            timed(partial(replay, g.players, g.rules, seed, g.log)) for seed, g in enumerate(games)
        ]
        per_action = sum(replays) / sum(actions)
        row(
            "  the engine alone (replay of its log)",
            statistics.median(replays),
            f"{per_action * 1e6:.1f} µs/action (apply, go-out checks, scoring, deals)",
        )
    finished = play(0, purposeful_player)
    mid = replay(finished.players, finished.rules, 0, finished.log[: finished.version // 2])
    for label, state in (("mid-game", mid), ("finished", finished)):
        data = dumps(state)
        row(f"dumps, {label} state", timed(partial(dumps, state), 50), f"{len(data)} bytes")
        row(f"loads, {label} state", timed(partial(loads, data), 50), "checks the whole pack")
    row("view + public_view, mid-game", timed(lambda: (view(mid, 0), public_view(mid)), 500), "")
    drawn = apply(mid, mid.turn, legal_actions(mid, mid.turn)[0]) if mid.phase == "draw" else mid
    row("legal_actions, mid-game draw phase", timed(lambda: legal_actions(mid, mid.turn), 500), "")
    row(
        "legal_actions, mid-game discard phase",
        timed(lambda: legal_actions(drawn, drawn.turn), 500),
        "go-out checks included",
    )


if __name__ == "__main__":
    main()

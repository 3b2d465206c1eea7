"""Computer players and hints: speed against the issue's targets, then a short arena.

Speed rows are CPU time of this process (the machine is shared: wall time would measure the
neighbours), each decision timed on its own; "vs target" divides the p99 by the target.
- a hint for a 13-card hand (round 11 of classic, two decks), the analyser's memo cleared
  before each, as for a seat's first hint: p99 ≤ 10 ms;
- a ``normal``, a ``hard`` and an ``expert`` decision, every decision of whole games: p99 ≤
  10 ms, ≤ 200 ms and ≤ 300 ms (each with its default budget of work), four-bot games and, for
  expert, two-player games too (its reading of the other hands costs more with more of them);
- a whole game of four ``normal`` bots in process: ≤ 2 s.

Then short arenas (``make arena`` runs the full ones), seats rotated over the same deals, mean
points per game with 95% confidence intervals: each level against the one below, head to head
in two-player classic.
"""

from __future__ import annotations

import random
import statistics
import time

from engine import arena
from engine.advice import advise
from engine.bots.expert import EXPERT_BUDGET
from engine.bots.hard import HARD_BUDGET
from engine.draw_values import clear_memo
from engine.rules import Rules

CLASSIC = Rules.from_spec("classic")
HINT_HANDS = 300
GAMES = 4
LADDER = (("normal", "easy"), ("hard", "normal"), ("expert", "hard"))
LADDER_DEALS = 20


def p99(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.99) - 1)]


def row(name: str, values: list[float], target: float) -> str:
    worst = p99(values)
    return (
        f"{name:<34} {len(values):>6} {statistics.median(values) * 1000:>9.2f} "
        f"{worst * 1000:>9.2f} {target * 1000:>8.0f} {worst / target:>9.2f}"
    )


def hint_times() -> list[float]:
    """Draw-phase hints for random 13-card hands of a two-deck pack, the upcard and a few
    seen cards drawn from the rest (round 11: kings wild)."""
    rng = random.Random(11)
    times = []
    for _ in range(HINT_HANDS):
        pack = CLASSIC.pack(4)
        rng.shuffle(pack)
        hand, upcard, seen = pack[:13], pack[13], pack[14:30]
        clear_memo()
        start = time.process_time()
        advise(hand, 13, CLASSIC, upcard=upcard, seen=seen, players=4)
        times.append(time.process_time() - start)
    return times


def decision_times(seats: list[str], games: int) -> tuple[dict[str, list[float]], list[float]]:
    """Every decision's CPU time per level, and each game's CPU time, over whole games."""
    times: dict[str, list[float]] = {name: [] for name in seats}
    per_game = []

    def timed(level: str, seconds: float) -> None:
        times[level].append(seconds)

    for seed in range(games):
        clear_memo()
        start = time.process_time()
        arena.play_game(seats, 500 + seed, CLASSIC, on_decision=timed)
        per_game.append(time.process_time() - start)
    return times, per_game


def main() -> None:
    print(f"{'CPU time, ms':<34} {'n':>6} {'median':>9} {'p99':>9} {'target':>8} {'vs target':>9}")
    print(row("hint, 13 cards, two decks", hint_times(), 0.010))
    easy, _ = decision_times(["easy"] * 4, GAMES // 2)
    print(row("easy decision", easy["easy"], 0.010))
    normal, games = decision_times(["normal"] * 4, GAMES)
    print(row("normal decision", normal["normal"], 0.010))
    print(row("game of four normal bots", games, 2.0))
    hard, _ = decision_times(["hard", "normal", "hard", "normal"], GAMES // 2)
    print(row(f"hard decision (budget {HARD_BUDGET} hands)", hard["hard"], 0.200))
    expert, _ = decision_times(["expert", "hard", "expert", "hard"], GAMES // 2)
    print(row(f"expert decision, 4 players ({EXPERT_BUDGET})", expert["expert"], 0.300))
    expert2, _ = decision_times(["expert", "hard"], GAMES)
    print(row(f"expert decision, 2 players ({EXPERT_BUDGET})", expert2["expert"], 0.300))
    print("  (a decision includes the seat's view, log and sight; a game, apply too)")
    print()
    for better, worse in LADDER:
        print(f"short arena, two-player classic, {better} against {worse} (make arena: longer)")
        print(arena.run((better, worse), LADDER_DEALS, 2026, CLASSIC).table())
        print()


if __name__ == "__main__":
    main()

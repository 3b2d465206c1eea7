"""Game records: the review of a whole game (11 rounds, 4 players; in turns and speed games),
and the record's build, print, parse and import.

Every row is measured in the same run, in CPU time of this process, the hint's memo emptied
first (a review is computed once per game, on a process that may not have seen its hands).
"vs target" compares with issue 29's target of 2 s for the review of a whole 11-round,
4-player game.

The scaling rows (issue 44) review two games whose first round nobody goes out of for 1,000
and for 4,000 versions (2 players, its stock reshuffled again and again): the review's CPU per
version of each, and their ratio: at most about 1 for a review linear in the game's length,
about the ratio of the versions (3.1) for one quadratic, as the review was while it read each
sight afresh from the log (2.10 and 6.35 ms a version, ``review_afresh`` in
tests/engine/review_reference.py). Then the long game under a budget of 1,000 analyses, and a
game of 20,000 versions under the default budget (``REVIEW_BUDGET``): each stops at its budget
and says where.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from engine.bots import decide
from engine.bots import speed as speed_bots
from engine.draw_values import clear_memo
from engine.game import GameState, apply, legal_actions, new_game, public_log, view
from engine.game.speed import choosers
from engine.records import (
    REVIEW_BUDGET,
    import_record,
    parse_located,
    print_record,
    record_of,
    review_game,
)
from engine.records.record import replayed_record
from tests.engine.game_scenarios import choose, stalling

PLAYERS = ["ann", "bob", "cy", "di"]
GAMES = 3
TARGET_SECONDS = 2.0


def bot_game(rules: str, seed: int) -> GameState:
    state = new_game(PLAYERS, rules, seed)
    while state.status == "playing":
        seat = state.turn
        action = decide(
            "normal",
            view(state, seat),
            public_log(state, seat),
            seat=seat,
            rules=state.rules,
            seed=seed,
        )
        state = apply(state, seat, action)
    return state


def random_game(rules: str, seed: int) -> GameState:
    state = new_game(PLAYERS, rules, seed)
    rng = random.Random(seed)
    while state.status == "playing":
        state = apply(state, state.turn, choose(state, rng))
    return state


SPEED = {"preset": "classic", "turns": "speed"}


def speed_bot_game(rules: str, seed: int) -> GameState:
    """Speed: every seat chooses by the bots' speed policy, in play order, every call."""
    state = new_game(PLAYERS, {**SPEED, "preset": rules}, seed)
    while state.status == "playing":
        seat = next(s for s in choosers(state) if state.choices[s] is None)
        legal = legal_actions(state, seat)
        state = apply(state, seat, speed_bots.choose(view(state, seat), seat, legal, state.rules))
    return state


def speed_random_game(rules: str, seed: int) -> GameState:
    """Speed: random choices in a random order, a go-out taken when one is legal."""
    state = new_game(PLAYERS, {**SPEED, "preset": rules}, seed)
    rng = random.Random(seed)
    while state.status == "playing":
        seat = rng.choice(choosers(state))
        legal = legal_actions(state, seat)
        outs = [a for a in legal if getattr(a, "go_out", False)]
        if outs or rng.random() < 0.8:
            action = (outs or [speed_bots.choose(view(state, seat), seat, legal, state.rules)])[0]
        else:
            action = rng.choice(legal)
        state = apply(state, seat, action)
    return state


def stalled_game(stall: int, seed: int = 0) -> GameState:
    """Two players, classic; no go-out before version ``stall``, then purposeful random play."""
    state = new_game(PLAYERS[:2], "classic", seed)
    rng = random.Random(seed)
    while state.status == "playing":
        state = apply(state, state.turn, stalling(state, rng, stall))
    return state


def cpu(function: Callable[[], object]) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def row(name: str, seconds: float, detail: str) -> None:
    print(f"{name:<46} {seconds * 1000:>10.1f} ms {seconds / TARGET_SECONDS:>9.3f}x   {detail}")


def cold_review(state: GameState) -> None:
    clear_memo()
    review_game(state)


def main() -> None:
    print(
        f"{'(4 players, 11 rounds; median of ' + str(GAMES) + ' games)':<46} "
        f"{'CPU':>13} {'vs target':>10}   detail"
    )
    for label, rules, make in (
        ("normal bots, classic", "classic", bot_game),
        ("normal bots, online", "online", bot_game),
        ("purposeful random, classic", "classic", random_game),
        ("purposeful random, online", "online", random_game),
        ("purposeful random, five-crowns", "five-crowns", random_game),
        ("speed, speed bots, classic", "classic", speed_bot_game),
        ("speed, mostly bots' policy, classic", "classic", speed_random_game),
    ):
        games = [make(rules, seed) for seed in range(GAMES)]
        times = [cpu(lambda g=g: cold_review(g)) for g in games]  # type: ignore[misc]
        decisions = [len(review_game(g).decisions) for g in games]
        whole = statistics.median(times)
        per = sum(times) / sum(decisions)
        row(
            f"review, {label}",
            whole,
            f"{statistics.median(decisions):.0f} decisions/game, {per * 1000:.2f} ms/decision, "
            f"slowest game {max(times) * 1000:.0f} ms",
        )
    scaling_rows()
    for kind, game in (
        ("", random_game("classic", 0)),
        (" speed", speed_random_game("classic", 0)),
    ):
        record_rows(kind, game)


def scaling_rows() -> None:
    short, long = stalled_game(1_000), stalled_game(4_000)
    times = [cpu(lambda g=g: cold_review(g)) for g in (short, long)]  # type: ignore[misc]
    per = [t / g.version for t, g in zip(times, (short, long), strict=True)]
    for game, seconds, each in zip((short, long), times, per, strict=True):
        row(
            f"review, stalled first round, {game.version} versions",
            seconds,
            f"{each * 1000:.3f} ms/version",
        )
    row(
        "review scaling: long/short cost per version",
        times[1],
        f"ratio {per[1] / per[0]:.2f} for {long.version / short.version:.1f}x the versions "
        "(1 is linear; quadratic would be the versions' ratio)",
    )
    budget_row(long, 1_000)
    budget_row(stalled_game(20_000), REVIEW_BUDGET)


def budget_row(game: GameState, budget: int) -> None:
    clear_memo()
    start = time.process_time()
    cut = review_game(game, budget)
    seconds = time.process_time() - start
    over = cut.over_budget
    reached = "complete" if over is None else f"stopped after version {over.reviewed}"
    row(
        f"review, {game.version} versions, budget {budget} analyses",
        seconds,
        f"{reached} of {game.version}, {len(cut.decisions)} decisions",
    )


def record_rows(kind: str, game: GameState) -> None:
    record = record_of(game)
    text = print_record(record)
    row(
        f"record_of, finished{kind} game",
        cpu(lambda: record_of(game)),
        f"{game.version} versions, {sum(len(r.actions) for r in record.rounds)} lines",
    )
    row(f"replayed_record{kind} (as record_of was)", cpu(lambda: replayed_record(game)), "")
    row(f"print_record{kind}", cpu(lambda: print_record(record)), f"{len(text)} bytes of text")
    row(f"parse_located{kind}", cpu(lambda: parse_located(text)), "")
    located = parse_located(text)
    row(f"import_record{kind} (replay and check)", cpu(lambda: import_record(*located)), "")


if __name__ == "__main__":
    main()

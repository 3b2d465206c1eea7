"""Speed games at a large table: the engine's time for one call of a 10-player speed game
(``turns: speed``, classic with 5 decks), from the call's opening to its end: every seat's
choice applied (each checked, a discard's go-out too) and the call resolved; and a seat's
hint in a call (its sight of the deal rebuilt from its view and log, every source or card
figured).

The calls are those of whole seeded games played by a purposeful policy; each is applied again
from the state that opened it, so a row is the engine's work alone (no policy, no I/O). Rows
are CPU time of this process in one run; "vs target" compares each with the issue's target of
5 ms of engine time per call.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence

from engine.advice import hint
from engine.analysis import analyse
from engine.draw_values import clear_memo
from engine.game import (
    CALL_TIMEOUT,
    CALLER,
    Action,
    CallEnd,
    Discard,
    Draw,
    GameState,
    apply,
    legal_actions,
    new_game,
    public_log,
    view,
)
from engine.rules import Rules
from engine.seen import sight

PLAYERS = [f"p{i}" for i in range(10)]
RULES = Rules.from_spec({"preset": "classic", "turns": "speed", "max_players": 10})
GAMES = 4
TARGET_SECONDS = 0.005

Call = tuple[GameState, list[tuple[int, Action]]]


def pick(state: GameState, seat: int, rng: random.Random) -> Action:
    """A go-out when there is one, a pile card that pairs up, else the analyser's best discard."""
    actions = legal_actions(state, seat)
    outs = [a for a in actions if isinstance(a, Discard) and a.go_out]
    if outs:
        return outs[0]
    if isinstance(actions[0], Draw):
        return actions[-1] if rng.random() < 0.3 else actions[0]
    best = analyse(state.hands[seat], state.wild, state.rules).discards[0].card
    plain = [a for a in actions if isinstance(a, Discard) and not a.go_out]
    return next((a for a in plain if a.card == best), plain[0])


def calls_of(seed: int) -> list[Call]:
    """Every call of one whole game: the state that opened it and the choices made in it."""
    rng = random.Random(seed)
    state = new_game(PLAYERS, RULES, seed)
    calls: list[Call] = []
    opened, choices = state, []
    while state.status == "playing":
        waiting = [s for s in range(len(PLAYERS)) if legal_actions(state, s)]
        seat = rng.choice([s for s in waiting if state.choices[s] is None])
        action = pick(state, seat, rng)
        choices.append((seat, action))
        state = apply(state, seat, action)
        if isinstance(state.last_record_action, CallEnd):
            calls.append((opened, choices))
            opened, choices = state, []
    return calls


def replayed(call: Call) -> GameState:
    state, choices = call
    for seat, action in choices:
        state = apply(state, seat, action)
    return state


def per_call(calls: Sequence[Call]) -> list[float]:
    times = []
    for call in calls:
        start = time.process_time()
        for _ in range(5):
            replayed(call)
        times.append((time.process_time() - start) / 5)
    return times


def row(name: str, times: Sequence[float], detail: str) -> None:
    median = statistics.median(times)
    worst = sorted(times)[int(len(times) * 0.95)]
    print(
        f"{name:<40} {median * 1000:>8.3f} ms {worst * 1000:>8.3f} ms "
        f"{median / TARGET_SECONDS:>9.3f}x   {detail}"
    )


def main() -> None:
    calls = [call for seed in range(GAMES) for call in calls_of(seed)]
    draws = [c for c in calls if c[0].phase.value == "draw"]
    discards = [c for c in calls if c[0].phase.value == "discard"]
    late = [c for c in calls if len(c[0].hands[c[1][0][0]]) >= 12]
    print(
        f"{'(10 players, speed, classic; CPU time)':<40} {'median':>11} {'p95':>11} "
        f"{'vs target':>10}   detail"
    )
    row("a call, opened to resolved", per_call(calls), f"{len(calls)} calls of {GAMES} games")
    row("  a draw call", per_call(draws), f"{len(draws)} calls")
    row("  a discard call", per_call(discards), f"{len(discards)} calls (go-outs checked)")
    row("  a call with 12 or more cards a hand", per_call(late), f"{len(late)} calls")
    timeouts = []
    for state, _ in calls[:200]:
        start = time.process_time()
        apply(state, CALLER, CALL_TIMEOUT)
        timeouts.append(time.process_time() - start)
    row("a call timed out at once (all defaults)", timeouts, "first 200 calls")
    legal = []
    for state, _ in [c for c in late if c[0].phase.value == "discard"][:100]:
        start = time.process_time()
        for seat in range(len(PLAYERS)):
            legal_actions(state, seat)
        legal.append(time.process_time() - start)
    row("every seat's legal choices, discard call", legal, "10 seats, late discard calls")
    views = []
    for state, _ in late[:100]:
        start = time.process_time()
        for seat in range(len(PLAYERS)):
            view(state, seat)
            public_log(state, seat, since=max(state.version - 12, 0))
        views.append(time.process_time() - start)
    row("every seat's view and new log entries", views, "10 seats, 100 late calls")
    hints = []
    for state, choices in late[:100]:
        seat = choices[0][0]
        clear_memo()
        start = time.process_time()
        hint(sight(view(state, seat), public_log(state, seat), seat, state.rules))
        hints.append(time.process_time() - start)
    row("a seat's hint (memo cleared)", hints, "first chooser, 100 late calls")


if __name__ == "__main__":
    main()

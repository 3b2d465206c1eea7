"""The game of docs/records.md's worked example: two normal bots, seed 2026, classic rules."""

from __future__ import annotations

from engine.bots import decide
from engine.game import GameState, apply, new_game, public_log, view
from engine.records import GameRecord, record_of

SEED = 2026
BOTS = ("normal", "normal")
CREATED = "2026-12-02T06:00:00Z"
FINISHED = "2026-12-02T06:09:30Z"


def example_game() -> GameState:
    state = new_game(["ann", "bob"], "classic", SEED)
    while state.status == "playing":
        seat = state.turn
        action = decide(
            BOTS[seat],
            view(state, seat),
            public_log(state, seat),
            seat=seat,
            rules=state.rules,
            seed=SEED,
        )
        state = apply(state, seat, action)
    return state


def example_record() -> GameRecord:
    return record_of(example_game(), bots=BOTS, created=CREATED, finished=FINISHED)

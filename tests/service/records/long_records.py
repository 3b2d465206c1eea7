"""Long games, built in the engine in seconds: each seat in turn draws the upcard and discards
it again (``stalls`` times, as long as the rules let a game run), then the engine tests'
purposeful random player plays the game out (or, for a game still in play, plays a few rounds
first). Their records are as large as a client may make them."""

from __future__ import annotations

import random
from functools import cache

from engine.game import Discard, Draw, GameState, apply, new_game
from engine.records import print_record, record_of
from tests.engine.game_scenarios import choose

SEED = 2026


@cache
def long_finished_game(stalls: int) -> GameState:
    rng = random.Random(SEED)
    state = stalled(new_game(["ann", "bob"], "classic", SEED), stalls)
    while state.status == "playing":
        state = apply(state, state.turn, choose(state, rng))
    return state


@cache
def long_game_in_play(stalls: int, deals_ended: int = 2) -> GameState:
    """A game played out to its deal ``deals_ended + 1``, then stalled there: a long game
    still in play, with past rounds' results in its record."""
    rng = random.Random(SEED)
    state = new_game(["ann", "bob"], "classic", SEED)
    while state.deal <= deals_ended:
        state = apply(state, state.turn, choose(state, rng))
    return stalled(state, stalls)


def stalled(state: GameState, stalls: int) -> GameState:
    """``state`` after each seat in turn draws the upcard and discards it again ``stalls``
    times, at the start of a turn."""
    for _ in range(stalls):
        seat = state.turn
        upcard = state.piles[0][-1]
        state = apply(state, seat, Draw("discard"))
        state = apply(state, seat, Discard(upcard))
    return state


def long_record_text(stalls: int) -> str:
    """The text notation of ``long_finished_game(stalls)``: some 45 bytes a stall."""
    return print_record(record_of(long_finished_game(stalls)))

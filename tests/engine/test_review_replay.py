"""The review follows one replay of the game (each seat's ``DealReplay`` fed as it goes), and
equals the review that reads every decision's sight afresh from the whole public log
(``review_afresh`` in tests/engine/review_reference.py); and it stops at its work budget,
saying where, in ``GameReview.over_budget``.

``REVIEW_EXAMPLES`` (environment, default 6) sets the number of games compared with the
reference, which reads each sight afresh and so grows with the square of a game's length;
``REVIEW_EXAMPLES=200`` is the thorough run."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine.game import Discard, Draw, GameState, apply, new_game
from engine.game.actions import CallEnd
from engine.records.review import OverBudget, review_game, tallied
from engine.rules import Rules
from tests.engine.game_scenarios import stalling
from tests.engine.review_reference import review_afresh
from tests.engine.test_game_properties import NO_SHRINK, configurations
from tests.engine.test_records_speed import SPEED, speed_played


def stalled_game(
    rules: Rules | str | Mapping[str, object],
    players: int,
    seed: int | None,
    stall: int,
    *,
    until: int | None = None,
) -> GameState:
    """Purposeful random play with no go-out before version ``stall``; to its end, or to
    version ``until``."""
    state = new_game([f"p{i}" for i in range(players)], rules, seed)
    rng = random.Random(seed)
    while state.status == "playing" and (until is None or state.version < until):
        state = apply(state, state.turn, stalling(state, rng, stall))
    return state


EXAMPLES = int(os.environ.get("REVIEW_EXAMPLES", "6"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configurations(), st.integers(0, 2**32), st.integers(0, 250))
def test_the_review_equals_the_review_that_reads_each_sight_afresh(
    configuration: tuple[Rules, int, int | None], policy: int, stall: int
) -> None:
    """Every preset and option (per-player piles, redemption's table, reshuffled stocks in a
    stalled first round, deals again, tie-breaks): the same decisions, figures and totals."""
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()!r} players={players} seed={seed} policy={policy}")
    state = new_game([f"p{i}" for i in range(players)], rules, seed)
    rng = random.Random(policy)
    while state.status == "playing" and state.version < 400:
        state = apply(state, state.turn, stalling(state, rng, stall))
    review = review_game(state)
    assert review == review_afresh(state)
    assert review.complete


def test_a_long_round_of_many_reshuffles_is_reviewed_as_afresh() -> None:
    """A first round of 600 versions, its stock reshuffled four times: after a reshuffle a seat
    knows the stock's cards, which each seat's replay must follow across the round."""
    rules = {"preset": "classic", "stock_exhausted": "reshuffle"}
    state = stalled_game(rules, 2, 7, 600, until=650)
    whole = len(state.shuffles[0])
    assert sum(len(pack) < whole for pack in state.shuffles) >= 4
    assert review_game(state) == review_afresh(state)


# -- the work budget ------------------------------------------------------------------------------


def analysed(state: GameState, until: int) -> int:
    """The analyses a review of a game in turns does for the versions up to ``until``: one per
    draw and discard."""
    return sum(isinstance(r.action, Draw | Discard) for r in state.history[:until])


@pytest.mark.parametrize("budget", [0, 1, 2, 37, 150])
def test_a_review_over_its_budget_holds_the_versions_it_reached_and_says_so(budget: int) -> None:
    state = stalled_game("classic", 2, 3, 0)
    whole = review_game(state)
    assert analysed(state, state.version) > 150
    cut = review_game(state, budget)
    assert not cut.complete
    assert cut.over_budget is not None
    over = cut.over_budget
    assert (over.budget, over.versions) == (budget, state.version)
    # It stopped before the analysis past the budget: the versions up to `reviewed` took
    # exactly the budget, and the next version is a draw or a discard.
    assert analysed(state, over.reviewed) == budget
    assert isinstance(state.history[over.reviewed].action, Draw | Discard)
    kept = tuple(d for d in whole.decisions if d.version <= over.reviewed)
    assert cut.decisions == kept
    assert cut == tallied(kept, 2, over)


def test_a_budget_that_covers_the_game_reviews_it_whole() -> None:
    state = stalled_game("online", 3, 5, 0)
    needed = analysed(state, state.version)
    whole = review_game(state, needed)
    assert whole.complete
    assert whole.over_budget is None
    assert whole == review_game(state)
    last = max(v for v, r in enumerate(state.history, 1) if isinstance(r.action, Draw | Discard))
    assert review_game(state, needed - 1).over_budget == OverBudget(
        needed - 1, last - 1, state.version
    )


def test_a_speed_review_stops_before_the_call_past_its_budget() -> None:
    """A speed call's choices are analysed together (one each): the review stops before the
    call whose choices the budget cannot all take."""
    state = speed_played(SPEED, 3, 11, 11)
    whole = review_game(state)
    calls = [
        (v, len(r.action.moves))
        for v, r in enumerate(state.history, 1)
        if isinstance(r.action, CallEnd)
    ]
    budget = sum(n for _, n in calls[:10]) + calls[10][1] - 1  # ten calls and part of the 11th
    cut = review_game(state, budget)
    assert cut.over_budget == OverBudget(budget, calls[10][0] - 1, state.version)
    assert cut.decisions == tuple(d for d in whole.decisions if d.version <= calls[9][0])
    assert {d.version for d in cut.decisions} <= {v for v, _ in calls[:10]}


def test_a_negative_budget_is_a_caller_s_mistake() -> None:
    with pytest.raises(ValueError, match="count of analyses"):
        review_game(new_game(["a", "b"], "classic", 1), -1)

"""The review: every draw and discard of every seat against the hint's exact figures.

Each decision is judged from what its seat knew when it made it, exactly as the hint judges:
the seat's view and the public log it could see at that version (``engine.seen.sight``), then
``engine.advice.draw_hint`` or ``discard_hint``; never the hidden state. The game is replayed
from its own shuffles once, only to show each seat its view at each version: each seat's
``DealReplay`` takes each public log entry as the replay makes it, so a decision's sight costs
the same early and late in a long round, and a review costs time in proportion to the game's
length (``tests/benchmarks/bench_review.py`` measures the ratio).

A review does at most ``budget`` analyses (one hint each: a draw's or a discard's; work, never
time). One that would need more stops before the decision past its budget and says so in
``GameReview.over_budget``: the decisions of the versions up to ``OverBudget.reviewed``.

- A draw: the hint's expected least deadwood of the source taken, against the best source's
  (the hint's advice); the points lost are the difference, and the go-out chances are shown.
- A discard: the least deadwood the hand keeps after the card discarded, against the best
  discard's; a go-out declared on a hand that does not meld (``failed_go_out: penalty``) adds
  its penalty.
- A missed go-out is its own grade: going out was certain (a discard that goes out, or a pile's
  top card that lets the seat go out) and the seat did not take it.

In a speed game each seat's choice in each call (shown at the call's end, a default the caller
made for a seat that had not chosen among them) is judged from what the seat knew at the call's
start (``engine.records.speed_sight``), by the same figures; its version is the call end's.

Grades by points lost (docs/records.md): ``best`` none (and no go-out chance given up),
``good`` up to ``GOOD``, ``inaccuracy`` up to ``INACCURACY``, ``mistake`` up to ``MISTAKE``,
``blunder`` beyond. A decision's accuracy is ``100 * max(0, 1 - lost / ACCURACY_SCALE)`` (0 for
a missed go-out); a seat's or a round's is the mean over its decisions. Lay-offs, and decisions
with one legal choice, are not reviewed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, get_args

from engine.advice import DiscardHint, DrawHint, DrawOption, discard_hint, draw_hint
from engine.deal_replay import DealReplay
from engine.game import (
    Action,
    Discard,
    Draw,
    GameState,
    apply,
    public_log,
    replay,
    view,
)
from engine.game.actions import CALLER, CallEnd
from engine.records.speed_sight import SpeedDeal
from engine.seen import Sight, sight_of

Grade = Literal["best", "good", "inaccuracy", "mistake", "blunder", "missed_go_out"]
GRADES: Final[tuple[Grade, ...]] = get_args(Grade)
GOOD: Final = 1.0
"""Most points a ``good`` decision loses (expected deadwood points)."""
INACCURACY: Final = 3.0
MISTAKE: Final = 7.0
"""Beyond this, a ``blunder``."""
ACCURACY_SCALE: Final = 10.0
"""Points lost at which a decision's accuracy reaches 0."""
REVIEW_BUDGET: Final = 10_000
"""Most analyses one review does by default, one per draw and discard (a speed call's choices
one each): an 11-round game of 4 players needs 240 to 540, a round nobody goes out of any
number. Replaying a version without one (a lay-off, a speed choice made again) is not counted:
the game's length bounds it (``bench_review`` has the figures)."""
SAME: Final = 1e-9
"""Figures closer than this are equal (the hint's means are sums of whole numbers over one
total, so ties are exact up to rounding)."""


@dataclass(frozen=True, slots=True)
class Decision:
    version: int
    """The version the action made (its entry in the record)."""
    round: int
    deal: int
    seat: int
    choice: Action
    best: Action
    expected: float
    """Draw: the hint's expected least deadwood of the source taken. Discard: the least
    deadwood the hand keeps (plus any failed go-out penalty)."""
    best_expected: float
    go_out_chance: float
    """The chance to go out that the choice gave (a discard: 1 or 0)."""
    best_go_out_chance: float
    lost: float
    """Expected points lost: ``expected - best_expected`` (never negative)."""
    grade: Grade

    @property
    def accuracy(self) -> float:
        if self.grade == "missed_go_out":
            return 0.0
        return 100.0 * max(0.0, 1.0 - self.lost / ACCURACY_SCALE)


@dataclass(frozen=True, slots=True)
class Tally:
    """A seat's decisions, in the whole game or in one round."""

    seat: int
    decisions: int
    lost: float
    accuracy: float | None
    """The mean of the decisions' accuracies; None without a decision."""
    grades: tuple[tuple[Grade, int], ...]
    """How many decisions got each grade, every grade listed."""


@dataclass(frozen=True, slots=True)
class RoundTally:
    round: int
    deal: int
    seats: tuple[Tally, ...]


@dataclass(frozen=True, slots=True)
class OverBudget:
    """A review stopped at its budget: it holds every decision of the game's versions up to
    ``reviewed`` and none after, of the game's ``versions``."""

    budget: int
    """The analyses the review was allowed, all done."""
    reviewed: int
    versions: int


@dataclass(frozen=True, slots=True)
class GameReview:
    decisions: tuple[Decision, ...]
    seats: tuple[Tally, ...]
    rounds: tuple[RoundTally, ...]
    over_budget: OverBudget | None = None
    """None when every decision of the game is reviewed."""

    @property
    def complete(self) -> bool:
        return self.over_budget is None


def grade_of(lost: float, *, missed_go_out: bool, gave_up_chance: bool) -> Grade:
    """The grade of a decision that lost ``lost`` expected points."""
    if missed_go_out:
        return "missed_go_out"
    if lost <= SAME:
        return "good" if gave_up_chance else "best"
    if lost <= GOOD + SAME:
        return "good"
    if lost <= INACCURACY + SAME:
        return "inaccuracy"
    if lost <= MISTAKE + SAME:
        return "mistake"
    return "blunder"


def review_game(state: GameState, budget: int = REVIEW_BUDGET) -> GameReview:
    """Every decision made so far in ``state``'s game, graded, with the totals per seat and per
    round; at most ``budget`` analyses (see ``OverBudget``). (The service reviews finished
    games: while one is played, a review would show each seat's hand to whoever reads it.)"""
    if budget < 0:
        raise ValueError(f"a review's budget is a count of analyses, not {budget!r}")
    game = replay(state.players, state.rules, state.shuffle_record, [])
    work = _Work(budget)
    if state.rules.turns == "speed":
        decisions = _speed_decisions(state, game, work)
    else:
        decisions = _turn_decisions(state, game, work)
    over = None if work.reviewed is None else OverBudget(budget, work.reviewed, state.version)
    return tallied(decisions, len(state.players), over)


class _Work:
    """The analyses a review may still do; ``reviewed`` is set where it stopped."""

    def __init__(self, budget: int) -> None:
        self.left = budget
        self.reviewed: int | None = None

    def spend(self, analyses: int, version: int) -> bool:
        """Whether the analyses of the decisions at ``version`` fit in what is left (they are
        then spent); if not, the review stops before them."""
        if analyses > self.left:
            self.reviewed = version - 1
            return False
        self.left -= analyses
        return True


class _DealSights:
    """Each seat's replay of the deal being played, fed one public log entry per action:
    each entry as that seat may see it (``public_log``, the actor's own and everyone else's)."""

    def __init__(self, game: GameState) -> None:
        self.deal = game.deal
        self.replays = [DealReplay(view(game, s), s, game.rules) for s in range(len(game.players))]

    def sight(self, game: GameState, seat: int) -> Sight:
        return sight_of(self.replays[seat], view(game, seat))

    def followed(self, game: GameState, seat: int) -> _DealSights:
        """The sights after ``seat``'s action made ``game``: a new deal's afresh."""
        if game.deal != self.deal:
            return _DealSights(game)
        version = game.version
        (mine,) = public_log(game, seat, since=version - 1, until=version)
        (theirs,) = public_log(game, None, since=version - 1, until=version)
        for other, known in enumerate(self.replays):
            known.entry(mine if other == seat else theirs)
        return self


def _turn_decisions(state: GameState, game: GameState, work: _Work) -> tuple[Decision, ...]:
    decisions: list[Decision] = []
    sights = _DealSights(game)
    for record in state.history:
        action = record.action
        if isinstance(action, Draw | Discard):
            if not work.spend(1, game.version + 1):
                break
            judged = judge(game, sights.sight(game, record.seat), action)
            if judged is not None:
                decisions.append(judged)
        game = apply(game, record.seat, action)
        sights = sights.followed(game, record.seat)
    return tuple(decisions)


def _speed_decisions(state: GameState, game: GameState, work: _Work) -> tuple[Decision, ...]:
    """Every choice of every call, judged at the call's start (``start``: the choices before
    the call's end change nothing but themselves)."""
    decisions: list[Decision] = []
    start = game
    deal = SpeedDeal(game)
    for version, record in enumerate(state.history, 1):
        game = apply(game, record.seat, record.action)
        if record.seat != CALLER or type(record.action) is not CallEnd:
            continue
        if not work.spend(len(record.action.moves), version):
            break
        for move in record.action.moves:
            known = deal.sight(start, move.seat)
            judged = judge(start, known, move.action)
            if judged is not None:
                decisions.append(dataclasses.replace(judged, version=version))
        deal.call_ended(record.action)
        if game.deal != deal.deal:
            deal = SpeedDeal(game)
        start = game
    return tuple(decisions)


def judge(game: GameState, known: Sight, action: Action) -> Decision | None:
    """The decision of ``action`` by the seat that knows ``known`` in ``game``; None for an
    action not reviewed (a lay-off) or without a choice."""
    if isinstance(action, Draw):
        return _judge_draw(game, known, action, draw_hint(known))
    if isinstance(action, Discard):
        return _judge_discard(game, known, action, discard_hint(known))
    return None


def _judge_draw(game: GameState, known: Sight, action: Draw, hint: DrawHint) -> Decision | None:
    if len(hint.options) < 2:  # noqa: PLR2004 - no choice: the stock alone
        return None
    pile = None  # the stock's, or the shared pile's
    if action.source == "discard" and game.rules.discard_piles == "per_player":
        pile = action.pile if action.pile is not None else known.seat
    chosen = next(o for o in hint.options if _source(o) == (action.source, pile))
    best = hint.advised
    lost = max(0.0, chosen.expected_deadwood - best.expected_deadwood)
    certain = 1.0 - SAME
    grade = grade_of(
        lost,
        missed_go_out=best.go_out_chance >= certain and chosen.go_out_chance < certain,
        gave_up_chance=chosen.go_out_chance < best.go_out_chance - SAME,
    )
    return _decision(
        game,
        known.seat,
        action,
        Draw(best.source, best.pile),
        (chosen.expected_deadwood, best.expected_deadwood),
        (chosen.go_out_chance, best.go_out_chance),
        lost,
        grade,
    )


def _source(option: DrawOption) -> tuple[str, int | None]:
    return option.source, option.pile


def _judge_discard(
    game: GameState, known: Sight, action: Discard, hint: DiscardHint
) -> Decision | None:
    options = hint.discards
    if len(options) < 2 and not any(o.go_out for o in options):  # noqa: PLR2004 - no choice
        return None
    chosen = next(o for o in options if o.card == action.card)
    best = options[0]
    went_out = action.go_out and chosen.go_out
    failed = action.go_out and not chosen.go_out
    expected = chosen.deadwood_points + (game.rules.failed_go_out_penalty if failed else 0)
    lost = float(max(0, expected - best.deadwood_points))
    grade = grade_of(lost, missed_go_out=best.go_out and not went_out, gave_up_chance=False)
    return _decision(
        game,
        known.seat,
        action,
        Discard(best.card, go_out=best.go_out),
        (float(expected), float(best.deadwood_points)),
        (1.0 if went_out else 0.0, 1.0 if best.go_out else 0.0),
        lost,
        grade,
    )


def _decision(  # noqa: PLR0913, PLR0917 - a decision's figures, paired as the hint gives them
    game: GameState,
    seat: int,
    choice: Action,
    best: Action,
    expected: tuple[float, float],
    chances: tuple[float, float],
    lost: float,
    grade: Grade,
) -> Decision:
    return Decision(
        version=game.version + 1,
        round=game.round,
        deal=game.deal,
        seat=seat,
        choice=choice,
        best=best,
        expected=expected[0],
        best_expected=expected[1],
        go_out_chance=chances[0],
        best_go_out_chance=chances[1],
        lost=lost,
        grade=grade,
    )


# -- totals ---------------------------------------------------------------------------------------


def tally(seat: int, decisions: Iterable[Decision]) -> Tally:
    """A seat's totals over ``decisions`` (its own among them)."""
    mine = [d for d in decisions if d.seat == seat]
    counts = dict.fromkeys(GRADES, 0)
    for d in mine:
        counts[d.grade] += 1
    accuracy = sum(d.accuracy for d in mine) / len(mine) if mine else None
    return Tally(seat, len(mine), sum(d.lost for d in mine), accuracy, tuple(counts.items()))


def tallied(
    decisions: tuple[Decision, ...], players: int, over_budget: OverBudget | None = None
) -> GameReview:
    """The review of ``decisions``: with each seat's totals, in the game and per deal."""
    deals: dict[int, list[Decision]] = {}
    rounds: dict[int, int] = {}
    for d in decisions:
        deals.setdefault(d.deal, []).append(d)
        rounds[d.deal] = d.round
    return GameReview(
        decisions=decisions,
        seats=tuple(tally(seat, decisions) for seat in range(players)),
        rounds=tuple(
            RoundTally(rounds[deal], deal, tuple(tally(seat, ds) for seat in range(players)))
            for deal, ds in sorted(deals.items())
        ),
        over_budget=over_budget,
    )

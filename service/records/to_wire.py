"""Engine → wire for records: a review in ``service.records.wire``'s shapes."""

from __future__ import annotations

from engine.records import GameReview, Tally
from service.games.to_wire import legal_to_wire
from service.records.wire import (
    DecisionOut,
    GradeCount,
    OverBudgetOut,
    ReviewOut,
    RoundTallyOut,
    TallyOut,
)


def review_to_wire(review: GameReview) -> ReviewOut:
    return ReviewOut(
        decisions=[
            DecisionOut(
                version=d.version,
                round=d.round,
                deal=d.deal,
                seat=d.seat,
                choice=legal_to_wire([d.choice])[0],
                best=legal_to_wire([d.best])[0],
                expected=d.expected,
                best_expected=d.best_expected,
                go_out_chance=d.go_out_chance,
                best_go_out_chance=d.best_go_out_chance,
                lost=d.lost,
                grade=d.grade,
                accuracy=d.accuracy,
            )
            for d in review.decisions
        ],
        seats=[_tally(t) for t in review.seats],
        rounds=[
            RoundTallyOut(round=r.round, deal=r.deal, seats=[_tally(t) for t in r.seats])
            for r in review.rounds
        ],
        over_budget=None
        if review.over_budget is None
        else OverBudgetOut(
            budget=review.over_budget.budget,
            reviewed=review.over_budget.reviewed,
            versions=review.over_budget.versions,
        ),
    )


def _tally(tally: Tally) -> TallyOut:
    return TallyOut(
        seat=tally.seat,
        decisions=tally.decisions,
        lost=tally.lost,
        accuracy=tally.accuracy,
        grades=[GradeCount(grade=g, count=c) for g, c in tally.grades],
    )

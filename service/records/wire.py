"""The JSON shapes of records, imports, reviews and given deals on the wire."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from service.games.wire import LegalAction
from service.http.wire import Out
from service.vocabulary.wire import RoundNumber, Seat

Grade = Literal["best", "good", "inaccuracy", "mistake", "blunder", "missed_go_out"]

RecordJson = Annotated[
    dict[str, Any],
    Meta(
        description=(
            "A game record in its JSON form (docs/records.md): `format`, `record` (`public` or "
            "`whole`), `status`, `players`, `bots`, `first_dealer`, `rules` (every option), "
            "`totals`, `winners`, `created` and `finished` (absent when not known), and "
            "`rounds`, each with its deal (once the game is over), its actions as entries of "
            "the game's log (a speed game's: its `call_end` entries; each round's `upcards`, one "
            "per seat dealt in), and its result; `next_since` when a page of the actions is "
            "followed by more."
        )
    ),
]


class RecordImported(Out, frozen=True):
    """A record that replayed: the id it is kept under, and the result the replay reached."""

    record_id: Annotated[str, Meta(examples=["kq0cYFz2R1mA5lVt"])]
    players: list[str]
    status: Literal["playing", "finished"]
    rounds: Annotated[int, Meta(description="Deals the record holds (a round dealt again counts).")]
    totals: list[int]
    winners: list[Seat] | None
    expires_in: Annotated[
        int,
        Meta(
            ge=0,
            description="Seconds the record is kept (`GAME_TTL`): its review with it.",
        ),
    ]


class DecisionOut(Out, frozen=True):
    """One draw or discard of one seat, judged from what the seat knew then."""

    version: Annotated[int, Meta(description="The version the action made.")]
    round: RoundNumber
    deal: int
    seat: Seat
    choice: LegalAction
    best: LegalAction
    expected: Annotated[
        float,
        Meta(
            description=(
                "A draw: the hint's exact expected least deadwood after the source taken. A "
                "discard: the least deadwood the hand kept."
            )
        ),
    ]
    best_expected: float
    go_out_chance: float
    best_go_out_chance: float
    lost: Annotated[float, Meta(description="Expected points lost: never negative.")]
    grade: Grade
    accuracy: Annotated[float, Meta(description="0 to 100, as docs/records.md defines it.")]


class GradeCount(Out, frozen=True):
    grade: Grade
    count: int


class TallyOut(Out, frozen=True):
    """A seat's decisions, in the whole game or in one round."""

    seat: Seat
    decisions: int
    lost: float
    accuracy: Annotated[float | None, Meta(description="Mean accuracy; null without decisions.")]
    grades: list[GradeCount]


class RoundTallyOut(Out, frozen=True):
    round: RoundNumber
    deal: int
    seats: list[TallyOut]


class OverBudgetOut(Out, frozen=True):
    """A review stopped at its budget: it holds every decision up to version ``reviewed`` and
    none after, of the game's ``versions``."""

    budget: Annotated[int, Meta(description="The analyses a review may make, all made.")]
    reviewed: Annotated[int, Meta(ge=0, description="The last version reviewed.")]
    versions: Annotated[int, Meta(ge=0, description="The game's versions.")]


class ReviewOut(Out, frozen=True):
    """Every decision of every seat, people and bots alike, with the totals per seat and round.
    Computed once per finished game and kept; a review of a game longer than a review's budget
    covers its first versions only, and says so (``over_budget``)."""

    decisions: list[DecisionOut]
    seats: list[TallyOut]
    rounds: list[RoundTallyOut]
    over_budget: Annotated[
        OverBudgetOut | None,
        Meta(description="Null: every decision is reviewed. Else where the review stopped."),
    ] = None


class ReviewPending(Out, frozen=True):
    """The review is being computed (once, on one instance, for everyone who asks): ask again
    after ``retry_after`` seconds, as the answer's ``Retry-After`` says too."""

    retry_after: Annotated[int, Meta(ge=1, description="Seconds to wait before asking again.")]
    status: Literal["computing"] = "computing"

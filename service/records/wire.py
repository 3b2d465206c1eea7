"""The JSON shapes of records, imports, reviews and given deals on the wire."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from service.games.level_wire import BotLevel
from service.games.log_wire import LogEntryOut
from service.games.wire import LegalAction, SeatResultOut
from service.http.wire import Out
from service.vocabulary.wire import CanonicalCard, RoundNumber, RulesOut, Seat, Version

Grade = Literal["best", "good", "inaccuracy", "mistake", "blunder", "missed_go_out"]


class RecordResult(Out, frozen=True):
    """A round's result: the seats that went out, and every hand laid out and scored."""

    out_seat: Annotated[Seat | None, Meta(description="The first seat that went out; null: none.")]
    out_seats: Annotated[
        list[Seat],
        Meta(description="Every seat that went out (several on one speed call), first first."),
    ]
    replayed: Annotated[
        bool,
        Meta(description="Double naughts: every seat melded, the round is dealt again."),
    ]
    tiebreak: bool
    scores: Annotated[
        list[SeatResultOut], Meta(description="Every hand in its best arrangement, scored.")
    ]


class RecordRound(Out, frozen=True, kw_only=True):
    """One deal: its seats, its upcard and, in a whole record, its cards; every action (a
    speed game's: every call that ended); its result once it is over."""

    round: Annotated[
        int, Meta(ge=1, description="The round, 1 first; past the rules' rounds: a tie-break.")
    ]
    deal: Annotated[int, Meta(ge=1, description="The deal's number (a round dealt again counts).")]
    dealer: Seat
    seats: Annotated[list[Seat], Meta(description="The seats dealt in.")]
    upcard: Annotated[
        CanonicalCard, Meta(description="The card turned up at the deal (speed: the first).")
    ]
    upcards: Annotated[
        list[CanonicalCard] | UnsetType,
        Meta(description="A speed game: the card on each seat's pile, in the order of `seats`."),
    ] = UNSET
    hands: Annotated[
        list[list[CanonicalCard]] | UnsetType,
        Meta(description="A whole record: each seat's hand as dealt, seat 0's first."),
    ] = UNSET
    stock: Annotated[
        list[CanonicalCard] | UnsetType,
        Meta(description="A whole record: the stock, its first card drawn first."),
    ] = UNSET
    restocks: Annotated[
        list[list[CanonicalCard]] | UnsetType,
        Meta(description="A whole record: each stock reshuffled from the discards, in order."),
    ] = UNSET
    actions: Annotated[
        list[LogEntryOut],
        Meta(
            description=(
                "Entries of the game's log, in order: never `chosen` (a speed game's are its "
                "`call_end` entries)."
            )
        ),
    ]
    result: Annotated[RecordResult | None, Meta(description="Null while the round is played.")]


class RecordJson(Out, frozen=True, kw_only=True):
    """A game record in its JSON form (docs/records.md): the headers, then one entry per deal.
    ``GET /v1/games/{game_id}/record`` answers it and ``POST /v1/records`` takes it back as it
    is (a finished game's whole record)."""

    format: Annotated[
        Literal[1], Meta(description="The version of the record format, 1 (docs/records.md).")
    ]
    record: Annotated[
        Literal["public", "whole"],
        Meta(description="`public` while the game is played (as the log), `whole` once over."),
    ]
    status: Literal["playing", "finished"]
    created: Annotated[
        str | UnsetType,
        Meta(description="When the game was created (UTC, ISO 8601); absent when not known."),
    ] = UNSET
    finished: Annotated[
        str | UnsetType,
        Meta(description="When the game ended (UTC, ISO 8601); absent while it is played."),
    ] = UNSET
    players: Annotated[list[str], Meta(description="Each seat's name, seat 0's first.")]
    bots: Annotated[
        list[BotLevel | None], Meta(description="Each seat's computer level; null for a person.")
    ]
    first_dealer: Seat
    rules: Annotated[RulesOut, Meta(description="The game's rules, every option.")]
    totals: Annotated[list[int], Meta(description="Each seat's total so far.")]
    winners: Annotated[list[Seat] | None, Meta(description="Null until the game is finished.")]
    rounds: list[RecordRound]
    next_since: Annotated[
        Version | UnsetType,
        Meta(description="A page followed by more actions: the `since` of the next page."),
    ] = UNSET


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

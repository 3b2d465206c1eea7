"""The JSON shapes of ``/v1/scoresheets``: score sheets for games played with real cards.

Requests are strict like every other body (``wire.Strict``); cards and ranks are text here and
the engine's ints past ``service.sheets.lifecycle``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.analysis import MAX_HAND
from service.http.wire import Out, Strict
from service.vocabulary.wire import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    CanonicalCard,
    CanonicalRank,
    CardCode,
    MeldOut,
    PlayerName,
    RulesOut,
    RulesSpec,
    Seat,
    Version,
)

SheetId = Annotated[str, Meta(description="The score sheet's id.", examples=["Xc1c3vF0t8mNq2Lb"])]
GivenPoints = Annotated[
    int,
    Meta(ge=0, le=100_000, description="A seat's score for the round, as counted at the table."),
]
FailedGoOuts = Annotated[
    int,
    Meta(
        ge=0,
        le=100,
        description=(
            "Go-outs this seat declared in the round whose hand did not meld: each adds the "
            "failed_go_out_penalty (rules with failed_go_out 'penalty' only; cards entries only)."
        ),
    ),
]


class CreateSheetRequest(Strict, frozen=True):
    players: Annotated[
        Annotated[list[PlayerName], Meta(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)],
        Meta(description="The players' names, seat 0 first: 2 to the rules' max_players."),
    ]
    rules: RulesSpec = "classic"
    first_dealer: Annotated[
        Seat | None,
        Meta(description="Who deals round 1; omitted, drawn from a cryptographic source."),
    ] = None


class EntryIn(Strict, frozen=True):
    """One seat's result: exactly one of ``cards`` (the cards left in its hand, scored exactly)
    and ``points`` (its score as counted at the table, taken as given)."""

    seat: Seat
    cards: Annotated[list[CardCode], Meta(max_length=MAX_HAND)] | None = None
    points: GivenPoints | None = None
    failed_go_outs: FailedGoOuts = 0


class EnterRoundRequest(Strict, frozen=True):
    entries: Annotated[
        Annotated[list[EntryIn], Meta(min_length=1, max_length=MAX_PLAYERS)],
        Meta(description="One per seat that played the round, in any order."),
    ]
    out_seat: Annotated[
        Seat | None,
        Meta(
            description=(
                "The seat that went out: its cards must meld completely, or its points be 0."
            )
        ),
    ] = None


class SheetEntryOut(Out, frozen=True):
    seat: Seat
    points: Annotated[int, Meta(description="What the seat scored for the round.")]
    given: Literal["cards", "points"]
    cards: Annotated[
        list[CanonicalCard] | None,
        Meta(description="The cards entered, sorted; null for a points entry."),
    ]
    melds: Annotated[
        list[MeldOut] | None,
        Meta(description="A cards entry's best arrangement; null for a points entry."),
    ]
    deadwood: list[CanonicalCard] | None
    deadwood_points: Annotated[
        int,
        Meta(
            description=("The least deadwood of the cards (for a points entry, the points given).")
        ),
    ]
    failed_go_outs: int


class ReplayedDealOut(Out, frozen=True):
    """A double naught: every seat melded, so the round was dealt again and this counts for
    nothing."""

    out_seat: Seat | None
    entries: list[SheetEntryOut]


class SheetRoundOut(Out, frozen=True):
    round: int
    cards_dealt: int
    wild: CanonicalRank
    dealer: Seat
    seats: Annotated[
        list[Seat],
        Meta(description="The seats that play it: all, or in the tie-break round the tied ones."),
    ]
    tiebreak: bool
    entered: bool
    out_seat: Seat | None
    entries: Annotated[
        list[SheetEntryOut] | None, Meta(description="Once entered, one per seat, seat order.")
    ]
    totals: Annotated[
        list[int] | None,
        Meta(description="Once entered, each seat's running total after this round."),
    ]
    replayed: list[ReplayedDealOut]


class SheetPlayerOut(Out, frozen=True):
    seat: Seat
    name: str


class ScoreSheet(Out, frozen=True):
    sheet_id: SheetId
    version: Annotated[
        Version, Meta(description="Increases by one per round entered or corrected.")
    ]
    status: Literal["playing", "finished"]
    rules: RulesOut
    players: list[SheetPlayerOut]
    first_dealer: Seat
    rounds: Annotated[
        list[SheetRoundOut],
        Meta(
            description=(
                "Every round of the sheet, entered or not: each shows its cards dealt, "
                "wild rank and dealer before anything is entered."
            )
        ),
    ]
    next_round: Annotated[
        int | None, Meta(description="The round to enter next; null once finished.")
    ]
    totals: Annotated[list[int], Meta(description="One per player, seat 0 first.")]
    winners: Annotated[
        list[Seat] | None,
        Meta(
            description=(
                "Once finished, the seats that won (the lowest total; ties share it, or"
                " the tie-break round decides); null before."
            )
        ),
    ]


class SheetCreated(Out, frozen=True):
    sheet_id: SheetId
    edit_token: Annotated[
        str,
        Meta(
            description=(
                "The sheet's secret, shown only here: send it as `Authorization: Bearer"
                " <edit_token>` to enter rounds."
            )
        ),
    ]
    sheet: ScoreSheet

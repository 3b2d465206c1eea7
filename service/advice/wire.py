"""The JSON shapes of the advice: ``GET /v1/games/{game_id}/hint`` and ``POST /v1/advise``.

Built from the shared words of ``service.vocabulary.wire``.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec
from msgspec import Meta

from service.http.wire import Out, Strict
from service.vocabulary.wire import (
    MAX_GAME_HAND,
    MAX_PLAYERS,
    MIN_PLAYERS,
    CanonicalCard,
    CardCode,
    Count,
    RoundNumber,
    RulesSpec,
    Seat,
    WildRank,
)

_GAME_HAND_SPAN: Final = (
    f"1 to {MAX_GAME_HAND} cards, a game's hand after its draw: with `upcard`, at most "
    f"{MAX_GAME_HAND - 1}."
)
GameHand = Annotated[
    list[CardCode],
    Meta(min_length=1, max_length=MAX_GAME_HAND, description=_GAME_HAND_SPAN),
]


class AdviseRequest(Strict, frozen=True):
    hand: Annotated[
        GameHand,
        Meta(
            description=(
                "Before the draw when `upcard` is given; else after it (one card over "
                f"the round's size). {_GAME_HAND_SPAN}"
            )
        ),
    ]
    wild: WildRank = None
    round: RoundNumber | None = None
    rules: RulesSpec = "classic"
    upcard: Annotated[
        CardCode | None,
        Meta(description="The discard pile's top card: the advice is then for the draw."),
    ] = None
    seen: Annotated[
        Annotated[list[CardCode], Meta(max_length=200)],
        Meta(
            description=(
                "Cards known to be out of the stock (discarded, or held by someone who took them)."
            )
        ),
    ] = msgspec.field(default_factory=list)
    players: Annotated[
        Annotated[int, Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)],
        Meta(
            description=(
                "Seats at the table: they set the pack where the rules make it depend on them."
            )
        ),
    ] = 2


class DrawOptionOut(Out, frozen=True):
    source: Literal["stock", "discard"]
    pile: Annotated[
        Seat | None,
        Meta(
            description=(
                "Per-player discard piles: whose pile; null for the stock or the shared pile."
            )
        ),
    ]
    card: Annotated[
        CanonicalCard | None, Meta(description="The pile's top card; null for the stock.")
    ]
    expected_deadwood: Annotated[
        float,
        Meta(
            description=(
                "The least deadwood after the best discard: the mean over the unseen "
                "cards for the stock, exact for a pile's top card."
            )
        ),
    ]
    go_out_chance: Annotated[
        float,
        Meta(
            ge=0,
            le=1,
            description=(
                "The chance that the draw lets the seat end the round with 0 points: go out "
                "now, or, on a last turn after another seat went out, be left fully melded."
            ),
        ),
    ]


class DiscardOptionOut(Out, frozen=True):
    card: CanonicalCard
    deadwood_points: Annotated[
        Count, Meta(description="The least deadwood of the hand left after discarding `card`.")
    ]
    go_out: bool


class HintOut(Out, frozen=True):
    """Draw phase: ``draw``, ``pile`` and ``options``; discard phase: ``discards`` and
    ``suggested``; both: ``reason``. The other phase's fields are null."""

    phase: Literal["draw", "discard"]
    reason: Annotated[str, Meta(description="The advice in one line.")]
    draw: Literal["stock", "discard"] | None = None
    pile: Annotated[
        Seat | None, Meta(description="The advised pile, under per-player discard piles.")
    ] = None
    options: list[DrawOptionOut] | None = None
    stock_known: Annotated[
        bool | None,
        Meta(
            description=(
                "Draw phase: the stock was reshuffled this round from the discards, so its "
                "cards are known and the stock's figures are over them alone."
            )
        ),
    ] = None
    discards: Annotated[
        list[DiscardOptionOut] | None,
        Meta(description="Every distinct card the seat may discard, best first."),
    ] = None
    suggested: CanonicalCard | None = None

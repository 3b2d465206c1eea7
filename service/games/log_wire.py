"""The JSON shapes of a game's log (``GET /v1/games/{game_id}/log``, and each event's entry).
Each entry's ``type`` is its engine action's name (``engine.game.ACTION_NAMES``)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.game.actions import ACTION_NAMES, CallEnd, Chosen, Discard, Draw, LayOff
from service.http.wire import Out
from service.vocabulary.wire import MAX_PLAYERS, CanonicalCard, GameId, Seat, Version

LogSeat = Annotated[
    int,
    Meta(
        ge=-1,
        le=MAX_PLAYERS - 1,
        description="The seat that acted; -1 for the caller (a speed call's end).",
    ),
]


class LoggedDraw(Out, frozen=True, tag=ACTION_NAMES[Draw], tag_field="type"):
    source: Literal["stock", "discard"]
    pile: Seat | None


class LoggedDiscard(Out, frozen=True, tag=ACTION_NAMES[Discard], tag_field="type"):
    go_out: bool
    pile: Annotated[
        Seat | None,
        Meta(description="A joker onto another seat's pile (`joker_discards: any_pile`)."),
    ] = None


class LoggedChosen(Out, frozen=True, tag=ACTION_NAMES[Chosen], tag_field="type"):
    """Speed: the seat chose in the open call; what it chose stays secret until the call ends."""


class MoveOut(Out, frozen=True):
    """One seat's choice in a speed call that has ended, with its card."""

    seat: Seat
    action: LoggedDraw | LoggedDiscard
    card: Annotated[
        CanonicalCard | None,
        Meta(
            description="Null for a card another seat drew from the stock, while its round lasts."
        ),
    ]


class LoggedCallEnd(Out, frozen=True, tag=ACTION_NAMES[CallEnd], tag_field="type"):
    """Speed: a call ended (its last seat chose, or the caller's time ran out); every choice
    revealed and applied at once, stock draws in play order from the dealer's left."""

    number: int
    phase: Literal["draw", "discard"]
    moves: list[MoveOut]
    timed_out: bool


class LoggedLayOff(Out, frozen=True, tag=ACTION_NAMES[LayOff], tag_field="type"):
    seat: Seat
    meld: int


class LogEntryOut(Out, frozen=True):
    version: Annotated[
        Version,
        Meta(
            description=(
                "The game's version once this action was applied (the first action "
                "makes version 1)."
            )
        ),
    ]
    seat: LogSeat
    action: LoggedDraw | LoggedDiscard | LoggedLayOff | LoggedChosen | LoggedCallEnd
    card: Annotated[
        CanonicalCard | None,
        Meta(
            description=(
                "The card drawn, discarded or laid off; a card drawn from the stock is "
                "null unless you drew it or its round is over."
            )
        ),
    ]


class GameLog(Out, frozen=True):
    game_id: GameId
    version: Version
    entries: list[LogEntryOut]
    next_since: Annotated[
        Version | None,
        Meta(
            description=(
                "More entries follow: ask again with this as `since`. Null when this page "
                "ends at the game's latest entry."
            )
        ),
    ] = None

"""The JSON shapes of the tables: claiming a seat, the lobby, a browser's stream URL."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from engine.rule_checks import Turns
from service.games.level_wire import BotLevel
from service.games.wire import GameView
from service.http.wire import Out, Strict
from service.vocabulary.wire import Count, GameId, PlayerName, Seat


class ClaimRequest(Strict, frozen=True):
    """Exactly one of: ``{"name": …}`` a person, whose seat the answer's token holds, or
    ``{"me": true}`` the caller, a player (its key sent as Authorization): the seat is the
    player's, named as the player, and the player's key acts for it as its token does."""

    name: PlayerName | UnsetType = UNSET
    me: Literal[True] | UnsetType = UNSET


class SeatClaimed(Out, frozen=True):
    game_id: GameId
    seat: Seat
    token: Annotated[
        str, Meta(description="This seat's secret, shown to this caller only, this once.")
    ]
    view: Annotated[GameView, Meta(description="The seat's own view.")]


class StreamUrl(Out, frozen=True):
    url: Annotated[
        str,
        Meta(
            description=(
                "Open it with a browser `EventSource`: this seat's private stream, "
                "resumable with `Last-Event-ID`. It grants reading that stream only and"
                " expires with the game. Root-relative (`/v1/games/…`) unless the service is"
                " configured with its public URL: resolve it against the API's base URL."
            )
        ),
    ]


class TableSeatOut(Out, frozen=True):
    seat: Seat
    name: str | None
    open: bool
    bot: Annotated[
        BotLevel | None,
        Meta(description="A computer player's level; null for a person or an open seat."),
    ] = None


class TableOut(Out, frozen=True):
    """A listed table waiting for players."""

    game_id: GameId
    invite_code: str
    preset: str
    seats: list[TableSeatOut]
    seats_taken: Count
    seats_open: Count
    turns: Annotated[
        Turns,
        Meta(description="`speed`: a 3-13 Speed table, every seat choosing at once each call."),
    ] = "in_turn"


class Lobby(Out, frozen=True, omit_defaults=True):
    tables: Annotated[list[TableOut], Meta(description="Newest first, at most `limit`.")]
    next_cursor: Annotated[
        str | None,
        Meta(
            description=(
                "More tables follow: ask again with this as `cursor`. Absent on the last page."
            )
        ),
    ] = None

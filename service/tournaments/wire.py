"""The JSON shapes of tournaments (docs/tournaments.md)."""

from __future__ import annotations

import datetime
from typing import Annotated, Final, Literal

from msgspec import Meta

from service.games.wire import TurnSeconds
from service.http.wire import Out, Strict
from service.players.wire import PlayerId
from service.records.wire import RecordJson
from service.vocabulary.wire import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Count,
    GameId,
    PlayerName,
    RulesOut,
    RulesSpec,
)

MAX_ENTRANTS: Final = 64
"""The most entrants a tournament takes."""
MAX_TOURNAMENT_ROUNDS: Final = 30
STARTS_WITHIN: Final = 30 * 86400
"""How far ahead a tournament may be set to start, in seconds."""
REGISTRATION_SECONDS: Final = 600
"""When an open tournament starts if its request names no time: this long after its creation."""

TournamentId = Annotated[str, Meta(min_length=1, max_length=64, description="A tournament's id.")]
TournamentFormat = Literal["round_robin", "swiss"]
TournamentStatus = Literal["open", "running", "finished"]
HalfPoints = Annotated[float, Meta(ge=0, multiple_of=0.5)]


class TournamentRequest(Strict, frozen=True):
    name: PlayerName
    rules: RulesSpec = "classic"
    format: Annotated[
        TournamentFormat,
        Meta(
            description=(
                "`round_robin`: every two entrants meet at a table; `swiss`: each round pairs "
                "entrants of like points, never two at one table twice when avoidable."
            )
        ),
    ] = "swiss"
    rounds: Annotated[
        Annotated[int, Meta(ge=1, le=MAX_TOURNAMENT_ROUNDS)] | None,
        Meta(
            description=(
                "The rounds to play. Default: a round robin's whole schedule (a number plays "
                "its first rounds only); a Swiss, enough rounds for the entrants at tables of "
                "this size (log base `table_size` of the entrants, rounded up, at least 2)."
            )
        ),
    ] = None
    table_size: Annotated[
        int, Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS, description="Seats at each table. Default 2.")
    ] = 2
    duplicate: Annotated[
        bool,
        Meta(
            description=(
                "Every table of a round plays the same deals, table `t` with the hands moved "
                "`t` seats on, so that the cards' luck cancels out."
            )
        ),
    ] = False
    starts_at: Annotated[
        Annotated[datetime.datetime, Meta(tz=True)] | None,
        Meta(
            description=(
                "When round 1 is paired (ISO 8601 with its offset), at most 30 days ahead; a "
                "time past starts it at once. Default: at once with `entrants`, in 10 minutes "
                "with open registration."
            )
        ),
    ] = None
    entrants: Annotated[
        Annotated[list[PlayerId], Meta(max_length=MAX_ENTRANTS)] | None,
        Meta(
            description=(
                "The entrants, by player id (the built-in levels `bot-easy` … `bot-expert` "
                "among them if wanted), registration closed; null (the default): open "
                "registration, players join until the start."
            )
        ),
    ] = None
    turn_seconds: Annotated[
        TurnSeconds,
        Meta(description="Every game's turn clock (an entrant who never shows is played away)."),
    ] = 60
    rated: Annotated[
        bool,
        Meta(
            description=(
                "Every game moves its seats' ratings (every seat is a player: people, bot "
                "players, the built-in levels). A rated tournament plays a preset's own rules "
                "(`turns` apart): with an option overridden, `rated: false` is required (422 "
                "naming `rated` otherwise)."
            )
        ),
    ] = True


class EntrantOut(Out, frozen=True):
    player_id: PlayerId
    name: PlayerName
    bot: Annotated[bool, Meta(description="A built-in level.")]


class PairingOut(Out, frozen=True):
    table: Annotated[Count, Meta(description="The table's number in its round, 0 first.")]
    game_id: GameId
    players: Annotated[list[PlayerId], Meta(description="The entrants, seat by seat.")]
    rotation: Annotated[
        Count | None,
        Meta(description="Duplicate: the seats the round's deals are moved on at this table."),
    ]
    scores: Annotated[
        list[int] | None, Meta(description="The final totals, seat by seat, once it is over.")
    ]
    points: Annotated[
        list[HalfPoints] | None,
        Meta(description="The tournament points of each seat, once it is over."),
    ]


class RoundOut(Out, frozen=True):
    round: Annotated[int, Meta(ge=1)]
    status: Literal["playing", "finished"]
    pairings: list[PairingOut]
    games: Annotated[list[GameId], Meta(description="The round's games, table by table.")]
    byes: Annotated[list[PlayerId], Meta(description="The entrants who sit the round out.")]


class StandingOut(Out, frozen=True):
    rank: Annotated[int, Meta(ge=1)]
    player_id: PlayerId
    name: PlayerName
    points: HalfPoints
    buchholz: Annotated[
        HalfPoints, Meta(description="Tie-break 1: the points of everyone met, summed.")
    ]
    wins: Annotated[Count, Meta(description="Tie-break 2: games finished first.")]
    total: Annotated[
        int, Meta(description="Tie-break 3, the lower the better: the final game scores summed.")
    ]
    games: Count
    byes: Count


class CrossResultOut(Out, frozen=True):
    round: Annotated[int, Meta(ge=1)]
    bye: bool
    game_id: GameId | None
    table: Count | None
    place: Annotated[int | None, Meta(description="1 for the table's lowest total.")]
    points: HalfPoints | None
    opponents: list[PlayerId]


class CrosstableRowOut(Out, frozen=True):
    player_id: PlayerId
    name: PlayerName
    results: Annotated[list[CrossResultOut], Meta(description="One entry per round paired.")]


class Tournament(Out, frozen=True):
    tournament_id: TournamentId
    name: PlayerName
    creator: PlayerId
    status: Annotated[
        TournamentStatus,
        Meta(description="`open` (registration), `running`, `finished` (see `note`)."),
    ]
    format: TournamentFormat
    rules: RulesOut
    table_size: int
    duplicate: bool
    turn_seconds: int
    rated: Annotated[bool, Meta(description="Its games move their seats' ratings.")]
    open_registration: bool
    starts_at: str
    created: str
    finished_at: str | None
    planned_rounds: Annotated[
        Count | None, Meta(description="The rounds it plays, fixed when it starts.")
    ]
    note: Annotated[str | None, Meta(description="Why it finished without playing, if it did.")]
    entrants: list[EntrantOut]
    rounds: list[RoundOut]
    standings: Annotated[list[StandingOut], Meta(description="Best first.")]
    crosstable: list[CrosstableRowOut]


class TournamentSummary(Out, frozen=True):
    tournament_id: TournamentId
    name: PlayerName
    status: TournamentStatus
    format: TournamentFormat
    table_size: int
    duplicate: bool
    rated: bool
    entrants: Count
    rounds_played: Count
    planned_rounds: Count | None
    starts_at: str


class Tournaments(Out, frozen=True):
    tournaments: list[TournamentSummary]
    next_cursor: Annotated[str | None, Meta(description="The next page's cursor, if any.")]


class TournamentGameRecord(Out, frozen=True):
    """A line of ``GET /v1/tournaments/{tournament_id}/records``: a game of the tournament and
    its whole record."""

    round: Annotated[int, Meta(ge=1)]
    table: Annotated[Count, Meta(description="The game's table in its round, 0 first.")]
    game_id: GameId
    record: Annotated[
        RecordJson | None,
        Meta(
            description=(
                "The game's whole record, exactly as `GET /v1/games/{game_id}/record` answers "
                "it; null for a game no longer kept (`GAME_TTL` after its end)."
            )
        ),
    ]

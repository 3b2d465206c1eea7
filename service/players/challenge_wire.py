"""The JSON shapes of challenges and seeks (quick play)."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from msgspec import Meta

from engine.rule_checks import Turns
from service.games.level_wire import BotLevel
from service.games.wire import CallSeconds, TurnSeconds
from service.http.wire import Out, Strict
from service.players.seek_matching import ANYONE_AFTER, WIDENING_PER_SECOND, WINDOW_START
from service.players.wire import PlayerId
from service.vocabulary.wire import MAX_PLAYERS, MIN_PLAYERS, Count, GameId, RulesSpec, Seat

CHALLENGE_SECONDS: Final = 600
"""How long a challenge stands unless its request says otherwise."""
CHALLENGE_SECONDS_MAX: Final = 86400
SEEK_SECONDS: Final = 600
"""How long a seek waits for a match unless its request says otherwise."""

ChallengeId = Annotated[
    str, Meta(min_length=1, max_length=64, description="A challenge's id: its table's game id.")
]
SeekId = Annotated[str, Meta(min_length=1, max_length=64, description="A seek's id.")]
DeclineReason = Literal[
    "generic", "later", "rules", "rated", "casual", "too_fast", "too_slow", "not_bots", "only_bots"
]
ChallengeStatus = Literal["open", "accepted", "declined", "canceled", "expired"]
SeekStatus = Literal["waiting", "matched", "canceled", "expired"]
ExpiresIn = Annotated[
    int,
    Meta(
        ge=10,
        le=CHALLENGE_SECONDS_MAX,
        description="Seconds it stands before it expires. Default 600.",
    ),
]


class ChallengeRequest(Strict, frozen=True):
    to: Annotated[
        Annotated[list[PlayerId], Meta(max_length=MAX_PLAYERS - 1)] | None,
        Meta(
            description=(
                "The players challenged, each with a seat kept for them (`[]` with `bots`: a "
                "game against computer players alone); null (the default): an open challenge, "
                "listed in `GET /v1/challenges`, whose `seats` anyone may take."
            )
        ),
    ] = None
    bots: Annotated[
        Annotated[list[BotLevel], Meta(max_length=MAX_PLAYERS - 1)],
        Meta(description="Computer players seated at once, by level."),
    ] = []  # noqa: RUF012  # msgspec copies a mutable default per instance
    seats: Annotated[
        Annotated[int, Meta(ge=1, le=MAX_PLAYERS - 1)] | None,
        Meta(description="An open challenge's open seats (default 1); only without `to`."),
    ] = None
    rules: RulesSpec = "classic"
    rated: Annotated[
        bool, Meta(description="Rated once ratings exist: every seat must be a player's.")
    ] = False
    turn_seconds: Annotated[
        TurnSeconds | None, Meta(description="The turn clock; null (the default): none.")
    ] = None
    call_seconds: Annotated[
        CallSeconds | None, Meta(description="A speed game's time per call.")
    ] = None
    expires_in: ExpiresIn = CHALLENGE_SECONDS


class ChallengePlayer(Out, frozen=True):
    player_id: PlayerId
    name: str
    bot: Annotated[bool, Meta(description="A program that plays.")]


class Challenge(Out, frozen=True):
    challenge_id: ChallengeId
    game_id: Annotated[
        GameId,
        Meta(
            description=(
                "The table the challenge seats its players at; dealt once every seat is taken."
            )
        ),
    ]
    status: Annotated[
        ChallengeStatus,
        Meta(
            description=(
                "`open`: it may be accepted. `accepted`: every seat was taken and the game is "
                "dealt. `declined`, `canceled`, `expired`: it can no longer be accepted."
            )
        ),
    ]
    challenger: ChallengePlayer
    to: Annotated[
        list[ChallengePlayer] | None,
        Meta(description="The players challenged; null for an open challenge."),
    ]
    accepted: Annotated[list[PlayerId], Meta(description="Who has accepted so far.")]
    bots: list[BotLevel]
    seats: Annotated[Count, Meta(description="The table's size, every seat counted.")]
    open_seats: Annotated[Count, Meta(description="Seats still to take.")]
    preset: str
    turns: Turns
    rated: bool
    turn_seconds: int | None
    created: Annotated[str, Meta(description="ISO 8601, UTC.")]
    expires_at: Annotated[str, Meta(description="ISO 8601, UTC.")]
    reason: Annotated[DeclineReason | None, Meta(description="`declined`: the reason given.")] = (
        None
    )


class ChallengeAccepted(Out, frozen=True):
    challenge: Challenge
    game_id: GameId
    seat: Annotated[Seat, Meta(description="The accepting player's seat.")]


class DeclineRequest(Strict, frozen=True):
    reason: DeclineReason = "generic"


class Challenges(Out, frozen=True, omit_defaults=True):
    challenges: Annotated[
        list[Challenge], Meta(description="Open challenges, newest first, at most `limit`.")
    ]
    next_cursor: Annotated[
        str | None,
        Meta(description="More follow: ask again with this as `cursor`. Absent at the end."),
    ] = None


class SeekRequest(Strict, frozen=True):
    rules: RulesSpec = "classic"
    players: Annotated[
        int, Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS, description="The table's size.")
    ] = 2
    rated: Annotated[
        bool,
        Meta(
            description=(
                "A rated game (a preset's own rules, `turns` apart), matched by rating: with "
                "seekers whose ratings under the preset and mode lie within a window that widens "
                f"as the oldest of them waits ({WINDOW_START:g} points at once, "
                f"{WIDENING_PER_SECOND:g} more a second, anyone after {ANYONE_AFTER:g} seconds). "
                "A provisional player is matched by its `mu`."
            )
        ),
    ] = False
    turn_seconds: Annotated[
        TurnSeconds | None, Meta(description="The turn clock; null (the default): none.")
    ] = None


class Seek(Out, frozen=True):
    seek_id: SeekId
    status: Annotated[
        SeekStatus,
        Meta(
            description=(
                "`waiting` for other seekers; `matched`: the game is `game_id`; `canceled`; "
                "`expired` (no match in time)."
            )
        ),
    ]
    players: Count
    preset: str
    turns: Turns
    rated: bool
    turn_seconds: int | None
    created: Annotated[str, Meta(description="ISO 8601, UTC.")]
    expires_at: Annotated[str, Meta(description="ISO 8601, UTC.")]
    game_id: Annotated[GameId | None, Meta(description="`matched`: the game it made.")] = None

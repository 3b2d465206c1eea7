"""The events of a player's stream (``GET /v1/players/me/events``)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from service.http.wire import Out
from service.players.challenge_wire import Challenge, ChallengeId, DeclineReason
from service.vocabulary.wire import Count, GameId, Seat


class PlayerEvent(Out, frozen=True, omit_defaults=True):
    """One event of a player's stream (``GET /v1/players/me/events``)."""

    type: Annotated[
        Literal[
            "game_start",
            "your_turn",
            "game_finish",
            "challenge",
            "challenge_canceled",
            "challenge_declined",
            "tournament_round",
            "tournament_finish",
        ],
        Meta(
            description=(
                "`game_start`: a game of the player's is dealt. `your_turn`: a game waits for "
                "the player (its turn; in a speed game, a new call). `game_finish`: a game of "
                "the player's is over. `challenge`: the player is challenged (`challenge` says "
                "to what). `challenge_canceled`: a challenge to the player was withdrawn, or "
                "can no longer start. `challenge_declined`: a challenge of the player's was "
                "declined (`reason`). `tournament_round`: a round of a tournament the player "
                "entered is paired (`game_id` and `seat` the player's table, none for a bye). "
                "`tournament_finish`: the tournament is over (`place` the player's)."
            )
        ),
    ]
    game_id: Annotated[
        GameId | None,
        Meta(
            description=(
                "The game, or for a challenge event the challenge's table; absent for a "
                "tournament's bye and finish."
            )
        ),
    ] = None
    seat: Annotated[Seat | None, Meta(description="The player's seat in the game.")] = None
    version: Annotated[
        Count | None,
        Meta(description="The game's version when this happened; absent for challenge events."),
    ] = None
    deadline: Annotated[
        str | None,
        Meta(description="`your_turn` with a clock: when it runs out (ISO 8601, UTC)."),
    ] = None
    winners: Annotated[
        list[Seat] | None, Meta(description="`game_finish`: the seats with the lowest total.")
    ] = None
    challenge_id: Annotated[
        ChallengeId | None, Meta(description="Challenge events: the challenge.")
    ] = None
    challenge: Annotated[
        Challenge | None, Meta(description="`challenge`: the challenge, as `GET` shows it.")
    ] = None
    reason: Annotated[
        DeclineReason | None, Meta(description="`challenge_declined`: the reason given.")
    ] = None
    tournament_id: Annotated[
        Annotated[str, Meta(max_length=64)] | None,
        Meta(description="Tournament events: the tournament."),
    ] = None
    round: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(description="`tournament_round`: the round, 1 first."),
    ] = None
    place: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(description="`tournament_finish`: the player's final rank."),
    ] = None

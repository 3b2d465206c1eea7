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
        ],
        Meta(
            description=(
                "`game_start`: a game of the player's is dealt. `your_turn`: a game waits for "
                "the player (its turn; in a speed game, a new call). `game_finish`: a game of "
                "the player's is over. `challenge`: the player is challenged (`challenge` says "
                "to what). `challenge_canceled`: a challenge to the player was withdrawn, or "
                "can no longer start. `challenge_declined`: a challenge of the player's was "
                "declined (`reason`)."
            )
        ),
    ]
    game_id: Annotated[
        GameId, Meta(description="The game, or for a challenge event the challenge's table.")
    ]
    seat: Annotated[Seat, Meta(description="The player's seat in the game.")]
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

"""The JSON shapes of players: creating one, its profile, its new key, its games."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from engine.rule_checks import Turns
from service.games.level_wire import BotLevel
from service.http.wire import Out, Strict
from service.ratings.wire import Rating
from service.vocabulary.wire import Count, GameId, PlayerName, Seat

PlayerId = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=64,
        description="A player's public id.",
        examples=["pQ3vYkT0aXw2n"],
    ),
]
PlayerKey = Annotated[
    str,
    Meta(
        description=(
            "The player's secret, shown only here: send it as `Authorization: Bearer <key>` "
            "wherever a seat token goes. It starts with `ttp_`; only its hash is kept, so a "
            "lost key is gone (replace it while you hold it: `POST /v1/players/me/key`)."
        )
    ),
]


class CreatePlayerRequest(Strict, frozen=True):
    name: PlayerName
    bot: Annotated[
        bool,
        Meta(description="A program that plays as this player (listed as a bot to others)."),
    ] = False


class PlayerCreated(Out, frozen=True):
    player_id: PlayerId
    name: str
    bot: bool
    key: PlayerKey
    app: Annotated[
        str | None,
        Meta(
            description=(
                "The app the player belongs to, when it was made with an app's key "
                "(`appKey`): the app's webhooks get its events. Null otherwise."
            )
        ),
    ] = None


class NewKey(Out, frozen=True):
    player_id: PlayerId
    key: Annotated[
        str,
        Meta(description="The player's new key, shown only here; the old one no longer works."),
    ]


class PlayerProfile(Out, frozen=True):
    """What anyone may see of a player (``GET /v1/players/{player_id}``) and, with the games
    count, what the player sees of themself (``GET /v1/players/me``)."""

    player_id: PlayerId
    name: str
    bot: bool
    created: Annotated[str, Meta(description="When the player was made (ISO 8601, UTC).")]
    games: Annotated[Count, Meta(description="Games in the player's list (at most 1,000).")]
    online: Annotated[
        bool | None,
        Meta(description="A bot player: whether its stream is open now. Null for a person."),
    ] = None
    ratings: Annotated[
        dict[str, Rating],
        Meta(
            description=(
                "The player's rating under each preset it has played rated games in (`classic`; "
                "`classic:speed` for speed games). Empty before the first rated game."
            )
        ),
    ] = msgspec.field(default_factory=dict)


class MyGamePlayer(Out, frozen=True):
    seat: Seat
    name: Annotated[str | None, Meta(description="Null for an open seat.")]
    player_id: Annotated[
        PlayerId | None, Meta(description="The seat's player; null for a seat held by a token.")
    ] = None
    bot: Annotated[
        BotLevel | None, Meta(description="A computer player's level; null for a person.")
    ] = None
    score: Annotated[int, Meta(description="Total so far.")] = 0


class MyGame(Out, frozen=True):
    game_id: GameId
    seat: Annotated[Seat, Meta(description="The player's seat.")]
    status: Literal["waiting", "playing", "finished"]
    preset: str
    turns: Turns
    version: Count
    round: int
    rounds: int
    my_turn: Annotated[
        bool,
        Meta(
            description=(
                "The game waits for this player: its turn, or (speed) an open call it has not "
                "chosen in."
            )
        ),
    ]
    turn: Annotated[
        Seat | None,
        Meta(description="The seat on turn; null while waiting, once finished, and in speed."),
    ]
    deadline: Annotated[
        str | None,
        Meta(
            description=(
                "When the turn clock or the speed call runs out (ISO 8601, UTC): then a bot "
                "plays the turn, or the call ends. Null without a clock."
            )
        ),
    ]
    players: list[MyGamePlayer]
    winners: Annotated[
        list[Seat] | None, Meta(description="Once finished: the seats with the lowest total.")
    ]
    created: Annotated[str, Meta(description="When the game was made (ISO 8601, UTC).")]


class MyGames(Out, frozen=True, omit_defaults=True):
    games: Annotated[
        list[MyGame],
        Meta(
            description=(
                "Newest first, at most `limit`. With `status`, a page may hold fewer: follow "
                "`next_cursor` to the end of the list."
            )
        ),
    ]
    next_cursor: Annotated[
        str | None,
        Meta(description="More games follow: ask again with this as `cursor`. Absent at the end."),
    ] = None


class PlayerStreamUrl(Out, frozen=True):
    url: Annotated[
        str,
        Meta(
            description=(
                "Open it with a browser `EventSource`: the player's stream, resumable with "
                "`Last-Event-ID`. It grants reading that stream only and stops working when the "
                "player's key is replaced. Root-relative (`/v1/players/…`) unless the service is "
                "configured with its public URL: resolve it against the API's base URL."
            )
        ),
    ]


class OnlineBot(Out, frozen=True):
    player_id: PlayerId
    name: str


class OnlineBots(Out, frozen=True):
    bots: Annotated[list[OnlineBot], Meta(description="At most 100.")]

"""The JSON shapes of ratings: a player's entry per rating key, and a leaderboard's page."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from service.http.wire import Out
from service.ratings.model import DEVIATIONS, PROVISIONAL_GAMES, Entry
from service.ratings.store import HISTORY_KEPT

RatingKey = Annotated[
    str,
    Meta(
        description=(
            "A preset, with `:speed` after it for speed games: `classic`, `classic:speed`."
        ),
        examples=["classic"],
    ),
]


class Rating(Out, frozen=True):
    rating: Annotated[
        float,
        Meta(description=f"The conservative rating: `mu` less {DEVIATIONS} `sigma`; ranked."),
    ]
    mu: Annotated[float, Meta(description="The skill's estimate (25 at the start).")]
    sigma: Annotated[float, Meta(description="Its uncertainty (25/3 at the start).")]
    games: Annotated[int, Meta(ge=0, description="Rated games played under this key.")]
    provisional: Annotated[
        bool,
        Meta(description=f"Fewer than {PROVISIONAL_GAMES} games: listed apart on leaderboards."),
    ]


def rating_out(entry: Entry) -> Rating:
    return Rating(
        rating=entry.rating,
        mu=entry.mu,
        sigma=entry.sigma,
        games=entry.games,
        provisional=entry.provisional,
    )


class Ranked(Out, frozen=True):
    rank: Annotated[int, Meta(ge=1, description="1 the best of the board.")]
    player_id: str
    name: str
    bot: Annotated[
        bool, Meta(description="A program or a built-in level (`bot-easy` … `bot-expert`).")
    ]
    rating: float
    mu: float
    sigma: float
    games: int


class Leaderboard(Out, frozen=True, omit_defaults=True):
    key: RatingKey
    provisional: Annotated[
        bool,
        Meta(
            description=(
                f"The board of provisional players (fewer than {PROVISIONAL_GAMES} games), "
                "ranked apart; false: the established players'."
            )
        ),
    ]
    total: Annotated[int, Meta(ge=0, description="Players on this board.")]
    players: Annotated[list[Ranked], Meta(description="Best first, at most `limit`.")]
    next_cursor: Annotated[
        str | None,
        Meta(
            description="More players follow: ask again with this as `cursor`. Absent at the end."
        ),
    ] = None


class RatingPoint(Out, frozen=True):
    """The rating a rated game left the player with."""

    game_id: str
    finished: Annotated[str, Meta(description="When the game ended (ISO 8601, UTC).")]
    rating: Annotated[float, Meta(description=f"`mu` less {DEVIATIONS} `sigma`, after the game.")]
    mu: float
    sigma: float
    games: Annotated[int, Meta(ge=1, description="Rated games under this key, this one counted.")]
    place: Annotated[int, Meta(ge=1, description="The player's place in the game, 1 the best.")]
    seats: Annotated[int, Meta(ge=2, description="Seats at the game.")]


class RatingHistory(Out, frozen=True):
    key: RatingKey
    player_id: str
    points: Annotated[
        list[RatingPoint],
        Meta(description=f"Newest first: the last {HISTORY_KEPT} rated games' at most."),
    ]

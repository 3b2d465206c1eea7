"""``/v1/leaderboards``: the players of a preset ranked by rating; and each player's rating
history, ``/v1/players/{player_id}/ratings/{preset}``."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import FromPath, Parameter, QueryParameter

from engine.rule_checks import Turns
from engine.rules import PRESET_NAMES
from service.http.auth import AuthorizationHeader, viewer_token
from service.http.openapi_declarations import PLAYER_OR_PUBLIC, problems
from service.http.route_policy import Limit, policy
from service.ratings import boards
from service.ratings.boards import BOARD_PAGE_MAX
from service.ratings.deps import AppRatingServices
from service.ratings.model import PROVISIONAL_GAMES
from service.ratings.wire import Leaderboard, RatingHistory

BoardTurns = Annotated[
    Turns,
    QueryParameter(name="turns", description="Games in turns (the default) or speed games."),
]
Around = Annotated[
    str | None,
    QueryParameter(
        name="around",
        max_length=64,
        description=(
            "A page centred on this player: `me` (send the player's key) or a player's id. "
            "404 when the player is not on the board."
        ),
    ),
]
Provisional = Annotated[
    bool,
    QueryParameter(
        name="provisional",
        description=(
            f"The provisional players' board (fewer than {PROVISIONAL_GAMES} rated games), "
            "ranked apart. Default: the established players'."
        ),
    ),
]
BoardCursor = Annotated[
    str | None,
    QueryParameter(
        name="cursor",
        max_length=200,
        description="A page's `next_cursor`: the players after it. Default: from the top.",
    ),
]
BoardLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=BOARD_PAGE_MAX,
        description=f"At most this many players. Default 20, maximum {BOARD_PAGE_MAX}.",
    ),
]


PresetName = Annotated[
    str,
    Parameter(
        description="A preset's name; another is a 404.",
        schema_extra={"enum": list(PRESET_NAMES)},
    ),
]
"""A preset in a path: the enum is what the document states; the handler answers any other
name 404 (no such leaderboard), as it does an unknown player."""


class LeaderboardsController(Controller):
    path = "/v1/leaderboards"
    tags = ("ratings",)

    @get(
        "/{preset:str}",
        operation_id="getLeaderboard",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER_OR_PUBLIC,
        summary="The players of a preset ranked by rating, best first",
        description=(
            "Rated games (every seat a player's, people, programs and the built-in levels "
            "`bot-easy` … `bot-expert`, asked rated) move their players' ratings under their "
            "preset and mode. Ranked by the conservative rating (`mu - 3 sigma`); bots are "
            "marked. A page from the top, from `cursor`, or centred on a player (`around`)."
        ),
        responses=problems(
            401,
            404,
            422,
            503,
            descriptions={
                401: "`around=me` without a player's key, or with one no player holds",
                404: "No such preset, or the player to centre on is not on the board",
            },
        ),
    )
    async def leaderboard(
        self,
        services: AppRatingServices,
        *,
        preset: PresetName,
        authorization: AuthorizationHeader = None,
        turns: BoardTurns = "in_turn",
        provisional: Provisional = False,
        around: Around = None,
        cursor: BoardCursor = None,
        limit: BoardLimit = 20,
    ) -> Leaderboard:
        return await boards.leaderboard(
            services,
            boards.key_of(preset, turns),
            provisional=provisional,
            around=around,
            viewer_token=viewer_token(authorization),
            cursor=cursor,
            limit=limit,
        )


class RatingHistoryController(Controller):
    path = "/v1/players"
    tags = ("ratings",)

    @get(
        "/{player_id:str}/ratings/{preset:str}",
        operation_id="getRatingHistory",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="A player's rating after each of their last rated games of a preset",
        description=(
            "Newest first, the last 100 rated games' at most: the rating each game left the "
            "player with, the player's place in it and the game's id (its record and review "
            "are at `/v1/games/{game_id}/…`). Empty for a player with no rated game of the "
            "preset. Anyone may read it, as a leaderboard."
        ),
        responses=problems(404, 422, 503, descriptions={404: "No such player, or no such preset"}),
    )
    async def history(
        self,
        services: AppRatingServices,
        player_id: FromPath[str],
        preset: PresetName,
        turns: BoardTurns = "in_turn",
    ) -> RatingHistory:
        return await boards.history(services, player_id, boards.key_of(preset, turns))

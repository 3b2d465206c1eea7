"""``/v1/players``: make a player, its profile, a new key, the player's games."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from litestar import Controller, get, post
from litestar.di import Provide
from litestar.params import FromPath, JSONBody, QueryParameter

from service.http.auth import RequiredToken
from service.http.openapi_declarations import PLAYER, problems
from service.http.route_policy import Limit, RouteLink, bearer_from_answer, from_answer, policy
from service.players import lifecycle
from service.players.deps import AppPlayerServices, Me, me
from service.players.lifecycle import GAMES_PAGE_MAX
from service.players.wire import (
    CreatePlayerRequest,
    MyGames,
    NewKey,
    PlayerCreated,
    PlayerProfile,
)

_AS_PLAYER: Final = {"header.Authorization": bearer_from_answer("/key")}

GamesStatus = Annotated[
    Literal["all", "waiting", "playing", "finished"],
    QueryParameter(name="status", description="Only the games in this state. Default: `all`."),
]
GamesCursor = Annotated[
    str | None,
    QueryParameter(
        name="cursor",
        max_length=200,
        description="A page's `next_cursor`: the games after it. Default: from the newest.",
    ),
]
GamesLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=GAMES_PAGE_MAX,
        description=f"At most this many games. Default 20, maximum {GAMES_PAGE_MAX}.",
    ),
]


class PlayersController(Controller):
    path = "/v1/players"
    tags = ("players",)
    dependencies = {"me": Provide(me)}  # noqa: RUF012  # Litestar's declaration

    @post(
        operation_id="createPlayer",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS),
            links={
                "201": {
                    "GetMe": RouteLink("getMe", _AS_PLAYER),
                    "ListMyGames": RouteLink("listMyGames", _AS_PLAYER),
                    "GetPlayer": RouteLink("getPlayer", {"player_id": from_answer("/player_id")}),
                }
            },
        ),
        summary="Make a player: one key for every game, shown only in this answer",
        description=(
            "The `key` is the player's credential (no password, no email): send it as "
            '`Authorization: Bearer <key>`. A game created with a `{"me": true}` seat, or a '
            'seat claimed with `{"me": true}`, is the player\'s: the key acts for that seat '
            "wherever its token does, and the game is in the player's list. Keep the key (a "
            "browser in local storage, a server under its own user id); only its hash is kept, "
            "so a lost key cannot be shown again. `bot: true` marks a program that plays."
        ),
        status_code=201,
        responses=problems(400, 413, 422, 503),
    )
    async def create(
        self, services: AppPlayerServices, data: JSONBody[CreatePlayerRequest]
    ) -> PlayerCreated:
        return await lifecycle.create(services, data)

    @get(
        "/me",
        operation_id="getMe",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="The calling player's profile",
        responses=problems(401, 503),
    )
    async def get_me(self, services: AppPlayerServices, me: Me) -> PlayerProfile:
        return await lifecycle.profile(services, me)

    @post(
        "/me/key",
        operation_id="replaceKey",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="Replace the player's key: the one sent stops working at once",
        description=(
            "Answers with the new key, shown only here. Seats, games and the player's list "
            "stay the player's. Of two replacements at once one wins; the other is a 409."
        ),
        status_code=201,
        responses=problems(401, 409, 503),
    )
    async def replace_key(
        self, services: AppPlayerServices, me: Me, seat_token: RequiredToken
    ) -> NewKey:
        return await lifecycle.replace_key(services, me, seat_token)

    @get(
        "/me/games",
        operation_id="listMyGames",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="The player's games, newest first: whose turn, the deadline, the result",
        description=(
            'Every game the player holds a seat in, as created or claimed with `{"me": true}` '
            "(the newest 1,000). `my_turn` says the game waits for this player. A game that has "
            "expired is left out."
        ),
        responses=problems(401, 422, 503),
    )
    async def my_games(
        self,
        services: AppPlayerServices,
        me: Me,
        status: GamesStatus = "all",
        cursor: GamesCursor = None,
        limit: GamesLimit = 20,
    ) -> MyGames:
        return await lifecycle.my_games(services, me, status, cursor, limit)

    @get(
        "/{player_id:str}",
        operation_id="getPlayer",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="What anyone may see of a player",
        responses=problems(404, 503),
    )
    async def get_player(
        self, services: AppPlayerServices, player_id: FromPath[str]
    ) -> PlayerProfile:
        return await lifecycle.profile(services, player_id)

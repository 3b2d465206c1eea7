"""``/v1/invites``, ``/v1/tables`` and a seat's table routes: claim a seat by invite code, the
lobby, a browser's stream URL, leaving before the deal, the rematch."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, get, post
from litestar.params import FromPath, JSONBody, PathParameter

from service.games.acting_seat import Acting
from service.games.routes import LOCATION, created
from service.games.wire import GameView
from service.http.auth import RequiredToken
from service.http.dependencies import AppServices
from service.http.openapi_declarations import SEAT, problems
from service.tables import seating
from service.tables.wire import ClaimRequest, Lobby, SeatClaimed, StreamUrl

InviteCode = Annotated[
    str,
    PathParameter(
        description="The table's invite code: eight letters and digits; case and hyphens ignored."
    ),
]


class InvitesController(Controller):
    path = "/v1/invites"
    tags = ("tables",)

    @post(
        "/{code:str}",
        operation_id="claimInvite",
        summary="Take the lowest open seat of the table with this invite code",
        description=(
            "Answers with the game, the seat, its token (shown to this caller only, this once) "
            "and the seat's view. The last open seat taken deals the first round at once. Of "
            "two people claiming the last seat at the same time exactly one gets it; the other "
            "gets 409. An unknown, malformed or expired code is a 404."
        ),
        status_code=201,
        response_headers=[LOCATION],
        responses=problems(400, 404, 409, 413, 422, 503),
    )
    async def claim(
        self, services: AppServices, code: InviteCode, data: JSONBody[ClaimRequest]
    ) -> Response[SeatClaimed]:
        answer = await seating.claim(services, code, data.name)
        return created(answer, answer.game_id)


class TablesController(Controller):
    path = "/v1/tables"
    tags = ("tables",)

    @get(
        operation_id="listTables",
        summary="The lobby: listed tables waiting for players",
        description=(
            "Every instance shows the same lobby (on Redis, one index for all). Newest change "
            "first, at most 100; a table leaves it once full or expired."
        ),
        responses=problems(503),
    )
    async def lobby(self, services: AppServices) -> Lobby:
        return await seating.lobby(services)


class SeatsController(Controller):
    path = "/v1/games"
    tags = ("tables",)

    @post(
        "/{game_id:str}/stream-url",
        operation_id="createStreamUrl",
        security=SEAT,
        summary="A URL a browser EventSource opens to follow this seat's private stream",
        description=(
            "The URL carries a stream key, not the token: it grants reading this seat's "
            "stream and nothing else, resumes with `Last-Event-ID`, and expires with the game."
        ),
        status_code=200,
        responses=problems(401, 404, 503),
    )
    async def stream_url(
        self, services: AppServices, game_id: FromPath[str], acting_seat: Acting
    ) -> StreamUrl:
        # Never the request's Host: a forged one would hand the seat a stranger's URL.
        return seating.stream_url(acting_seat, services.settings.public_url)

    @post(
        "/{game_id:str}/leave",
        operation_id="leaveGame",
        security=SEAT,
        summary="Leave: before the deal the seat opens again, during play a bot takes it over",
        description=(
            "Answers with the public view. The seat's token and stream key stop working. "
            "During play a `normal` computer player takes the seat over for the rest of the "
            "game (`players[].bot`), moving at once on its turn. A finished game is a 409."
        ),
        status_code=200,
        responses=problems(401, 404, 409, 503),
    )
    async def leave(
        self, services: AppServices, game_id: FromPath[str], seat_token: RequiredToken
    ) -> GameView:
        return await seating.leave(services, game_id, seat_token)

    @post(
        "/{game_id:str}/rematch",
        operation_id="rematchGame",
        security=SEAT,
        summary="This seat's place in the finished game's rematch",
        description=(
            "Every seat that asks, on any instance, lands in the same new game: the same "
            "players and rules, the first deal one seat on. Each caller gets its own token "
            "only, once (asking again is a 409). The rematch waits until every seat has "
            "asked, then deals."
        ),
        status_code=201,
        response_headers=[LOCATION],
        responses=problems(401, 404, 409, 503),
    )
    async def rematch(
        self, services: AppServices, game_id: FromPath[str], acting_seat: Acting
    ) -> Response[SeatClaimed]:
        answer = await seating.rematch(services, acting_seat)
        return created(answer, answer.game_id)

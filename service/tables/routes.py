"""``/v1/invites``, ``/v1/tables`` and a seat's table routes: claim a seat by invite code, the
lobby, a browser's stream URL, leaving before the deal, the rematch."""

from __future__ import annotations

from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import Provide
from litestar.params import FromPath, JSONBody, PathParameter, QueryParameter

from service.games.acting_seat import Acting, acting_seat
from service.games.wire import CreateGameRequest, GameCreated, GameView
from service.http import idempotency
from service.http.idempotency import IdempotencyKey, request_retry
from service.http.openapi_declarations import PLAYER_OR_PUBLIC, SEAT, problems
from service.http.play_links import SVG, TEXT, qr_answers
from service.http.route_policy import (
    Limit,
    RouteLink,
    bearer_from_answer,
    from_answer,
    policy,
)
from service.identity.deps import ActingCaller, Viewer
from service.tables import creation, seating
from service.tables.deps import AppTableServices
from service.tables.index import LOBBY_LIMIT
from service.tables.invite_links import invite_link, invite_qr
from service.tables.wire import ClaimRequest, Lobby, SeatClaimed, StreamUrl

AnyRequest = Request[Any, Any, Any]

InviteCode = Annotated[
    str,
    PathParameter(
        description="The table's invite code: eight letters and digits; case and hyphens ignored."
    ),
]

_GAME_ID: Final = {"game_id": from_answer("/game_id")}
_FIRST_SEAT: Final = {**_GAME_ID, "header.Authorization": bearer_from_answer("/seats/0/token")}
_SECOND_SEAT: Final = {**_GAME_ID, "header.Authorization": bearer_from_answer("/seats/1/token")}
_CLAIMED: Final = {**_GAME_ID, "header.Authorization": bearer_from_answer("/token")}
_DRAW_FROM_STOCK: Final = {"type": "draw", "source": "stock"}


LobbyCursor = Annotated[
    str | None,
    QueryParameter(
        name="cursor",
        max_length=200,
        description="A page's `next_cursor`: the tables after it. Default: from the newest.",
    ),
]
LobbyLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=LOBBY_LIMIT,
        description=f"At most this many tables. Default and maximum: {LOBBY_LIMIT}.",
    ),
]

QR_CACHE_SECONDS: Final = 86_400
"""An invite's QR code is the same for as long as its base is: caches keep it a day."""

_ME_401: Final = {401: "A seat for me without a player's key, or a key no player holds"}

LOCATION: Final = ResponseHeader(
    name="Location", description="The path of the game.", documentation_only=True
)


class GameCreationController(Controller):
    """``POST /v1/games``: a game dealt at once, or a table that waits for players (tables
    decide which: ``service.tables.creation``)."""

    path = "/v1/games"
    tags = ("games",)

    @post(
        operation_id="createGame",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS),
            links={
                "201": {
                    "GetPublicView": RouteLink("getGame", _GAME_ID),
                    "GetSeatView": RouteLink("getGame", _FIRST_SEAT),
                    "GetLog": RouteLink("getGameLog", _GAME_ID),
                    "FollowEvents": RouteLink("getGameEvents", _GAME_ID),
                    "FirstSeatDraws": RouteLink("applyAction", _FIRST_SEAT, _DRAW_FROM_STOCK),
                    "SecondSeatDraws": RouteLink("applyAction", _SECOND_SEAT, _DRAW_FROM_STOCK),
                    "ClaimOpenSeat": RouteLink(
                        "claimInvite", {"code": from_answer("/invite_code")}, {"name": "Guest"}
                    ),
                    "InviteQr": RouteLink("getInviteQr", {"code": from_answer("/invite_code")}),
                    "FirstSeatHint": RouteLink("getHint", _FIRST_SEAT),
                    "FirstSeatStreamUrl": RouteLink("createStreamUrl", _FIRST_SEAT),
                    "GetRecord": RouteLink("getGameRecord", _GAME_ID),
                }
            },
            # A whole request: the fields' own examples together would clash (`deal` and
            # `deal_from`, deals that fit no table).
            openapi={
                "requestBody": {
                    "content": {
                        "application/json": {
                            "example": {
                                "players": [{"name": "Ann"}, {"bot": "easy"}],
                                "rules": "classic",
                            }
                        }
                    }
                }
            },
        ),
        security=PLAYER_OR_PUBLIC,
        summary="Create a game (dealt at once), or a table with open seats",
        description=(
            "Answers with each named seat's token (shown only this once) and the public view. "
            "With every seat named the first round is dealt at once. With an `open` seat the "
            "game `waits` (no cards dealt) and has an `invite_code` that others claim seats "
            "with (`POST /v1/invites/{code}`); `listed` shows it in the lobby. The last open "
            "seat taken deals the first round. A `bot` seat is a computer player (no token) "
            "that moves by itself, each action its own version and event. `turn_seconds` "
            "starts a turn clock: a person's turn not done in time is played for them by a "
            "`normal` bot, and they are shown `away` until their token acts. With `seed` the "
            "shuffles are reproducible; without it they come from a cryptographic source."
        ),
        status_code=201,
        response_headers=[LOCATION],
        responses=problems(400, 401, 413, 422, 503, descriptions=_ME_401),
    )
    async def create(
        self,
        request: AnyRequest,
        services: AppTableServices,
        data: JSONBody[CreateGameRequest],
        viewer: Viewer,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[GameCreated]:
        owner = None if viewer is None else viewer.owner
        retry = request_retry(request, idempotency_key, data, owner)
        client = services.proxies.client_of(request)
        answer = await creation.create(services, data, retry, client=client, caller=viewer)
        return idempotency.answered(answer)


class InvitesController(Controller):
    path = "/v1/invites"
    tags = ("tables",)

    @post(
        "/{code:str}",
        operation_id="claimInvite",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CLAIMS),
            links={
                "201": {
                    "GetClaimedSeatView": RouteLink("getGame", _CLAIMED),
                    "ClaimedSeatDraws": RouteLink("applyAction", _CLAIMED, _DRAW_FROM_STOCK),
                    "ClaimedSeatStreamUrl": RouteLink("createStreamUrl", _CLAIMED),
                    "ClaimedSeatLeaves": RouteLink("leaveGame", _CLAIMED),
                    "ClaimNextOpenSeat": RouteLink(
                        "claimInvite",
                        {"code": from_answer("/view/invite_code")},
                        {"name": "Guest"},
                    ),
                }
            },
        ),
        security=PLAYER_OR_PUBLIC,
        summary="Take the lowest open seat of the table with this invite code",
        description=(
            "Answers with the game, the seat, its token (shown to this caller only, this once) "
            "and the seat's view. The last open seat taken deals the first round at once. Of "
            "two people claiming the last seat at the same time exactly one gets it; the other "
            "gets 409. An unknown, malformed or expired code is a 404."
        ),
        status_code=201,
        response_headers=[LOCATION],
        responses=problems(400, 401, 404, 409, 413, 422, 503, descriptions=_ME_401),
    )
    async def claim(
        self,
        services: AppTableServices,
        code: InviteCode,
        data: JSONBody[ClaimRequest],
        viewer: Viewer,
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[SeatClaimed]:
        owner = None if viewer is None else viewer.owner
        retry = request_retry(request, idempotency_key, data, owner)
        return idempotency.answered(await seating.claim(services, code, data, retry, viewer))

    @get(
        "/{code:str}/qr",
        operation_id="getInviteQr",
        opt=policy(limits=(Limit.PER_MINUTE,), openapi=qr_answers()),
        summary="A QR code of the invite link, for a friend at the same table",
        description=(
            "The play page's address with the code (`<base>/play?code=<code>`), which a phone's "
            "camera reads off the screen; the page fills the code in to join with. The base is "
            "the service's `PUBLIC_URL`, or else the address this request was sent to. The code "
            "is not looked up: any well-formed code is drawn (so the answer tells nothing of "
            "which tables wait), and the same code always draws the same image, which caches may "
            "keep for a day. SVG (`image/svg+xml`) unless the request's `Accept` prefers "
            "`text/plain`. A malformed code is a 404, as when claiming it."
        ),
        media_type=SVG,
        responses=problems(404, 503, descriptions={404: "Not an invite code (malformed)"}),
    )
    async def invite_qr(
        self, request: AnyRequest, services: AppTableServices, code: InviteCode
    ) -> Response[bytes]:
        canonical = seating.canonical_code(code)
        base = services.settings.public_url or str(request.base_url)
        return Response(
            invite_qr(invite_link(base, canonical)),
            media_type=request.accept.best_match([SVG, TEXT], default=SVG),
            headers={"Cache-Control": f"public, max-age={QR_CACHE_SECONDS}", "Vary": "Accept"},
        )


class TablesController(Controller):
    path = "/v1/tables"
    tags = ("tables",)

    @get(
        operation_id="listTables",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The lobby: listed tables waiting for players",
        description=(
            "Every instance shows the same lobby (on Redis, one index for all). Newest change "
            "first, `limit` at a time; a table leaves it once full or expired. `next_cursor` "
            "reads on from where a page ended."
        ),
        responses=problems(422, 503),
    )
    async def lobby(
        self,
        services: AppTableServices,
        cursor: LobbyCursor = None,
        limit: LobbyLimit = LOBBY_LIMIT,
    ) -> Lobby:
        return await seating.lobby(services, limit, cursor)


class SeatsController(Controller):
    path = "/v1/games"
    tags = ("tables",)
    dependencies = {"acting_seat": Provide(acting_seat)}  # noqa: RUF012  # Litestar's declaration

    @post(
        "/{game_id:str}/stream-url",
        operation_id="createStreamUrl",
        opt=policy(limits=(Limit.PER_MINUTE,)),
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
        self,
        services: AppTableServices,
        game_id: FromPath[str],
        acting_seat: Acting,
        idempotency_key: IdempotencyKey = None,
    ) -> StreamUrl:
        # Nothing is stored: the URL follows from the seat and its token, so a retry (with or
        # without its Idempotency-Key) gets the same answer. Never the request's Host: a forged
        # one would hand the seat a stranger's URL.
        return seating.stream_url(acting_seat, services.settings.public_url)

    @post(
        "/{game_id:str}/leave",
        operation_id="leaveGame",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=SEAT,
        summary="Leave: before the deal the seat opens again, during play a bot takes it over",
        description=(
            "Answers with the public view. The seat's token and stream key stop working. "
            "During play a `normal` computer player takes the seat over for the rest of the "
            "game (`players[].bot`), moving at once on its turn. A finished game is a 409."
        ),
        status_code=200,
        responses=problems(401, 404, 409, 422, 503),
    )
    async def leave(
        self,
        services: AppTableServices,
        game_id: FromPath[str],
        caller: ActingCaller,
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[GameView]:
        retry = request_retry(request, idempotency_key, None, caller.owner)
        return idempotency.answered(await seating.leave(services, game_id, caller, retry))

    @post(
        "/{game_id:str}/rematch",
        operation_id="rematchGame",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS),
            links={"201": {"GetRematchSeatView": RouteLink("getGame", _CLAIMED)}},
        ),
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
        responses=problems(401, 404, 409, 422, 503),
    )
    async def rematch(
        self,
        services: AppTableServices,
        game_id: FromPath[str],
        acting_seat: Acting,
        caller: ActingCaller,
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[SeatClaimed]:
        retry = request_retry(request, idempotency_key, None, caller.owner)
        return idempotency.answered(await seating.rematch(services, acting_seat, retry))

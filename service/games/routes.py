"""``/v1/games``: create a game, view it, act in it, follow its events, read its log."""

from __future__ import annotations

from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath, JSONBody, QueryParameter

from engine import game
from service.games import lifecycle as game_flow
from service.games.action_wire import ActionRequest
from service.games.bus import Loaded
from service.games.deps import AppGameServices
from service.games.lifecycle import LoadedGame
from service.games.log_wire import GameLog
from service.games.to_wire import log_entry_to_wire
from service.games.turns import take_turn
from service.games.wire import GameView
from service.http.idempotency import IdempotencyKey, request_retry
from service.http.openapi_declarations import SEAT, SEAT_OR_PUBLIC, problems
from service.http.route_policy import (
    SAME_AUTHORIZATION,
    Limit,
    RouteLink,
    from_answer,
    policy,
)
from service.identity.deps import ActingCaller, Viewer
from service.vocabulary.wire import MAX_VERSION

AnyRequest = Request[Any, Any, Any]

LOG_PAGE_MAX: Final = 1000
"""Entries of a log page at most, and by default: a whole game of most tables in one answer, as
before there were pages (a finished three-seat game is some 300)."""
LogSince = Annotated[
    int,
    QueryParameter(
        name="since",
        ge=0,
        le=MAX_VERSION,
        description=(
            "Only the entries after this version (a page's `next_since`). Default: 0, from the "
            "first action."
        ),
    ),
]
LogLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=LOG_PAGE_MAX,
        description=f"At most this many entries. Default and maximum: {LOG_PAGE_MAX}.",
    ),
]

_GAME_ID: Final = {"game_id": from_answer("/game_id")}
_SAME_SEAT: Final = {**_GAME_ID, "header.Authorization": SAME_AUTHORIZATION}
_DRAW_FROM_STOCK: Final = {"type": "draw", "source": "stock"}


class GamesController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=SEAT_OR_PUBLIC,
        summary="The game as the public, or a seat, sees it",
        description=(
            "With a seat's token, the view adds that seat's `hand`, its `seat` and the actions "
            "it may post now (`legal`)."
        ),
        responses=problems(401, 404, 503),
    )
    async def get_game(
        self, services: AppGameServices, game_id: FromPath[str], viewer: Viewer
    ) -> GameView:
        loaded = await game_flow.load_any(services, game_id)
        view = game_flow.shared_view(services, loaded, loaded.viewer(viewer))
        if isinstance(loaded, LoadedGame):  # a move left undone by an instance that died
            services.bus.publish(Loaded(loaded.game_id, loaded.record, loaded.state))
        return view

    @post(
        "/{game_id:str}/actions",
        operation_id="applyAction",
        opt=policy(
            limits=(),
            # The name keyed actions' answers have always been saved under: saved ones match.
            retry_scope="act",
            links={
                "200": {
                    # The view holds the seat's hand: its next moves, its rematch.
                    "DiscardFirstCard": RouteLink(
                        "applyAction",
                        _SAME_SEAT,
                        {"type": "discard", "card": from_answer("/hand/0")},
                    ),
                    "DrawAgain": RouteLink("applyAction", _SAME_SEAT, _DRAW_FROM_STOCK),
                    "GetSeatViewAfter": RouteLink("getGame", _SAME_SEAT),
                    "GetSeatLog": RouteLink("getGameLog", _SAME_SEAT),
                    "AskForRematch": RouteLink("rematchGame", _SAME_SEAT),
                }
            },
        ),
        security=SEAT,
        summary="Draw, discard (perhaps going out) or lay off, as the seat on turn",
        description=(
            "Answers with the seat's new view. A round ends by itself once every other seat has "
            "had its last turn: it is scored and the next round dealt."
        ),
        status_code=200,
        responses=problems(400, 401, 404, 409, 413, 422, 503),
    )
    async def act(
        self,
        services: AppGameServices,
        game_id: FromPath[str],
        data: JSONBody[ActionRequest],
        caller: ActingCaller,
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[GameView]:
        # Keys are per seat: named by the token's hash, so the load can fetch a saved response
        # in the same round trip, before the token has been matched to its seat. The decoded
        # request is what is compared: the same action with other spacing or key order is the
        # same.
        retry = request_retry(request, idempotency_key, data, caller.owner)
        body = await take_turn(services, game_id, caller, retry, data)
        # The body is the saved JSON (also what a retry with the same Idempotency-Key gets).
        response: Response[Any] = Response(body, media_type="application/json")
        return response

    @get(
        "/{game_id:str}/log",
        operation_id="getGameLog",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=SEAT_OR_PUBLIC,
        summary="The actions so far, hidden cards hidden, a page at a time",
        description=(
            "A card drawn from the stock shows only to the seat that drew it, until its round "
            "is over. Entries come oldest first, those after `since`, at most `limit` of them; "
            "`next_since` is the `since` of the next page, null on the last."
        ),
        responses=problems(401, 404, 422, 503),
    )
    async def log(
        self,
        services: AppGameServices,
        game_id: FromPath[str],
        viewer: Viewer,
        since: LogSince = 0,
        limit: LogLimit = LOG_PAGE_MAX,
    ) -> GameLog:
        loaded = await game_flow.load_any(services, game_id)
        seat = loaded.viewer(viewer)
        if not isinstance(loaded, LoadedGame):  # a table waiting for players: nothing played
            return GameLog(game_id=game_id, version=0, entries=[])
        later = [e for e in game.public_log(loaded.state, seat) if e.version > since]
        page = later[:limit]
        return GameLog(
            game_id=game_id,
            version=loaded.state.version,
            entries=[log_entry_to_wire(e) for e in page],
            next_since=page[-1].version if len(later) > limit else None,
        )

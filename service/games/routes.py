"""``/v1/games``: create a game, view it, act in it, follow its events, read its log."""

from __future__ import annotations

import random
from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter
from litestar.response import ServerSentEvent

from engine import game
from service.bots import seats as bot_seats
from service.games import lifecycle as game_flow
from service.games.action_wire import ActionRequest
from service.games.lifecycle import LoadedGame
from service.games.log_wire import GameLog
from service.games.wire import CreateGameRequest, GameCreated, GameView
from service.http import idempotency
from service.http.auth import OptionalToken, RequiredToken
from service.http.dependencies import AppServices
from service.http.idempotency import IdempotencyKey
from service.http.openapi_declarations import SEAT, SEAT_OR_PUBLIC, problems
from service.http.problems import InvalidField
from service.streams.events import RETRY_MS, game_events
from service.tables import creation
from service.vocabulary import to_wire

AnyRequest = Request[Any, Any, Any]

LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        description="Resume after this version: the events of the later versions, no snapshot.",
    ),
]
LOG_PAGE_MAX: Final = 1000
"""Entries of a log page at most, and by default: a whole game of most tables in one answer, as
before there were pages (a finished three-seat game is some 300)."""
LogSince = Annotated[
    int,
    QueryParameter(
        name="since",
        ge=0,
        le=2**31 - 1,
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
IdleTimeout = Annotated[
    float,
    QueryParameter(
        name="idle_timeout",
        ge=0,
        le=3600,
        description=(
            "Seconds without an action after which the stream ends (clients reconnect); 0 ends "
            "it once it has sent what there is."
        ),
    ),
]


_lifetimes: Final = random.Random()  # a spread, no secret
"""The streams' lifetimes' own generator: the module's shared one is the engine's to seed (the
contract tests' Hypothesis replays games from it)."""

_MAX_VERSION_DIGITS = 10
"""A version is below 2**31: any longer id is no version (and ``int`` of thousands of digits is
refused by Python itself)."""


StreamKey = Annotated[
    str | None,
    QueryParameter(
        name="key",
        required=False,
        max_length=64,
        description=(
            "A seat's stream key, as in the URL `POST …/stream-url` answers: that seat's "
            "private stream, for a browser EventSource (which cannot send Authorization)."
        ),
    ),
]
LOCATION: Final = ResponseHeader(
    name="Location", description="The path of the game.", documentation_only=True
)


def _nothing_left(loaded: LoadedGame, resume: int | None) -> bool:
    """A finished game's stream has nothing to send unless it resumes before the end."""
    state = loaded.state
    return state.status == "finished" and (resume is None or resume >= state.version)


def _resume_point(last_event_id: str | None) -> int | None:
    """An SSE event id is opaque to the client; one that is not a version starts afresh. Only
    ASCII digits make a version: ``str.isdigit`` also accepts ``²`` and other scripts' digits,
    which ``int`` refuses or reads as another number."""
    text = "" if last_event_id is None else last_event_id.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= _MAX_VERSION_DIGITS):
        return None
    return int(text)


class GamesController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @post(
        operation_id="createGame",
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
        responses=problems(400, 413, 422, 503),
    )
    async def create(
        self,
        request: AnyRequest,
        services: AppServices,
        data: JSONBody[CreateGameRequest],
        idempotency_key: IdempotencyKey = None,
    ) -> Response[GameCreated]:
        retry = idempotency.retry_of("createGame", idempotency_key, data)
        client = services.proxies.client_of(request)
        return idempotency.answered(await creation.create(services, data, retry, client=client))

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        security=SEAT_OR_PUBLIC,
        summary="The game as the public, or a seat, sees it",
        description=(
            "With a seat's token, the view adds that seat's `hand`, its `seat` and the actions "
            "it may post now (`legal`)."
        ),
        responses=problems(401, 404, 503),
    )
    async def get_game(
        self, services: AppServices, game_id: FromPath[str], viewer_token: OptionalToken
    ) -> GameView:
        loaded = await game_flow.load_any(services, game_id)
        view = loaded.view(loaded.viewer(viewer_token))
        if isinstance(loaded, LoadedGame):  # a move left undone by an instance that died
            bot_seats.look_after(services, loaded.game_id, loaded.record, loaded.state)
        return view

    @post(
        "/{game_id:str}/actions",
        operation_id="applyAction",
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
        services: AppServices,
        game_id: FromPath[str],
        data: JSONBody[ActionRequest],
        seat_token: RequiredToken,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[GameView]:
        body = await game_flow.take_turn(services, game_id, seat_token, idempotency_key, data)
        # The body is the saved JSON (also what a retry with the same Idempotency-Key gets).
        response: Response[Any] = Response(body, media_type="application/json")
        return response

    @get(
        "/{game_id:str}/events",
        operation_id="getGameEvents",
        security=SEAT_OR_PUBLIC,
        summary="Server-sent events: one per applied action, as the viewer sees it",
        description=(
            "First a `snapshot` event (the current view), then one `action` event per applied "
            "action (`GameEvent`), each with the new version as its id. `Last-Event-ID` resumes "
            "after that version. While a table waits, a `snapshot` (with no id) comes with each "
            "change of its seats, and the deal's snapshot has id 0. A finished game's stream "
            "ends with a `finished` event (`GameFinishedEvent`); opened again, it answers 204, "
            "so an EventSource stops. The stream also ends after `idle_timeout`, and after a "
            "minute or so however busy (`STREAM_LIFETIME`, so that streams spread over the "
            "instances): a client reconnects with `Last-Event-ID`, as an EventSource does by "
            "itself (the stream's `retry` asks it to within a second). A seat's stream takes its "
            "token, or the stream `key` of `POST …/stream-url`."
        ),
        media_type="text/event-stream",
        responses={
            **problems(401, 404, 422, 429, 503),
            204: ResponseSpec(None, description="The game is over: nothing more to stream"),
        },
    )
    async def events(
        self,
        request: AnyRequest,
        services: AppServices,
        game_id: FromPath[str],
        *,
        viewer_token: OptionalToken,
        last_event_id: LastEventId = None,
        idle_timeout: IdleTimeout = 300.0,
        key: StreamKey = None,
    ) -> ServerSentEvent | Response[None]:
        if "token" in request.query_params:  # once ignored silently: say what to do instead
            raise InvalidField(
                "token: a seat's token never goes in a URL; send it as Authorization, or open "
                "the URL of POST /v1/games/{game_id}/stream-url",
                field="token",
            )
        loaded = await game_flow.load_any(services, game_id)
        seat = loaded.stream_viewer(viewer_token, key)
        resume = _resume_point(last_event_id)
        if isinstance(loaded, LoadedGame) and _nothing_left(loaded, resume):
            return Response(None, status_code=204, headers={"Cache-Control": "no-store"})
        # Spread, so that streams opened together (after an instance died) end apart.
        lifetime = services.settings.stream_lifetime * _lifetimes.uniform(0.5, 1.0)
        events = game_events(
            services, game_id, seat, resume, idle_timeout=idle_timeout, lifetime=lifetime
        )
        return ServerSentEvent(
            services.streams.hold(services.proxies.client_of(request), events),
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            retry_duration=RETRY_MS,
        )

    @get(
        "/{game_id:str}/log",
        operation_id="getGameLog",
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
        services: AppServices,
        game_id: FromPath[str],
        viewer_token: OptionalToken,
        since: LogSince = 0,
        limit: LogLimit = LOG_PAGE_MAX,
    ) -> GameLog:
        loaded = await game_flow.load_any(services, game_id)
        seat = loaded.viewer(viewer_token)
        if not isinstance(loaded, LoadedGame):  # a table waiting for players: nothing played
            return GameLog(game_id=game_id, version=0, entries=[])
        later = [e for e in game.public_log(loaded.state, seat) if e.version > since]
        page = later[:limit]
        return GameLog(
            game_id=game_id,
            version=loaded.state.version,
            entries=[to_wire.log_entry_to_wire(e) for e in page],
            next_since=page[-1].version if len(later) > limit else None,
        )

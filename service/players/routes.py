"""``/v1/players``: make a player, its profile, a new key, the player's games."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Final, Literal

from litestar import Controller, Request, Response, get, post
from litestar.di import Provide
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from service.http.auth import AuthorizationHeader, seat_token, viewer_token
from service.http.openapi_declarations import APP_OR_PUBLIC, PLAYER, problems
from service.http.play_links import SVG, TEXT, qr_answers
from service.http.route_policy import Limit, RouteLink, bearer_from_answer, from_answer, policy
from service.identity.store import player_channel
from service.players import lifecycle
from service.players.deps import AppPlayerServices, Me, me
from service.players.events import Sent, ndjson_line, player_events, sse_frame, start_of
from service.players.lifecycle import GAMES_PAGE_MAX
from service.players.sign_in import sign_in_link, sign_in_qr
from service.players.wire import (
    CreatePlayerRequest,
    MyGames,
    NewKey,
    OnlineBots,
    PlayerCreated,
    PlayerProfile,
    PlayerStreamUrl,
)
from service.streams.events import RETRY_MS

AnyRequest = Request[Any, Any, Any]
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


LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        description="Resume after this event: the logged events after it (and what is pending).",
    ),
]
IdleTimeout = Annotated[
    float,
    QueryParameter(
        name="idle_timeout",
        ge=0,
        le=3600,
        description=(
            "Seconds without an event after which the stream ends (clients reconnect); 0 ends "
            "it once it has sent what there is."
        ),
    ),
]
PlayerStreamKey = Annotated[
    str | None,
    QueryParameter(
        name="key",
        required=False,
        max_length=100,
        description=(
            "The player's stream key, as in the URL `POST /v1/players/me/stream-url` answers: for "
            "a browser EventSource (which cannot send Authorization)."
        ),
    ),
]
NDJSON: Final = "application/x-ndjson"
_STREAM_CONTENT: Final = {
    "text/event-stream": {
        "schema": {
            "description": (
                "Server-sent events: `event` the type, `data` a `PlayerEvent`'s JSON, `id` the "
                "log's (none for what is pending). Each message is checked against the first "
                "alternative by OpenAPI 3.1 readers; a client that reads the body whole gets "
                "its text (as the game's stream, docs/contract.md)."
            ),
            "oneOf": [
                {
                    "type": "object",
                    "required": ["event", "data"],
                    "properties": {
                        "event": {"type": "string", "description": "The event's `type`."},
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "contentSchema": {"$ref": "#/components/schemas/PlayerEvent"},
                        },
                        "id": {"type": "string", "description": "Resume after it."},
                    },
                },
                {"type": "string"},
            ],
        }
    },
    NDJSON: {"schema": {"$ref": "#/components/schemas/PlayerEvent"}},
}
_lifetimes: Final = random.Random()  # a spread, no secret


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
            "so a lost key cannot be shown again. `bot: true` marks a program that plays. "
            "Sent with an app's key (`appKey`, the deployment's `APP_KEYS`), the player is the "
            "app's for good: the app's webhooks (`/v1/apps/me/webhooks`) get its events; any "
            "other token is a 401."
        ),
        status_code=201,
        security=APP_OR_PUBLIC,
        responses=problems(
            400, 401, 413, 422, 503, descriptions={401: "A token that is not an app's key"}
        ),
    )
    async def create(
        self,
        services: AppPlayerServices,
        data: JSONBody[CreatePlayerRequest],
        authorization: AuthorizationHeader = None,
    ) -> PlayerCreated:
        return await lifecycle.create(services, data, viewer_token(authorization))

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
        self, services: AppPlayerServices, me: Me, authorization: AuthorizationHeader = None
    ) -> NewKey:
        return await lifecycle.replace_key(services, me, seat_token(authorization))

    @post(
        "/me/stream-url",
        operation_id="createPlayerStreamUrl",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="The URL of the player's stream, for a browser's EventSource",
        description=(
            "An `EventSource` cannot send Authorization: the URL carries a stream key instead, "
            "which grants reading this player's stream only and stops working when the key is "
            "replaced. The key itself never goes in a URL."
        ),
        status_code=200,
        responses=problems(401, 503),
    )
    async def stream_url(self, services: AppPlayerServices, me: Me) -> PlayerStreamUrl:
        return await lifecycle.stream_url(services, me, services.settings.public_url)

    @get(
        "/me/sign-in-qr",
        operation_id="getSignInQr",
        opt=policy(limits=(Limit.PER_MINUTE,), openapi=qr_answers()),
        security=PLAYER,
        summary="A QR code of a link that signs another device in as this player",
        description=(
            "The link is the play page's address with the key in its fragment "
            "(`<base>/play#key=<key>`): a phone's camera reads it off the screen, and a browser "
            "never sends a fragment to a server. The base is the service's `PUBLIC_URL`, or "
            "else the address this request was sent to. Anyone who reads the code holds the "
            "key: show it to your own devices only. Not stored by caches (`no-store`). SVG "
            "(`image/svg+xml`) unless the request's `Accept` prefers `text/plain`, for clients "
            "that read only text (generated ones among them)."
        ),
        media_type=SVG,
        responses=problems(401, 503),
    )
    async def sign_in_qr(
        self,
        request: AnyRequest,
        services: AppPlayerServices,
        me: Me,
        authorization: AuthorizationHeader = None,
    ) -> Response[bytes]:
        # `me` resolved the bearer token to a player (else a 401 as on every player route), so
        # it is that player's current key.
        key = viewer_token(authorization)
        assert key is not None
        base = services.settings.public_url or str(request.base_url)
        return Response(
            sign_in_qr(sign_in_link(base, key)),
            media_type=request.accept.best_match([SVG, TEXT], default=SVG),
            headers={"Cache-Control": "no-store"},
        )

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

    @get(
        "/me/events",
        operation_id="getMyEvents",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
            openapi={"responses": {"200": {"content": _STREAM_CONTENT}}},
        ),
        security=PLAYER,
        summary="One stream of everything that concerns the player, across games",
        description=(
            "Server-sent events by default; with `Accept: application/x-ndjson`, one JSON "
            "object a line (an empty line keeps it alive), each logged one with its `id`. First "
            "what is pending (a `your_turn` for each game that waits for the player, with no "
            "id), then each event as it happens (`PlayerEvent`: `game_start`, `your_turn`, "
            "`game_finish`). The stream ends after a minute or so (`STREAM_LIFETIME`) or "
            "`idle_timeout`: reconnect with the last id read as `Last-Event-ID` and nothing "
            "is lost (the newest 200 events are kept a day). A browser's `EventSource`, which "
            "cannot send Authorization, opens the URL of `POST /v1/players/me/stream-url`."
        ),
        responses=problems(401, 422, 429, 503),
    )
    async def events(
        self,
        request: AnyRequest,
        services: AppPlayerServices,
        *,
        authorization: AuthorizationHeader = None,
        last_event_id: LastEventId = None,
        idle_timeout: IdleTimeout = 300.0,
        key: PlayerStreamKey = None,
    ) -> Stream:
        me = await lifecycle.streamer(services, viewer_token(authorization), key)
        player = await services.players.get(me)
        ndjson = NDJSON in request.headers.get("accept", "")
        lifetime = services.settings.stream_lifetime * _lifetimes.uniform(0.5, 1.0)
        after = await start_of(services, me, last_event_id)
        sent = player_events(
            services,
            me,
            after,
            idle_timeout=idle_timeout,
            lifetime=lifetime,
            bot=player is not None and player.bot,
        )
        frames = _frames(sent, ndjson_line if ndjson else sse_frame, b"" if ndjson else _RETRY)
        return Stream(
            services.streams.hold(player_channel(me), frames),
            media_type=NDJSON if ndjson else "text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )


_RETRY: Final = b"retry: %d\n" % RETRY_MS


async def _frames(
    sent: AsyncIterator[Sent | None], frame: Callable[[Sent | None], bytes], head: bytes
) -> AsyncIterator[bytes]:
    """The stream's bytes; ``head`` (SSE: the reconnection delay asked of the client) leads the
    first event, not a block of its own, which some readers (httpx-sse) take for an event."""
    async for each in sent:
        if head and each is not None:
            yield head + frame(each)
            head = b""
        else:
            yield frame(each)


class BotsController(Controller):
    path = "/v1/bots"
    tags = ("players",)

    @get(
        "/online",
        operation_id="listOnlineBots",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="Programs that play, online now: bot players with their stream open",
        description=(
            "A bot player (`POST /v1/players` with `bot: true`) is online while its stream "
            "(`GET /v1/players/me/events`) is open, on any instance, and for up to a minute after "
            "an instance that held it dies. At most 100, those online longest last."
        ),
        responses=problems(503),
    )
    async def online(self, services: AppPlayerServices) -> OnlineBots:
        return await lifecycle.online_bots(services)

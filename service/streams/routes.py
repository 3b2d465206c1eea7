"""``GET /v1/games/{id}/events``: a game's event stream, as its viewer sees it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import ServerSentEventMessage, Stream

from service.games import lifecycle as game_flow
from service.games.lifecycle import LoadedGame
from service.http.openapi_declarations import SEAT_OR_PUBLIC, problems
from service.http.problems import InvalidField
from service.http.route_policy import Limit, policy
from service.identity.deps import Viewer
from service.streams.deps import AppStreamServices
from service.streams.events import KEEP_ALIVE, RETRY_MS, game_events

AnyRequest = Request[Any, Any, Any]

LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        description="Resume after this version: the events of the later versions, no snapshot.",
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

_EVENT_STREAM: Final = {
    "text/event-stream": {
        "schema": {
            "oneOf": [
                {"$ref": "#/components/schemas/GameStreamMessage"},
                {
                    "type": "string",
                    "description": "The stream's text, to a client that reads the body whole.",
                },
            ]
        }
    }
}
"""The stream: each of its messages a ``GameStreamMessage`` (as OpenAPI 3.1 readers such as
schemathesis check it), or the whole body as text. The text is for generated clients that read
a response whole: openapi-python-client parses a ``text/*`` body with its schema, and raised a
bare ``TypeError`` on a 200 when the schema was only the messages; now it returns the text.
docs/contract.md shows how to follow the stream instead."""


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


class StreamsController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @get(
        "/{game_id:str}/events",
        operation_id="getGameEvents",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
            openapi={"responses": {"200": {"content": _EVENT_STREAM}}},
        ),
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
        services: AppStreamServices,
        game_id: FromPath[str],
        *,
        viewer: Viewer,
        last_event_id: LastEventId = None,
        idle_timeout: IdleTimeout = 300.0,
        key: StreamKey = None,
    ) -> Stream | Response[None]:
        if "token" in request.query_params:  # once ignored silently: say what to do instead
            raise InvalidField(
                "token: a seat's token never goes in a URL; send it as Authorization, or open "
                "the URL of POST /v1/games/{game_id}/stream-url",
                field="token",
            )
        loaded = await game_flow.load_any(services, game_id)
        seat = loaded.stream_viewer(viewer, key)
        resume = _resume_point(last_event_id)
        if isinstance(loaded, LoadedGame) and _nothing_left(loaded, resume):
            return Response(None, status_code=204, headers={"Cache-Control": "no-store"})
        # Spread, so that streams opened together (after an instance died) end apart.
        lifetime = services.settings.stream_lifetime * _lifetimes.uniform(0.5, 1.0)
        events = game_events(
            services, game_id, seat, resume, idle_timeout=idle_timeout, lifetime=lifetime
        )
        return Stream(
            services.streams.hold(services.proxies.client_of(request), _frames(events)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )


_RETRY: Final = b"retry: %d\n" % RETRY_MS


async def _frames(messages: AsyncIterator[ServerSentEventMessage]) -> AsyncIterator[bytes]:
    """The stream's bytes; the reconnection delay asked of the client (``retry``) leads the
    first event rather than being a block of its own, which some readers take for an event."""
    head = _RETRY
    async for message in messages:
        if message is KEEP_ALIVE:
            yield message.encode()
        else:
            yield head + message.encode()
            head = b""

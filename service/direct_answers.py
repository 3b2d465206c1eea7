"""A route's common case answered straight from its ASGI messages, past the framework's machinery.

Litestar's own work per request on a route with a body (the request object, the before-request
hook, the parameter model, the response object) can cost more than the answer: for
``POST /v1/analyse`` with a 14-card hand it was 163k of the 491k instructions spent besides the
analysis, when the whole of ``GET /healthz`` is 358k. So that route has a second path for its
common case: a route-level middleware (inside the app's own, so requests are still counted and
timed) reads the body, asks the route's ``answer(body)`` for the JSON of a 200, and sends it.

Anything else goes on to the framework with the messages read so far handed over again, so the
framework answers it exactly as it would have: a body without a Content-Length or larger than the
route's limit, every 4xx and 5xx (``answer`` returns None, or raises), a hand for the worker thread.
The two paths answer byte for byte the same (``tests/service/test_direct_answers.py``), and the
middleware stands aside for good on a route where the framework would add to a handler's answer
(hooks after the request, response headers or cookies, compression, guards, ...).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from litestar import Litestar, Response
from litestar.enums import MediaType
from litestar.handlers import HTTPRouteHandler
from litestar.types import ASGIApp, HTTPReceiveMessage, Receive, Scope, Send

from service.strict_body import decode_body_strictly

log = logging.getLogger("service.direct_answers")

Answer = Callable[[bytes], "bytes | None"]
"""A request body → the JSON body of the route's 200, or None to leave the request to the
framework. It decodes the body as ``service.strict_body`` does (the hook it stands in for)."""


class DirectAnswers:
    """Route-level ASGI middleware: ``middleware=[DefineMiddleware(DirectAnswers, answer=...)]``."""

    def __init__(self, app: ASGIApp, answer: Answer) -> None:
        self.app = app
        self.answer = answer
        self._limit: int | None = None
        """The route's body size limit; -1 where the framework would add to an answer."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._limit is None:
            handler = cast("HTTPRouteHandler", scope["route_handler"])  # an HTTP route's
            self._limit = _limit_if_nothing_added(scope["litestar_app"], handler)
        received: list[HTTPReceiveMessage] = []
        body = await _whole_body(scope, receive, self._limit, received)
        answer = None
        if body is not None:
            try:
                answer = self.answer(body)
            except Exception:  # the framework meets the same error, and answers it
                answer = None
        if answer is None:
            await self.app(scope, _replaying(received, receive), send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(answer)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": answer, "more_body": False})


def _limit_if_nothing_added(app: Litestar, handler: HTTPRouteHandler) -> int:
    """The route's body size limit, or -1 if the framework would make more of an answer than the
    handler's value as JSON with status 200 (then every request goes to the framework)."""
    nothing_added = (
        app.compression_config is None
        and app.csrf_config is None
        and not app.allowed_hosts
        and not handler.cache
        and not handler.resolve_guards()
        and handler.resolve_before_request() is decode_body_strictly
        and not any(layer.after_request for layer in handler.ownership_layers)
        and handler.resolve_after_response() is None
        and not handler.resolve_response_headers()
        and not handler.resolve_response_cookies()
        and handler.resolve_return_dto() is None
        and handler.resolve_response_class() is Response
        and handler.status_code == 200
        and handler.media_type == MediaType.JSON
    )
    limit = handler.resolve_request_max_body_size()
    if not nothing_added or limit is None:
        log.warning("%s: every request goes through the framework", handler.handler_name)
        return -1
    return limit


async def _whole_body(
    scope: Scope, receive: Receive, limit: int, received: list[HTTPReceiveMessage]
) -> bytes | None:
    """The body, if its Content-Length announced it within ``limit`` and it came whole (every
    message read is kept in ``received``); None otherwise."""
    announced = -1
    for name, value in scope["headers"]:  # ASGI header names are lower case
        if name == b"content-length":
            announced = int(value) if value.isdigit() else -1
            break
    if not 0 <= announced <= limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = cast("HTTPReceiveMessage", await receive())  # an HTTP route's
        received.append(message)
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size >= announced or not message.get("more_body", False):
            break
    if size != announced:
        return None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _replaying(received: list[HTTPReceiveMessage], receive: Receive) -> Receive:
    """``receive``, after the messages already read from it."""
    pending = iter(received)

    async def replayed() -> Any:
        message = next(pending, None)
        return await receive() if message is None else message

    return replayed

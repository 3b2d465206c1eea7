"""The access log, the request id, and CORS refusals: the outermost layer of every HTTP request.

``AccessLog`` wraps the app's whole ASGI handler (``create_app`` puts it around Litestar's, which
holds the CORS middleware and the exception handler), so it sees every request: unknown paths,
preflights and errors included. For each it

- takes the client's ``X-Request-ID`` (when it is a short token of safe characters) or makes
  one, and echoes it on the response;
- answers a CORS preflight that CORS refuses (an origin, method or header not allowed) with a
  problem, not Litestar's ``text/plain`` 400, and logs it;
- writes one JSON line to the ``service.access`` logger: method, route template, status,
  duration in ms, request id. Never the raw path, the query or a header: tokens, invite codes,
  stream keys and keys stay out of the log. A path that matches no route is logged as
  ``route: null``.
"""

from __future__ import annotations

import logging
import os
import re
import time
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any, Final

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Message, Receive, Scope, Send

from service.http.problems import PROBLEM_BASE, PROBLEM_MEDIA_TYPE

log = logging.getLogger("service.access")
refusals = logging.getLogger(__name__)


def access_log_config(level: str) -> dict[str, Any]:
    """The access log's part of the app's ``LoggingConfig``: each line is the JSON alone, at
    INFO, so ``LOG_LEVEL=WARNING`` (or higher) turns it off."""
    return {
        "formatters": {"access_line": {"format": "%(message)s"}},
        "handlers": {
            # Through Litestar's queue, like every other log line: no write blocks the loop.
            "access": {
                "class": "litestar.logging.standard.QueueListenerHandler",
                "level": "DEBUG",
                "formatter": "access_line",
            }
        },
        "loggers": {"service.access": {"level": level, "handlers": ["access"], "propagate": False}},
    }


REQUEST_ID_HEADER: Final = "x-request-id"
_REQUEST_ID_NAME: Final = REQUEST_ID_HEADER.encode()
_REQUEST_ID: Final = re.compile(r"[A-Za-z0-9._:-]{1,128}")
"""A client's request id is echoed and logged only when it is this: no spaces, quotes or
control characters to forge a log line with."""


class AccessLine(msgspec.Struct, frozen=True):
    """One line of the access log."""

    time: str
    method: str
    route: str | None
    status: int
    duration_ms: float
    request_id: str


_ENCODER: Final = msgspec.json.Encoder()


def request_id_of(scope: Scope) -> str:
    """The client's ``X-Request-ID`` when it is safe to echo, else a new one."""
    for name, value in scope.get("headers", ()):
        if name == _REQUEST_ID_NAME:
            text = value.decode("latin-1")
            if _REQUEST_ID.fullmatch(text):
                return text
            break
    return os.urandom(16).hex()  # 128 random bits, as uuid4's hex, without building a UUID


class AccessLog:
    """ASGI middleware around the whole app: see the module's docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        await self._http(scope, receive, send)

    async def _http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        request_id = request_id_of(scope)
        status = 500  # if the app sends nothing at all
        header = (_REQUEST_ID_NAME, request_id.encode())

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            if _is_preflight(scope):
                await self._preflight(scope, receive, send_with_id)
            else:
                await self.app(scope, receive, send_with_id)
        finally:
            if log.isEnabledFor(logging.INFO):  # else LOG_LEVEL turned the lines off
                _log_line(scope, status, started, request_id)

    async def _preflight(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        """A CORS preflight: Litestar's CORS middleware answers it; a refusal (a ``text/plain``
        400 naming what is disallowed: the origin, a method or a header) is answered as a
        problem instead, and logged."""
        messages: list[Message] = []

        async def keep(message: Message) -> None:
            messages.append(message)

        await self.app(scope, receive, keep)
        start = messages[0] if messages else None
        if (
            start is None
            or start["type"] != "http.response.start"
            or start["status"] != HTTPStatus.BAD_REQUEST
        ):
            for message in messages:
                await send(message)
            return
        reason = b"".join(m["body"] for m in messages if m["type"] == "http.response.body").decode(
            "utf-8", "replace"
        )
        origin = dict(scope.get("headers", ())).get(b"origin", b"").decode("latin-1")[:100]
        refusals.warning("CORS preflight refused: %s (origin %r)", reason[:100], origin)
        await _refuse_preflight(send, reason[:100], origin)


def _log_line(scope: HTTPScope, status: int, started: float, request_id: str) -> None:
    line = AccessLine(
        time=datetime.now(UTC).isoformat(timespec="milliseconds"),
        method=scope["method"],
        route=scope.get("path_template") or None,
        status=status,
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        request_id=request_id,
    )
    log.info(_ENCODER.encode(line).decode())


def _is_preflight(scope: HTTPScope) -> bool:
    if scope["method"] != "OPTIONS":
        return False
    names = {name for name, _ in scope.get("headers", ())}
    return b"origin" in names and b"access-control-request-method" in names


async def _refuse_preflight(send: Send, reason: str, origin: str) -> None:
    field = "Origin" if "origin" in reason.lower() else "Access-Control-Request-Headers"
    if "method" in reason.lower():
        field = "Access-Control-Request-Method"
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + "cors-refused",
        "title": "This cross-origin request is not allowed",
        "status": 400,
        "detail": (
            f"{reason} (origin {origin!r}): the service allows the origins of CORS_ORIGINS, "
            "and the headers Authorization, Content-Type, Idempotency-Key, Last-Event-ID."
        ),
        "field": field,
    }
    encoded = _ENCODER.encode(body)
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                (b"content-length", str(len(encoded)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": encoded, "more_body": False})

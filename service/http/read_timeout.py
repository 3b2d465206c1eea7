"""A deadline for a request's body: a client that sends its body slowly (or never finishes it)
is answered 408 after ``READ_TIMEOUT`` seconds instead of holding its connection for good.

granian times out a request's headers (its HTTP/1 ``header_read_timeout``) but not its body,
which the app reads message by message through ASGI's ``receive``. This middleware gives every
``receive`` of a request the time left until one deadline, counted from the first read. Once
the body is whole, ``receive`` is left alone: a streaming response waits on it for the client's
disconnect for as long as the stream lasts.
"""

from __future__ import annotations

import asyncio

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from service.http.problems import SlowRequest


class ReadTimeoutMiddleware:
    def __init__(self, app: ASGIApp, timeout: float) -> None:
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        await self.app(scope, _timed(receive, self.timeout), send)


def _timed(receive: Receive, timeout: float) -> Receive:
    deadline: float | None = None
    whole = False

    async def timed_receive() -> ReceiveMessage:
        nonlocal deadline, whole
        if whole:
            return await receive()
        loop = asyncio.get_running_loop()
        if deadline is None:
            deadline = loop.time() + timeout
        try:
            async with asyncio.timeout_at(deadline):
                message = await receive()
        except TimeoutError:
            raise SlowRequest(f"the request's body did not arrive within {timeout:g} s") from None
        if message["type"] != "http.request" or not message.get("more_body", False):
            whole = True
        return message

    return timed_receive

"""Requests straight through an app's ASGI interface: the body in as many messages as wanted,
with or without a Content-Length, and every message the app sends back."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from litestar import Litestar


def asgi_post(
    app: Litestar, path: str, chunks: Sequence[bytes], *, announced: int | None = None
) -> list[dict[str, Any]]:
    """POST the body in ``chunks``, one message each. Without ``announced`` there is no
    Content-Length (as a chunked upload arrives) and the last message says so; with it, the last
    message still says more is to come (as granian's does: its next one is empty). Reading past
    the messages fails the request."""
    messages = [
        {
            "type": "http.request",
            "body": chunk,
            "more_body": announced is not None or index < len(chunks) - 1,
        }
        for index, chunk in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        raise AssertionError("the body was read past its end")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json")]
        + ([] if announced is None else [(b"content-length", str(announced).encode())]),
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
    }
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    return sent


def status_and_body(sent: list[dict[str, Any]]) -> tuple[int, bytes]:
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body

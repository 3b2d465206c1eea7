"""The ``OPTIONS`` answer of a path served by several handlers.

Litestar (2.25) makes a path's ``OPTIONS`` handler with its first handler and keeps it when the
path's other handlers join the route, so its ``Allow`` names the first method alone (``POST`` on
a path that also answers ``GET``), which clients and schemathesis read as the methods the path
supports. A path with several methods declares its ``OPTIONS`` with this, naming them all.
"""

from __future__ import annotations

from litestar import Response, route
from litestar.handlers import HTTPRouteHandler
from litestar.status_codes import HTTP_204_NO_CONTENT


def allowed_methods(path: str, *methods: str) -> HTTPRouteHandler:
    """A handler for ``OPTIONS`` on ``path`` that allows ``methods`` (and itself)."""
    allow = ", ".join(sorted({*methods, "OPTIONS"}))

    def options(self: object) -> Response[None]:
        return Response(None, status_code=HTTP_204_NO_CONTENT, headers={"Allow": allow})

    return route(path, http_method=["OPTIONS"], include_in_schema=False, sync_to_thread=False)(
        options
    )

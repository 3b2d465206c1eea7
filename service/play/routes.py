"""Serves the play page's static files under ``/play`` with Litestar's static files router.

``/play`` itself answers ``static/index.html``; every other file is addressed by its own name
(``/play/main.js``). Nothing here is in the OpenAPI document: the page is a client of the API,
not part of it. Every answer carries a Content-Security-Policy that lets the page load and call
only its own origin, so the page cannot be made to run or send anything elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from litestar import Response, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

from service.http.play_links import PLAY_PATH

STATIC_DIRECTORY: Final = Path(__file__).parent / "static"

CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    )
)
"""Only this origin, for scripts, styles, calls and streams alike; no inline script or style
attribute (the page sets styles through the CSSOM, which the policy allows)."""

_SECURITY_HEADERS: Final = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def _secure(response: Response[object]) -> Response[object]:
    response.headers.update(_SECURITY_HEADERS)
    return response


@get("/", include_in_schema=False, sync_to_thread=False)
def root() -> Redirect:
    """Whoever opens the server's address lands on the page."""
    return Redirect(PLAY_PATH)


play_files: Final = create_static_files_router(
    path=PLAY_PATH,
    directories=[STATIC_DIRECTORY],
    html_mode=True,
    name="play",
    include_in_schema=False,
    after_request=_secure,
    # Revalidated on each load (ETag), so a deployed change reaches every browser at once.
    cache_control=CacheControlHeader(no_cache=True),
)

play_routes: Final = Router(path="/", route_handlers=[root, play_files], include_in_schema=False)
"""The page's routes, for the app factory's ``route_handlers``."""

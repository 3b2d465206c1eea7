"""Rate limits per client address on the routes anyone may call without a seat's token.

The convention of lichess's API: a client that calls too often is answered 429 and told when
to come back. Litestar's own ``RateLimitMiddleware`` counts the requests of the last minute per
client in a Litestar store: the process's memory, or Redis when games live there, so that every
instance behind a load balancer counts against the same limit. Its ``RateLimit-*`` headers go
on every answer of a limited route; a refusal also carries ``Retry-After`` (seconds until the
window resets) and is a problem-details 429.

Only the routes that need no token are limited: a seat's own actions are bounded by the game
(one seat acts at a time) and a limit there would stall a game, not an attacker.
"""

from __future__ import annotations

from typing import Any, Final

from litestar import Request
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.rate_limit import RateLimitConfig, RateLimitMiddleware
from litestar.types import Receive, Scope, Send

from service.http.client_address import TrustedProxies
from service.settings import Settings

RATE_LIMITED_OPERATIONS: Final = frozenset(
    {
        "analyseHand",
        "adviseHand",
        "createGame",
        "claimInvite",
        "createScoreSheet",
        "getGameEvents",
    }
)
"""The operations that need no token and cost the service work (by ``operation_id``): analyse,
advise, create a game, join one by its invite code, create a score sheet, and the event
streams."""

STORE_NAME: Final = "rate_limit"


class _RateLimitMiddleware(RateLimitMiddleware):
    """Litestar's middleware, its refusal completed with Retry-After and a detail."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except TooManyRequestsException as refusal:
            headers = dict(refusal.headers or {})
            retry_after = headers.get(self.config.rate_limit_reset_header_key, "60")
            headers["Retry-After"] = str(max(1, int(retry_after)))
            refusal.headers = headers
            refusal.detail = (
                f"more than {self.max_requests} requests a minute from this address on routes "
                f"that need no token: retry in {headers['Retry-After']} s"
            )
            raise


def _limited(request: Request[Any, Any, Any]) -> bool:
    return getattr(request.route_handler, "operation_id", None) in RATE_LIMITED_OPERATIONS


def rate_limit_config(settings: Settings) -> RateLimitConfig | None:
    """The middleware's configuration, or None when ``RATE_LIMIT_PER_MINUTE`` is unset."""
    if settings.rate_limit_per_minute <= 0:
        return None
    return RateLimitConfig(
        rate_limit=("minute", settings.rate_limit_per_minute),
        identifier_for_request=TrustedProxies(settings.trusted_proxies).client_of,
        check_throttle_handler=_limited,
        middleware_class=_RateLimitMiddleware,
        store=STORE_NAME,
    )

"""Rate limits per client address on every route that costs the service work.

The convention of lichess's API: a client that calls too often is answered 429 and told when
to come back. Litestar's own ``RateLimitMiddleware`` counts the requests of the last minute per
client in a Litestar store: the process's memory, or Redis when games live there, so that every
instance behind a load balancer counts against the same limit. Its ``RateLimit-*`` headers go
on every answer of a limited route; a refusal also carries ``Retry-After`` (seconds until the
window resets) and is a problem-details 429.

Limits are on out of the box (``RATE_LIMIT_PER_MINUTE``, generous: a person never meets it).
Each route declares the limits that count its calls (``service.http.route_policy``). Every route
that costs something is limited, the token-guarded ones too (a seat's token is
handed to anyone who creates a game, so it proves nothing about the caller): creating, joining,
leaving and rematching, the views, logs and streams, the lobby, hints and advice, score sheets.
Only a seat's own actions are not: they are bounded by the game (one seat acts at a time), and
a limit there would stall a game, not an attacker; so are the operations' probes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

from litestar import Request
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, RateLimitMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from service.http.client_address import TrustedProxies
from service.http.route_policy import Limit, limits_of
from service.settings import Settings
from service.storage.game_store import StoreUnavailable
from service.storage.redis_connection import UNAVAILABLE_ERRORS, UNAVAILABLE_MESSAGE, outage_log

STORE_NAME: Final = "rate_limit"


class _ClientLocks:
    """An ``asyncio.Lock`` per client key, dropped when no request holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def held(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


class _RateLimitMiddleware(RateLimitMiddleware):
    """Litestar's middleware, with a lock per client, its refusal completed with Retry-After and
    a detail.

    Litestar counts a client's requests by reading its history from the store and writing it
    back, two round trips under one lock for the whole process: under load every limited request
    of every client queued behind the others' (a soak's views waited up to a second). The same
    count, read and written the same way, is held under its own client's lock here, so clients
    never wait for each other. Litestar keys a client's count by the middleware's class name:
    the daily quotas below are subclasses so that they count apart."""

    def __init__(self, app: ASGIApp, config: RateLimitConfig) -> None:
        super().__init__(app, config)
        self.clients = _ClientLocks()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self._counted(scope, receive, send)
        except UNAVAILABLE_ERRORS as error:
            # The counts live in Redis beside the games: an outage is the store's 503, not a 500.
            outage_log.note(error)
            raise StoreUnavailable(UNAVAILABLE_MESSAGE) from error
        except TooManyRequestsException as refusal:
            headers = dict(refusal.headers or {})
            if "Retry-After" not in headers:  # not yet completed by an inner limit
                retry_after = headers.get(self.config.rate_limit_reset_header_key, "60")
                headers["Retry-After"] = str(max(1, int(retry_after)))
                refusal.headers = headers
                refusal.detail = (
                    f"more than {self.max_requests} {self.counted} a {self.unit} from this "
                    f"address: retry in {headers['Retry-After']} s"
                )
            raise

    async def _counted(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``RateLimitMiddleware.__call__``, its process-wide lock made the client's own."""
        app = scope["litestar_app"]
        request: Request[Any, Any, Any] = app.request_class(scope)
        if await self.should_check_request(request=request):
            store = self.config.get_store_from_app(app)
            key = self.cache_key_from_request(request)
            async with self.clients.held(key):
                history = await self.retrieve_cached_history(key, store)
                if len(history.history) >= self.max_requests:
                    raise TooManyRequestsException(
                        headers=self.create_response_headers(cache_object=history)
                    )
                await self.set_cached_history(key=key, cache_object=history, store=store)
            send = self.create_send_wrapper(send=send, cache_object=history)
        await self.app(scope, receive, send)

    counted = "requests"


class _CreationQuotaMiddleware(_RateLimitMiddleware):
    """The daily quota on what a client makes (games, tables, rematches, score sheets)."""

    counted = "games, tables and score sheets created"


class _ClaimQuotaMiddleware(_RateLimitMiddleware):
    """The daily quota on invite codes tried."""

    counted = "invite codes tried"


def _counted_against(limit: Limit) -> Callable[[Request[Any, Any, Any]], Awaitable[bool]]:
    """Whether a request counts against ``limit``: its route says so (``route_policy``).

    A coroutine function although it never waits: Litestar runs a plain function given as
    ``check_throttle_handler`` in its thread pool, a thread hop per middleware and request
    that, under load, queues every request behind the interpreter lock."""

    async def counts(request: Request[Any, Any, Any]) -> bool:
        return limit in limits_of(request.route_handler)

    return counts


def rate_limit_middleware(settings: Settings) -> list[DefineMiddleware]:
    """The limits' middleware, outermost first: the rate per minute (its ``RateLimit-*``
    headers are the ones every answer carries), then the daily quotas of creations and of
    invite codes tried. A setting
    at 0 turns its limit off."""
    client_of = TrustedProxies(settings.trusted_proxies).client_of
    limits = (
        ("minute", settings.rate_limit_per_minute, Limit.PER_MINUTE, _RateLimitMiddleware),
        ("day", settings.creations_per_day, Limit.CREATIONS, _CreationQuotaMiddleware),
        ("day", settings.claims_per_day, Limit.CLAIMS, _ClaimQuotaMiddleware),
    )
    return [
        RateLimitConfig(
            rate_limit=(unit, count),  # type: ignore[arg-type]  # a DurationUnit literal
            identifier_for_request=client_of,
            check_throttle_handler=_counted_against(limit),
            middleware_class=middleware,
            store=STORE_NAME,
        ).middleware
        for unit, count, limit, middleware in limits
        if count > 0
    ]

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

**Limits counted by size.** ``ANALYSED_HANDS_PER_MINUTE`` counts hands analysed, not requests:
``POST /v1/analyse`` counts one, ``POST /v1/analyse/batch`` as many as its entries (each also
counts as one request against ``RATE_LIMIT_PER_MINUTE``, as every request does). A request's
size is known only once its route has read the body, so the middleware of such a limit
(``Limit.ANALYSED_HANDS``) counts nothing on the way in: it leaves the route the client's
quota in the request's state, and the route takes its size from it (``take``) before it does
any of the work. A batch that would pass what the client has left this minute is refused as a
whole, 429 ``analysed-hands-quota`` with ``Retry-After`` (the window's end) and a detail saying
how many are left; nothing of it is analysed or counted. The window is the same fixed minute
as Litestar's, from the client's first count; the count is one number in the same store
(memory, or Redis beside the games), read and written under the client's lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

import msgspec
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, RateLimitMiddleware
from litestar.stores.base import Store
from litestar.types import ASGIApp, Receive, Scope, Send

from service.http.client_address import TrustedProxies
from service.http.problems import AnalysedHandsQuotaReached
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
                    f"more than {self.max_requests} {self.counted} a {self.unit} {self.whose}: "
                    f"retry in {headers['Retry-After']} s"
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
    whose = "from this address"


class _CreationQuotaMiddleware(_RateLimitMiddleware):
    """The daily quota on what a client makes (games, tables, rematches, score sheets)."""

    counted = "games, tables and score sheets created"


class _ClaimQuotaMiddleware(_RateLimitMiddleware):
    """The daily quota on invite codes tried."""

    counted = "invite codes tried"


class _InvitationQuotaMiddleware(_RateLimitMiddleware):
    """The hourly quota on the challenges and seeks a player makes, per player key."""

    counted = "challenges and seeks"
    whose = "by this player"


def _bearer_of(client_of: Callable[[Request[Any, Any, Any]], str]) -> Callable[..., str]:
    """Whose count a request is in, by its bearer token (a player's key; hashed, never kept
    as sent), or by its client address without one (such a request is refused anyway)."""

    def identifier(request: Request[Any, Any, Any]) -> str:
        token = request.headers.get("authorization")
        if not token:
            return client_of(request)
        return "key:" + hashlib.sha256(token.encode()).hexdigest()[:32]

    return identifier


def _counted_against(limit: Limit) -> Callable[[Request[Any, Any, Any]], Awaitable[bool]]:
    """Whether a request counts against ``limit``: its route says so (``route_policy``).

    A coroutine function although it never waits: Litestar runs a plain function given as
    ``check_throttle_handler`` in its thread pool, a thread hop per middleware and request
    that, under load, queues every request behind the interpreter lock."""

    async def counts(request: Request[Any, Any, Any]) -> bool:
        return limit in limits_of(request.route_handler)

    return counts


WINDOW_SECONDS: Final = 60
"""The window of a limit counted by size (``ANALYSED_HANDS_PER_MINUTE``)."""
_QUOTA_STATE: Final = "sized_quota"
"""Where a request's state holds the client's quota of a limit counted by size."""


class _Tally(msgspec.Struct, frozen=True):
    """A client's count in its window, as the store keeps it."""

    used: int
    reset: int
    """When the window ends (seconds since the epoch)."""


_tally_decoder: Final = msgspec.json.Decoder(_Tally)


class _SizedQuota:
    """One client's hands analysed this minute: what ``take`` counts against."""

    def __init__(self, middleware: _SizedQuotaMiddleware, key: str, store: Store) -> None:
        self.middleware = middleware
        self.key = key
        self.store = store

    async def take(self, amount: int) -> None:
        most = self.middleware.most
        async with self.middleware.clients.held(self.key):
            now = int(time.time())
            stored = await self.store.get(self.key)
            tally = _tally_decoder.decode(stored) if stored else None
            if tally is None or tally.reset <= now:
                tally = _Tally(used=0, reset=now + WINDOW_SECONDS)
            wait = max(1, tally.reset - now)
            if tally.used + amount > most:
                raise AnalysedHandsQuotaReached(
                    _refusal(amount, most - tally.used, most, wait),
                    retry_after=wait,
                )
            tally = _Tally(used=tally.used + amount, reset=tally.reset)
            await self.store.set(self.key, msgspec.json.encode(tally), expires_in=wait)


def _refusal(amount: int, left: int, most: int, wait: int) -> str:
    if amount > most:
        return (
            f"{amount} hands are more than this address may have analysed in a minute ({most}, "
            f"ANALYSED_HANDS_PER_MINUTE): send at most {most} at a time"
        )
    return (
        f"{amount} hands would take this address past {most} analysed a minute "
        f"(ANALYSED_HANDS_PER_MINUTE): {max(0, left)} are left, all {most} again in {wait} s"
    )


class _SizedQuotaMiddleware:
    """``Limit.ANALYSED_HANDS``: on a route that declares it, the client's quota in the
    request's state for the route to ``take`` from (see the module's docstring)."""

    def __init__(
        self, app: ASGIApp, most: int, client_of: Callable[[Request[Any, Any, Any]], str]
    ) -> None:
        self.app = app
        self.most = most
        self.client_of = client_of
        self.clients = _ClientLocks()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and Limit.ANALYSED_HANDS in limits_of(
            scope["route_handler"]
        ):
            app = scope["litestar_app"]
            request: Request[Any, Any, Any] = app.request_class(scope)
            key = f"{type(self).__name__}::{self.client_of(request)}"
            request.state[_QUOTA_STATE] = _SizedQuota(self, key, app.stores.get(STORE_NAME))
        await self.app(scope, receive, send)


async def take(request: Request[Any, Any, Any], limit: Limit, amount: int) -> None:
    """Count ``amount`` against ``limit`` (counted by size) for the request's client, or refuse
    the whole request (429) if it would pass what the client has left; nothing when the limit
    is off. The route must declare ``limit`` (``route_policy``)."""
    if limit not in limits_of(request.route_handler):
        raise LookupError(f"the route does not declare {limit} in its policy")
    quota: _SizedQuota | None = request.state.get(_QUOTA_STATE)
    if quota is None:  # the limit is off
        return
    try:
        await quota.take(amount)
    except UNAVAILABLE_ERRORS as error:
        outage_log.note(error)
        raise StoreUnavailable(UNAVAILABLE_MESSAGE) from error


def rate_limit_middleware(settings: Settings) -> list[DefineMiddleware]:
    """The limits' middleware, outermost first: the rate per minute (its ``RateLimit-*``
    headers are the ones every answer carries), then the daily quotas of creations and of
    invite codes tried, then the hands analysed a minute (counted by size). A setting
    at 0 turns its limit off."""
    client_of = TrustedProxies(settings.trusted_proxies).client_of
    sized = (
        [
            DefineMiddleware(
                _SizedQuotaMiddleware,
                most=settings.analysed_hands_per_minute,
                client_of=client_of,
            )
        ]
        if settings.analysed_hands_per_minute > 0
        else []
    )
    by_key = _bearer_of(client_of)
    limits = (
        ("minute", settings.rate_limit_per_minute, Limit.PER_MINUTE, _RateLimitMiddleware),
        ("day", settings.creations_per_day, Limit.CREATIONS, _CreationQuotaMiddleware),
        ("day", settings.claims_per_day, Limit.CLAIMS, _ClaimQuotaMiddleware),
    )
    per_address = [
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
    per_player = [
        RateLimitConfig(
            rate_limit=("hour", settings.invitations_per_hour),
            identifier_for_request=by_key,
            check_throttle_handler=_counted_against(Limit.INVITATIONS),
            middleware_class=_InvitationQuotaMiddleware,
            store=STORE_NAME,
        ).middleware
    ]
    return per_address + (per_player if settings.invitations_per_hour > 0 else []) + sized

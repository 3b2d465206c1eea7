"""Rate limits per client on every route that costs the service work.

The convention of lichess's API: a client that calls too often is answered 429 and told when
to come back. Each route declares the limits that count its calls (``service.http.route_policy``);
one middleware counts them all. Every route that costs something is limited, the token-guarded
ones too (a seat's token is handed to anyone who creates a game, so it proves nothing about the
caller): creating, joining, leaving and rematching, the views, logs and streams, the lobby,
hints and advice, score sheets. Only a seat's own actions are not: they are bounded by the game
(one seat acts at a time), and a limit there would stall a game, not an attacker; so are the
operations' probes. A route that declares no limit crosses the middleware without a look at the
store, and a limited one counts each of its limits in one place.

**The count.** A fixed window per client and limit: how many the client used, and when its
window ends (it opens with the client's first count). The count is one small record in a
Litestar store, the process's memory or Redis beside the games, so that every instance behind a
load balancer counts against the same limit; it is read and written under a lock per client
and limit, shared by every route, so that clients never wait for each other and one client's
requests on two routes at once never lose a count. Litestar's own ``RateLimitMiddleware``
counts the same window but keeps every request's time (a record as long as the limit: 1,200
numbers read and written per request of a busy client) and is one middleware per limit.

**The answers.** A limited answer carries the ``RateLimit-*`` headers of the first limit it
counted against (the rate per minute, when on); a refusal is a problem-details 429 saying which
limit and when to come back, with ``Retry-After`` (seconds until the window resets).

| limit | setting | counted against |
|---|---|---|
| requests a minute | ``RATE_LIMIT_PER_MINUTE`` | the client address |
| games, tables and score sheets created a day | ``CREATIONS_PER_DAY`` | the client address |
| invite codes tried a day | ``CLAIMS_PER_DAY`` | the client address |
| challenges and seeks an hour | ``INVITATIONS_PER_HOUR`` | the player's key |
| hands analysed a minute | ``ANALYSED_HANDS_PER_MINUTE`` | the client address, by size |

**Limits counted by size.** ``ANALYSED_HANDS_PER_MINUTE`` counts hands analysed, not requests:
``POST /v1/analyse`` counts one, ``POST /v1/analyse/batch`` as many as its entries (each also
counts as one request against ``RATE_LIMIT_PER_MINUTE``, as every request does). A request's
size is known only once its route has read the body, so the middleware counts nothing of it on
the way in: it leaves the route the client's quota in the request's state, and the route takes
its size from it (``take``) before it does any of the work. A batch that would pass what the
client has left this minute is refused as a whole, 429 ``analysed-hands-quota``, with
``Retry-After`` and a detail saying how many are left; nothing of it is analysed or counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.stores.base import Store
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.http.client_address import TrustedProxies
from service.http.problems import AnalysedHandsQuotaReached
from service.http.route_policy import Limit, limits_of
from service.settings import Settings
from service.storage.game_store import StoreUnavailable
from service.storage.redis_connection import UNAVAILABLE_ERRORS, UNAVAILABLE_MESSAGE, outage_log

STORE_NAME: Final = "rate_limit"
Unit = Literal["minute", "hour", "day"]
_SECONDS: Final[dict[Unit, int]] = {"minute": 60, "hour": 3600, "day": 24 * 3600}
_QUOTA_STATE: Final = "sized_quota"
"""Where a request's state holds the client's quota of a limit counted by size."""

ClientOf = Callable[[Request[Any, Any, Any]], str]


@dataclass(frozen=True, slots=True)
class _Rule:
    """One limit as the deployment set it."""

    limit: Limit
    most: int
    unit: Unit
    """The window: ``most`` a minute, an hour or a day."""
    counted: str
    """What it counts, for a refusal's detail: ``requests``."""
    whose: str
    """Whose count, for a refusal's detail: ``from this address``."""
    client_of: ClientOf

    @property
    def window(self) -> int:
        """The window's seconds."""
        return _SECONDS[self.unit]

    def key(self, request: Request[Any, Any, Any]) -> str:
        return f"limit:{self.limit.value}:{self.client_of(request)}"


class _Tally(msgspec.Struct, frozen=True):
    """A client's count in its window, as the store keeps it."""

    used: int
    reset: int
    """When the window ends (seconds since the epoch)."""


_tally_decoder: Final = msgspec.json.Decoder(_Tally)


class _ClientLocks:
    """An ``asyncio.Lock`` per count, dropped when no request holds or awaits it."""

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


class _Counts:
    """Every client's counts, in the limits' store, each under its own lock."""

    def __init__(self) -> None:
        self.locks = _ClientLocks()

    async def add(
        self,
        store: Store,
        key: str,
        rule: _Rule,
        amount: int,
        refused: Callable[[_Tally], Exception],
    ) -> _Tally:
        """Count ``amount`` in the client's window, or raise ``refused(tally)`` if that would
        pass the rule's most (counting nothing)."""
        try:
            async with self.locks.held(key):
                now = int(time.time())
                stored = await store.get(key)
                tally = _tally_decoder.decode(stored) if stored else None
                if tally is None or tally.reset <= now:
                    tally = _Tally(used=0, reset=now + rule.window)
                if tally.used + amount > rule.most:
                    raise refused(tally)
                tally = _Tally(used=tally.used + amount, reset=tally.reset)
                await store.set(key, msgspec.json.encode(tally), expires_in=tally.reset - now)
                return tally
        except UNAVAILABLE_ERRORS as error:
            # The counts live in Redis beside the games: an outage is the store's 503, not a 500.
            outage_log.note(error)
            raise StoreUnavailable(UNAVAILABLE_MESSAGE) from error


def _headers(rule: _Rule, tally: _Tally) -> dict[str, str]:
    """The ``RateLimit-*`` headers of the IETF draft, as Litestar names them."""
    return {
        "RateLimit-Policy": f"{rule.most}; w={rule.window}",
        "RateLimit-Limit": str(rule.most),
        "RateLimit-Remaining": str(max(0, rule.most - tally.used)),
        "RateLimit-Reset": str(max(0, tally.reset - int(time.time()))),
    }


def _too_many(rule: _Rule) -> Callable[[_Tally], Exception]:
    def refusal(tally: _Tally) -> Exception:
        headers = _headers(rule, tally)
        wait = max(1, int(headers["RateLimit-Reset"]))
        headers["Retry-After"] = str(wait)
        return TooManyRequestsException(
            detail=(
                f"more than {rule.most} {rule.counted} a {rule.unit} {rule.whose}: "
                f"retry in {wait} s"
            ),
            headers=headers,
        )

    return refusal


class _SizedQuota:
    """One client's hands analysed this minute: what ``take`` counts against."""

    def __init__(self, counts: _Counts, rule: _Rule, key: str, store: Store) -> None:
        self.counts = counts
        self.rule = rule
        self.key = key
        self.store = store

    async def take(self, amount: int) -> None:
        most = self.rule.most

        def refusal(tally: _Tally) -> Exception:
            wait = max(1, tally.reset - int(time.time()))
            return AnalysedHandsQuotaReached(
                _quota_refusal(amount, most - tally.used, most, wait), retry_after=wait
            )

        await self.counts.add(self.store, self.key, self.rule, amount, refusal)


def _quota_refusal(amount: int, left: int, most: int, wait: int) -> str:
    if amount > most:
        return (
            f"{amount} hands are more than this address may have analysed in a minute ({most}, "
            f"ANALYSED_HANDS_PER_MINUTE): send at most {most} at a time"
        )
    return (
        f"{amount} hands would take this address past {most} analysed a minute "
        f"(ANALYSED_HANDS_PER_MINUTE): {max(0, left)} are left, all {most} again in {wait} s"
    )


class RateLimitsMiddleware:
    """Counts a request against each limit its route declares, in the rules' order; the sized
    limit's quota goes to the route (see the module's docstring)."""

    def __init__(
        self, app: ASGIApp, rules: tuple[_Rule, ...], sized: _Rule | None, counts: _Counts
    ) -> None:
        self.app = app
        self.rules = rules
        self.sized = sized
        self.counts = counts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        declared = limits_of(scope["route_handler"])
        counted = [rule for rule in self.rules if rule.limit in declared]
        sized = self.sized if self.sized and self.sized.limit in declared else None
        if counted or sized:
            app = scope["litestar_app"]
            store = app.stores.get(STORE_NAME)
            request: Request[Any, Any, Any] = app.request_class(scope)
            shown: dict[str, str] | None = None
            for rule in counted:
                tally = await self.counts.add(store, rule.key(request), rule, 1, _too_many(rule))
                shown = shown or _headers(rule, tally)
            if sized:
                request.state[_QUOTA_STATE] = _SizedQuota(
                    self.counts, sized, sized.key(request), store
                )
            if shown:
                send = _with_headers(send, shown)
        await self.app(scope, receive, send)


def _with_headers(send: Send, headers: dict[str, str]) -> Send:
    """``send``, the answer's start given ``headers`` (no route sets them itself)."""
    encoded = [(name.lower().encode(), value.encode()) for name, value in headers.items()]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", ()), *encoded]
        await send(message)

    return sending


async def take(request: Request[Any, Any, Any], limit: Limit, amount: int) -> None:
    """Count ``amount`` against ``limit`` (counted by size) for the request's client, or refuse
    the whole request (429) if it would pass what the client has left; nothing when the limit
    is off. The route must declare ``limit`` (``route_policy``)."""
    if limit not in limits_of(request.route_handler):
        raise LookupError(f"the route does not declare {limit} in its policy")
    quota: _SizedQuota | None = request.state.get(_QUOTA_STATE)
    if quota is not None:  # else the limit is off
        await quota.take(amount)


def _bearer_of(client_of: ClientOf) -> ClientOf:
    """Whose count a request is in, by its bearer token (a player's key; hashed, never kept
    as sent), or by its client address without one (such a request is refused anyway)."""

    def identifier(request: Request[Any, Any, Any]) -> str:
        token = request.headers.get("authorization")
        if not token:
            return client_of(request)
        return "key:" + hashlib.sha256(token.encode()).hexdigest()[:32]

    return identifier


def rate_limit_middleware(settings: Settings) -> list[DefineMiddleware]:
    """The limits' middleware, one for every route (Litestar builds a stack per route: the
    counts and their locks are made here, once, and shared). A setting at 0 turns its limit
    off; with every limit off there is no middleware."""
    by_address = TrustedProxies(settings.trusted_proxies).client_of
    rules = tuple(
        rule
        for rule in (
            _Rule(
                Limit.PER_MINUTE,
                settings.rate_limit_per_minute,
                "minute",
                "requests",
                "from this address",
                by_address,
            ),
            _Rule(
                Limit.CREATIONS,
                settings.creations_per_day,
                "day",
                "games, tables and score sheets created",
                "from this address",
                by_address,
            ),
            _Rule(
                Limit.CLAIMS,
                settings.claims_per_day,
                "day",
                "invite codes tried",
                "from this address",
                by_address,
            ),
            _Rule(
                Limit.INVITATIONS,
                settings.invitations_per_hour,
                "hour",
                "challenges and seeks",
                "by this player",
                _bearer_of(by_address),
            ),
        )
        if rule.most > 0
    )
    sized = (
        _Rule(
            Limit.ANALYSED_HANDS,
            settings.analysed_hands_per_minute,
            "minute",
            "hands analysed",
            "from this address",
            by_address,
        )
        if settings.analysed_hands_per_minute > 0
        else None
    )
    if not rules and sized is None:
        return []
    return [DefineMiddleware(RateLimitsMiddleware, rules=rules, sized=sized, counts=_Counts())]

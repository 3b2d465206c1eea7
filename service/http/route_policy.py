"""What a route declares about itself, where it is declared: the limits that count its calls,
the links from its answers to the operations they lead to, what its OpenAPI operation says
beyond what the framework derives, and the name its ``Idempotency-Key`` answers are saved
under. Each is a value in the route handler's Litestar ``opt``,
built by ``policy``; the rate limits' middleware and the document's finish
(``service.app.document``, ``service.app.links``) read them from the handler, so adding a route
is one decorator, not an edit to a table of operation ids.

    @post(..., opt=policy(limits=(Limit.PER_MINUTE, Limit.CREATIONS), links={...}))
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from litestar.handlers import BaseRouteHandler

_LIMITS: Final = "limits"
_LINKS: Final = "links"
_OPENAPI: Final = "openapi"
_RETRY_SCOPE: Final = "retry_scope"


class Limit(enum.Enum):
    """A count a route's calls go against, per client address (``service.http.rate_limits``)."""

    PER_MINUTE = "per_minute"
    """``RATE_LIMIT_PER_MINUTE``: every route that costs the service work."""
    CREATIONS = "creations"
    """``CREATIONS_PER_DAY``: what the service keeps (a game, a table, a sheet)."""
    CLAIMS = "claims"
    """``CLAIMS_PER_DAY``: invite codes tried, so that guessing a stranger's takes years."""
    INVITATIONS = "invitations"
    """``INVITATIONS_PER_HOUR``: challenges and seeks a player makes, counted per player key
    (the request's bearer token) rather than per address."""
    ANALYSED_HANDS = "analysed_hands"
    """``ANALYSED_HANDS_PER_MINUTE``: hands analysed, counted by the route itself once it knows
    how many a request holds (``service.http.rate_limits.take``): one for ``POST /v1/analyse``,
    a batch's entries for ``POST /v1/analyse/batch``."""


@dataclass(frozen=True, slots=True)
class RouteLink:
    """An OpenAPI link from one of the route's answers to the operation it leads to."""

    operation_id: str
    parameters: Mapping[str, str]
    body: Any = None
    """The request body the link sends, None for none."""


def policy(
    *,
    limits: Iterable[Limit],
    links: Mapping[str, Mapping[str, RouteLink]] | None = None,
    openapi: Mapping[str, Any] | None = None,
    retry_scope: str | None = None,
) -> dict[str, Any]:
    """A route's ``opt``. ``limits``: the counts its calls go against (none: say so, ``()``).
    ``links``: by the status of its answer, each link's name and target. ``openapi``: a
    fragment merged into its operation (what the framework cannot declare: a body the handler
    reads itself, a second media type). ``retry_scope``: the name its keyed answers are saved
    under (``service.http.idempotency``), only where that is not its operation id: answers
    saved under an older name must still be found."""
    declared: dict[str, Any] = {
        _LIMITS: frozenset(limits),
        _LINKS: links or {},
        _OPENAPI: openapi or {},
    }
    if retry_scope is not None:
        declared[_RETRY_SCOPE] = retry_scope
    return declared


def declares_limits(handler: BaseRouteHandler) -> bool:
    """Whether the route said which limits count its calls (an empty set is a statement)."""
    return _LIMITS in handler.opt


def limits_of(handler: BaseRouteHandler) -> frozenset[Limit]:
    limits: frozenset[Limit] = handler.opt.get(_LIMITS, frozenset())
    return limits


def links_of(handler: BaseRouteHandler) -> Mapping[str, Mapping[str, RouteLink]]:
    links: Mapping[str, Mapping[str, RouteLink]] = handler.opt.get(_LINKS, {})
    return links


def links_on(status: int, **named: RouteLink) -> dict[str, dict[str, RouteLink]]:
    """``policy``'s ``links`` from one status of the route's answers, each by its name."""
    return {str(status): named}


def relinked(handler: BaseRouteHandler, rename: Callable[[str], str]) -> dict[str, Any]:
    """The route's ``opt`` with its links led to ``rename`` of each target: for a copy of the
    route whose operations have other names."""
    links = {
        status: {
            name: dataclasses.replace(link, operation_id=rename(link.operation_id))
            for name, link in named.items()
        }
        for status, named in links_of(handler).items()
    }
    return {**handler.opt, _LINKS: links}


def openapi_of(handler: BaseRouteHandler) -> Mapping[str, Any]:
    fragment: Mapping[str, Any] = handler.opt.get(_OPENAPI, {})
    return fragment


def retry_scope_of(handler: BaseRouteHandler) -> str:
    """The name the route saves its ``Idempotency-Key`` answers under: its declared
    ``retry_scope``, else its operation id."""
    scope = handler.opt.get(_RETRY_SCOPE, getattr(handler, "operation_id", None))
    if not isinstance(scope, str):
        raise TypeError(f"{handler} has no operation id to save its keyed answers under")
    return scope


# OpenAPI runtime expressions a link's parameters are made of.
SAME_AUTHORIZATION: Final = "$request.header.Authorization"
"""The request's own ``Authorization``: the same seat, or the same sheet's editor."""


def from_answer(pointer: str) -> str:
    """A value of the answer's body, by JSON pointer (``/game_id``)."""
    return f"$response.body#{pointer}"


def bearer_from_answer(pointer: str) -> str:
    """``Authorization: Bearer`` with a token of the answer's body (``/seats/0/token``)."""
    return f"Bearer {{$response.body#{pointer}}}"

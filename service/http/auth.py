"""Who a request speaks for: the one reader of ``Authorization: Bearer <token>``.

Handlers never read the header: they declare what they need by parameter name and Litestar
injects it (``Provide``): ``viewer_token`` (the token if one was sent, None for the public) and
``seat_token`` (a seat's token; 401 without one), registered by the app factory, and, built on
these, ``acting_seat`` (``service.games.acting_seat``) and ``sheet_editor``
(``service.sheets.lifecycle``), on the controllers that use them. The header is left out of
the OpenAPI document as a parameter: each route's ``security`` states the token it takes.
"""

from __future__ import annotations

from typing import Annotated, Final, TypeAlias

from litestar.di import NamedDependency
from litestar.params import HeaderParameter

from service.http.problems import MissingToken

_BEARER: Final = "bearer "

AuthorizationHeader = Annotated[
    str | None,
    HeaderParameter(name="Authorization", required=False, include_in_schema=False),
]


OptionalToken: TypeAlias = NamedDependency[str | None]
"""A handler's ``viewer_token`` parameter."""
RequiredToken: TypeAlias = NamedDependency[str]
"""A handler's ``seat_token`` parameter."""


TOKEN_DEPENDENCIES: Final = frozenset(
    {
        "viewer_token",
        "seat_token",
        "viewer",
        "caller",
        "me",
        "acting_seat",
        "sheet_editor",
        "metrics_scraper",
    }
)
"""The dependencies that read the Authorization header: a handler that takes one of them
declares the token in its ``security``."""


def bearer_token(authorization: str | None) -> str | None:
    """The token of ``Authorization: Bearer <token>``; None when the header is absent, 401 when
    it is not a bearer token."""
    if authorization is None:
        return None
    token = authorization[len(_BEARER) :].strip()
    if authorization[: len(_BEARER)].lower() != _BEARER or not token:
        raise MissingToken("the Authorization header must be 'Bearer <token>'")
    return token


def viewer_token(authorization: AuthorizationHeader = None) -> str | None:
    """A route anyone may call: the token it was sent, or None for the public."""
    return bearer_token(authorization)


def seat_token(authorization: AuthorizationHeader = None) -> str:
    """A route for a seat: its token, checked here before anything is looked up."""
    token = bearer_token(authorization)
    if token is None:
        raise MissingToken("send the seat's token as 'Authorization: Bearer <token>'")
    return token

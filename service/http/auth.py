"""Who a request speaks for: the one reader of ``Authorization: Bearer <token>``.

The header reaches code as the ``authorization`` parameter (``AuthorizationHeader``), and only
these two functions read a token from it: ``viewer_token`` (the token if one was sent, None for
the public) and ``seat_token`` (a seat's token; 401 without one). The dependencies that say who
calls (``viewer``, ``caller``: ``service.identity.deps``; ``me``; ``acting_seat``;
``sheet_editor``; ``/metrics``' ``metrics_scraper``) take the parameter and call them. The
tokens are not dependencies of their own: Litestar resolves the dependencies of one depth in a
task group whenever there are two or more (litestar-org/litestar#4563), which cost a request
more than its view did, so every route's dependencies form a chain
(tests/service/app/test_dependencies.py). The header is left out of the OpenAPI document as a
parameter: each route's ``security`` states the token it takes.
"""

from __future__ import annotations

from typing import Annotated, Final

from litestar.params import HeaderParameter

from service.http.problems import MissingToken

_BEARER: Final = "bearer "

AuthorizationHeader = Annotated[
    str | None,
    HeaderParameter(name="Authorization", required=False, include_in_schema=False),
]


TOKEN_DEPENDENCIES: Final = frozenset(
    {"authorization", "viewer", "caller", "me", "acting_seat", "sheet_editor", "metrics_scraper"}
)
"""The parameters that read the Authorization header (the header itself, and the dependencies
built on it): a handler that takes one of them declares the token in its ``security``."""


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

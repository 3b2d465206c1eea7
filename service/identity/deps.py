"""What identifying a caller needs of the app (the players' store), and the dependencies that do
it once per request: ``caller`` (a route for a seat: its seat token or its player's key) and
``viewer`` (a route anyone may call: the same, or None for the public). The app factory
registers both; every feature that loads games extends ``IdentityServices``."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.http.auth import AuthorizationHeader, seat_token, viewer_token
from service.identity.callers import Caller, caller_of
from service.identity.store import PlayerStore


class IdentityServices:
    # An interface by inheritance, as every feature's (``service.games.deps``).
    __slots__ = ()
    players: PlayerStore
    """The players, their keys and their games' lists, beside the games."""


AppIdentityServices: TypeAlias = NamedDependency[IdentityServices]
"""A handler's ``services`` parameter."""
ActingCaller: TypeAlias = NamedDependency[Caller]
"""A handler's ``caller`` parameter."""
Viewer: TypeAlias = NamedDependency[Caller | None]
"""A handler's ``viewer`` parameter."""


async def caller(
    services: AppIdentityServices, authorization: AuthorizationHeader = None
) -> Caller:
    return await caller_of(services.players, seat_token(authorization))


async def viewer(
    services: AppIdentityServices, authorization: AuthorizationHeader = None
) -> Caller | None:
    token = viewer_token(authorization)
    return None if token is None else await caller_of(services.players, token)

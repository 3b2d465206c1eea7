"""What players need of the app: what games need (the players' store among it). The player a
route speaks for is its ``me`` parameter: the id of the player whose key was sent (401 for no
key, a seat token or an unknown key)."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.http.auth import OptionalToken
from service.identity.callers import player_of
from service.streams.limits import StreamSlots


class PlayerServices(GameServices):
    # An interface by inheritance, as every feature's (``service.games.deps``).
    __slots__ = ()
    streams: StreamSlots
    """The bounds on open streams (a player's own among them)."""


AppPlayerServices: TypeAlias = NamedDependency[PlayerServices]
"""A handler's ``services`` parameter."""
Me: TypeAlias = NamedDependency[str]
"""A handler's ``me`` parameter: the calling player's id."""


async def me(services: AppPlayerServices, viewer_token: OptionalToken) -> str:
    return await player_of(services.players, viewer_token)

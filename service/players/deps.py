"""What players need of the app: what tables need (the players' store among it), the open
challenges' list and the seek pools. The player a
route speaks for is its ``me`` parameter: the id of the player whose key was sent (401 for no
key, a seat token or an unknown key)."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.http.auth import AuthorizationHeader, viewer_token
from service.http.problems import UnknownPlayerKey
from service.identity.callers import player_of
from service.identity.store import PlayerRecord
from service.players.seek_pool import SeekPool
from service.ratings.deps import RatingServices
from service.streams.limits import StreamSlots
from service.tables.deps import TableServices
from service.tables.index import TableIndex


class PlayerServices(TableServices, RatingServices):
    # An interface by inheritance, as every feature's (``service.games.deps``).
    __slots__ = ()
    streams: StreamSlots
    """The bounds on open streams (a player's own among them)."""
    open_challenges: TableIndex
    """The open challenges (``GET /v1/challenges``): a lobby of their own."""
    seeks: SeekPool
    """The seek pools (``service.players.seek_pool``)."""


AppPlayerServices: TypeAlias = NamedDependency[PlayerServices]
"""A handler's ``services`` parameter."""
Me: TypeAlias = NamedDependency[str]
"""A handler's ``me`` parameter: the calling player's id."""


async def me(services: AppPlayerServices, authorization: AuthorizationHeader = None) -> str:
    return await player_of(services.players, viewer_token(authorization))


def key_owner(player_id: str) -> str:
    """Whose Idempotency-Keys a player's are (as ``Caller.owner``): the same across keys."""
    return f"player:{player_id}"


async def me_record(services: PlayerServices, me: str) -> PlayerRecord:
    """The profile of the ``me`` a route speaks for."""
    player = await services.players.get(me)
    if player is None:  # its key resolved, so only a store that lost the profile gets here
        raise UnknownPlayerKey("no player holds this key: it is unknown, or it was replaced")
    return player

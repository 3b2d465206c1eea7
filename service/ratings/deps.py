"""What ratings need of the app: the ratings' store and the players' (names, ``me``)."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.identity.store import PlayerStore
from service.ratings.store import RatingStore


class RatingServices:
    # An interface by inheritance, as every feature's (``service.games.deps``).
    __slots__ = ()
    ratings: RatingStore
    """The players' ratings and the leaderboards (``service.ratings.store``)."""
    players: PlayerStore


AppRatingServices: TypeAlias = NamedDependency[RatingServices]
"""A handler's ``services`` parameter."""

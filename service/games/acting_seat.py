"""The acting seat of a route for a seat (Litestar injects it as ``acting_seat``): the game (or
the table still waiting) loaded, and the seat its token names; 401 for a token that is none of
its seats', 404 for no such game."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency
from litestar.params import FromPath

from service.games.deps import AppGameServices
from service.games.lifecycle import LoadedGame, LoadedTable, load_any
from service.identity.deps import ActingCaller


class ActingSeat:
    # A plain class, not a dataclass: Litestar checks an injected value against its type, and
    # msgspec cannot describe a dataclass holding a game's state (it checks only isinstance here).
    __slots__ = ("loaded", "seat")

    def __init__(self, loaded: LoadedGame | LoadedTable, seat: int) -> None:
        self.loaded = loaded
        self.seat = seat


Acting: TypeAlias = NamedDependency[ActingSeat]
"""A handler's ``acting_seat`` parameter."""


async def acting_seat(
    services: AppGameServices, game_id: FromPath[str], caller: ActingCaller
) -> ActingSeat:
    loaded = await load_any(services, game_id)
    return ActingSeat(loaded, loaded.seat_of(caller))

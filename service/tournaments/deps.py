"""What tournaments need of the app: what players need (the player a route speaks for is its
``me`` parameter, ``service.players.deps``), the tournaments' store and this instance's
runner."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from litestar.di import NamedDependency

from service.players.deps import PlayerServices
from service.tournaments.store import TournamentStore

if TYPE_CHECKING:
    from service.tournaments.runner import TournamentRunner


class TournamentServices(PlayerServices):
    # An interface by inheritance, as every feature's (``service.games.deps``).
    __slots__ = ()
    tournaments: TournamentStore
    """The tournaments and their due entries (``service.tournaments.store``), beside the
    games."""
    tournament_runner: TournamentRunner
    """This instance's runner of due tournaments (``service.tournaments.runner``)."""


AppTournamentServices: TypeAlias = NamedDependency[TournamentServices]
"""A handler's ``services`` parameter."""

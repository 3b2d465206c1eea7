"""What the computer players' drivers need of the app (the composition root's ``Services`` has
it): the games' own needs, this instance's drivers and the moves due."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.bots.tasks import BotTasks
from service.games.deps import GameServices
from service.storage.due_moves import DueMoves


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class BotServices(GameServices, Protocol):
    @property
    def bots(self) -> BotTasks:
        """This instance's drivers, sweeper and decision processes."""
        ...

    @property
    def due(self) -> DueMoves:
        """The moves bots and turn clocks owe, beside the store."""
        ...


AppBotServices: TypeAlias = NamedDependency[BotServices]
"""A handler's ``services`` parameter."""

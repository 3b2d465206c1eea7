"""What the computer players' drivers need of the app (the composition root's ``Services`` has
it): the games' own needs, this instance's drivers and the moves due."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.bots.tasks import BotTasks
from service.games.deps import GameServices
from service.storage.due_moves import DueMoves


class BotServices(GameServices):
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    bots: BotTasks
    """This instance's drivers, sweeper and decision processes."""
    due: DueMoves
    """The moves bots and turn clocks owe, beside the store."""


AppBotServices: TypeAlias = NamedDependency[BotServices]
"""A handler's ``services`` parameter."""

"""What the games feature needs of the app, as a protocol: the composition root's ``Services``
has it (and every other feature's needs), and a handler receives it as its ``services``
parameter. Features that load or change games (tables, bots, streams, records, advice) extend
it with their own."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.channels import ChannelsPlugin
from litestar.di import NamedDependency

from service.games.bus import GameBus
from service.games.decoded_cache import DecodedGames
from service.settings import Settings
from service.storage.game_store import Store


# Runtime-checkable: Litestar checks an injected value against its parameter's type.
@runtime_checkable
class GameServices(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def decoded(self) -> DecodedGames:
        """The games this process decoded lately (``service.games.decoded_cache``)."""
        ...

    @property
    def channels(self) -> ChannelsPlugin:
        """The event notices (only versions travel on a channel)."""
        ...

    @property
    def bus(self) -> GameBus:
        """Where a game tells other features of its commits and loads."""
        ...


AppGameServices: TypeAlias = NamedDependency[GameServices]
"""A games handler's ``services`` parameter."""

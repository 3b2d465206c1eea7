"""What the games feature needs of the app: the settings, the store, the games this process
decoded lately, the notices' channels and the games' bus. The composition root's ``Services``
has it (and every other feature's needs), and a handler receives it as its ``services``
parameter. Features that load or change games (tables, bots, streams, records, advice) extend
it with their own."""

from __future__ import annotations

from typing import TypeAlias

from litestar.channels import ChannelsPlugin
from litestar.di import NamedDependency

from service.games.bus import GameBus
from service.games.decoded_cache import DecodedGames
from service.identity.deps import IdentityServices
from service.settings import Settings
from service.storage.game_store import Store


class GameServices(IdentityServices):
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    settings: Settings
    store: Store
    decoded: DecodedGames
    """The games this process decoded lately (``service.games.decoded_cache``)."""
    channels: ChannelsPlugin
    """The event notices (only versions travel on a channel)."""
    bus: GameBus
    """Where a game tells other features of its commits and loads."""


AppGameServices: TypeAlias = NamedDependency[GameServices]
"""A handler's ``services`` parameter."""

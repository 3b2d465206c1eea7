"""What a game's event stream needs of the app: the games' own needs, the bounds on open
streams, the slices streams share and the clients' addresses."""

from __future__ import annotations

from typing import Protocol, TypeAlias, runtime_checkable

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.http.client_address import TrustedProxies
from service.streams.limits import StreamSlots
from service.streams.shared_slices import SharedSlices


@runtime_checkable  # Litestar checks an injected value against its parameter's type
class StreamServices(GameServices, Protocol):
    @property
    def streams(self) -> StreamSlots:
        """The open streams, bounded per instance and per client."""
        ...

    @property
    def shared_slices(self) -> SharedSlices:
        """The events streams rendered lately, for the other streams of their game and viewer."""
        ...

    @property
    def proxies(self) -> TrustedProxies: ...


AppStreamServices: TypeAlias = NamedDependency[StreamServices]
"""A handler's ``services`` parameter."""

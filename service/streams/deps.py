"""What a game's event stream needs of the app: the games' own needs, the bounds on open
streams, the slices streams share and the clients' addresses."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.games.deps import GameServices
from service.http.client_address import TrustedProxies
from service.streams.limits import StreamSlots
from service.streams.shared_slices import SharedSlices


class StreamServices(GameServices):
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    streams: StreamSlots
    """The open streams, bounded per instance and per client."""
    shared_slices: SharedSlices
    """The events streams rendered lately, for the other streams of their game and viewer."""
    proxies: TrustedProxies


AppStreamServices: TypeAlias = NamedDependency[StreamServices]
"""A handler's ``services`` parameter."""

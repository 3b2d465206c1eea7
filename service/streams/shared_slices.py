"""The events a stream rendered lately, a slice at a time, for the other streams of the same game
and viewer: every stream of a game renders the same events for the same viewer, so a crowd
resuming one game (32 phones back from a tunnel, each missing 40,000 actions) costs the process
one catch-up, not 32, and holds one copy of the replayed states, not 32.

Keyed by what decides a slice's events: the game, the viewer, the version the slice starts
after, and the game's record the stream caught up to (equal records mean equal states and equal
seats, whichever load decoded them; its versions and seats decide every view). Least recently
used first out: streams of one game move through a catch-up together, a slice apart or a few, so
a bounded memo is all they need.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from litestar.response import ServerSentEventMessage

from engine.game.state import GameState
from service.games.records import GameRecord

DEFAULT_SIZE: Final = 64
"""Slices kept: up to 64 events each (``service.streams.events.CATCH_UP_SLICE``), a view of
1 to 3 KB each, so 4 to 12 MB at most."""


@dataclass(frozen=True, slots=True)
class Slice:
    events: ServerSentEventMessage
    """Its events, as one message to send (``service.streams.events.Encoded``)."""
    reached: GameState
    """The game after the slice's last event."""


SliceKey = tuple[str, int | None, int, GameRecord]
"""The game's id, the viewer's seat (None: anybody), the version the slice starts after, and the
record the stream catches up to."""


class SharedSlices:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._slices: OrderedDict[SliceKey, Slice] = OrderedDict()

    def get(self, key: SliceKey) -> Slice | None:
        found = self._slices.get(key)
        if found is not None:
            self._slices.move_to_end(key)
        return found

    def put(self, key: SliceKey, rendered: Slice) -> None:
        self._slices[key] = rendered
        self._slices.move_to_end(key)
        while len(self._slices) > self._size:
            self._slices.popitem(last=False)

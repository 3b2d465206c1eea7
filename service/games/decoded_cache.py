"""A per-process cache of decoded games, so a request does not pay for ``engine.game.loads`` of a
state it (or the request before it) already decoded.

Keyed by game id and checked against the stored record's bytes: a record is immutable once
written (every change is a new version), so equal bytes mean an equal state, whichever instance
wrote it. A stale entry is simply replaced.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from engine.game.state import GameState

DEFAULT_SIZE: Final = 1024


class DecodedGames:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[str, tuple[bytes, GameState]] = OrderedDict()

    def latest(self, game_id: str) -> GameState | None:
        """The last state decoded for the game, whatever its version: a later version shares
        its sealed history (see ``service.games.records``)."""
        entry = self._entries.get(game_id)
        return None if entry is None else entry[1]

    def get(self, game_id: str, record: bytes) -> GameState | None:
        entry = self._entries.get(game_id)
        if entry is None or entry[0] != record:
            return None
        self._entries.move_to_end(game_id)
        return entry[1]

    def put(self, game_id: str, record: bytes, state: GameState) -> None:
        self._entries[game_id] = (record, state)
        self._entries.move_to_end(game_id)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

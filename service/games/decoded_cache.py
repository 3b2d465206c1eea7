"""A per-process cache of decoded games, so a request does not pay for ``engine.game.loads`` of a
state it (or the request before it) already decoded, nor for a view of a version that another
request already built.

Keyed by game id and checked against the stored record's bytes: a record is immutable once
written (every change is a new version), so equal bytes mean an equal state, whichever instance
wrote it. A stale entry is simply replaced.

The views (what the public sees, a player's list of games among them, and what each seat sees)
are kept beside it, each built once per stored version and shared by every viewer of it: a
seat's devices, its polls, the public. They are checked against
the stored version, which every commit moves on (the seats' bots and clocks are in the record,
not the state), and against the decoded state itself, so a game id used again after its game
expired never meets the old game's view.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Final

from engine.game.state import GameState
from service.games.wire import GameView

DEFAULT_SIZE: Final = 1024


class DecodedGames:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[str, tuple[bytes, GameState]] = OrderedDict()
        self._views: OrderedDict[str, tuple[int, GameState, dict[int | None, GameView]]] = (
            OrderedDict()
        )

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

    def view(
        self,
        game_id: str,
        stored_version: int,
        state: GameState,
        seat: int | None,
        build: Callable[[], GameView],
    ) -> GameView:
        """The view of the game at ``stored_version`` (whose state is ``state``) as ``seat``
        sees it (None: the public), built by ``build`` once and shared by the requests that
        follow: a seat's devices and polls, the public, the players' lists."""
        entry = self._views.get(game_id)
        if entry is None or entry[0] != stored_version or entry[1] is not state:
            entry = (stored_version, state, {})
            self._views[game_id] = entry
            while len(self._views) > self._size:
                self._views.popitem(last=False)
        self._views.move_to_end(game_id)
        views = entry[2]
        view = views.get(seat)
        if view is None:
            view = views[seat] = build()
        return view

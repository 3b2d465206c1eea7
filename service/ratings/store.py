"""Where ratings live: per rating key (``service.ratings.model``), each player's entry, the
leaderboards (established players, and provisional ones apart), the journal of the rated
games applied, in the order they were, each game's marker with it, and each player's history:
the last ``HISTORY_KEPT`` points of their rating, one a game, newest first.

A game is applied by ``apply``: one atomic step that refuses a game already applied (its marker)
and an entry changed since it was read (then the caller reads again and recomputes), and
otherwise writes every seat's new entry and history point, both boards, the journal's next
entry and the game's marker together. So a game changes ratings exactly once, however many
instances see it finish, and nothing can apply half of it: an instance that dies before the
step leaves nothing, after it leaves everything. The rebuild (``service.ratings.rebuild``)
rewrites entries and boards and leaves the histories as the games wrote them.

In this process's memory (the default) or in Redis (``service.ratings.redis_store``).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple, Protocol

Applied = Literal["applied", "stale", "done"]
"""``apply``'s answer: the game is applied now; an entry changed since it was read (nothing
written: read and compute again); the game was applied before (nothing written)."""


HISTORY_KEPT: Final = 100
"""Points of a player's rating history kept under each rating key: the newest games'."""


class Change(NamedTuple):
    """One seat's entry as read (None: none yet) and as the game leaves it, and the point the
    game adds to the seat's history (none for the rebuild's changes, which replay no game)."""

    player_id: str
    before: bytes | None
    after: bytes
    rating: float
    provisional: bool
    point: bytes | None = None


class Page(NamedTuple):
    """A page of a board: its size, the rank of its first entry (0 the best), and each entry
    with its rating, best first."""

    total: int
    start: int
    entries: list[tuple[str, bytes]]


class RatingStore(Protocol):
    async def entries(self, key: str, player_ids: Sequence[str]) -> list[bytes | None]:
        """The players' entries under ``key`` (None for a player with none), in order."""

    async def apply(
        self, key: str, game_id: str, changes: Sequence[Change], result: bytes
    ) -> Applied:
        """Apply a game in one atomic step (the module's docstring); ``result`` is its journal
        entry."""

    async def is_applied(self, key: str, game_id: str) -> bool:
        """Whether the game has changed the ratings under ``key``."""

    async def player_entries(self, player_id: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The player's entry under each of ``keys`` that has one."""

    async def page(self, key: str, provisional: bool, start: int | str, limit: int) -> Page | None:
        """Up to ``limit`` entries of a board (the provisional one, or the established one),
        from rank ``start`` or, for a player id, centred on that player (None when the player
        is not on the board)."""

    async def journal(self, key: str) -> list[bytes]:
        """Every rated game's result under ``key``, in the order they were applied."""

    async def history(self, key: str, player_id: str) -> list[bytes]:
        """The player's history points under ``key``, newest first (``HISTORY_KEPT`` at most)."""

    async def replace(self, key: str, changes: Sequence[Change]) -> None:
        """Overwrite entries and their boards (the rebuild's, with the service stopped)."""


class Board:
    """A leaderboard in memory: each player's rating, and the players in rank order kept
    sorted as they change (a bisection per change), so a page is a slice."""

    def __init__(self) -> None:
        self.ratings: dict[str, float] = {}
        self._ascending: list[tuple[float, str]] = []
        """Worst first: the best is last, as Redis orders a sorted set (equal ratings by id)."""

    def put(self, player_id: str, rating: float) -> None:
        self.drop(player_id)
        self.ratings[player_id] = rating
        bisect.insort(self._ascending, (rating, player_id))

    def drop(self, player_id: str) -> None:
        rating = self.ratings.pop(player_id, None)
        if rating is not None:
            del self._ascending[bisect.bisect_left(self._ascending, (rating, player_id))]

    def rank(self, player_id: str) -> int | None:
        """The player's rank, 0 the best; None for a player not on the board."""
        rating = self.ratings.get(player_id)
        if rating is None:
            return None
        return len(self._ascending) - 1 - bisect.bisect_left(self._ascending, (rating, player_id))

    def best_first(self, start: int, count: int) -> list[str]:
        """The ids of ranks ``start`` to ``start + count - 1``."""
        end = len(self._ascending) - start
        return [p for _, p in reversed(self._ascending[max(0, end - count) : max(0, end)])]


@dataclass
class _Ratings:
    """One rating key's entries, boards, markers and journal in memory."""

    entries: dict[str, bytes] = field(default_factory=dict)
    boards: tuple[Board, Board] = field(default_factory=lambda: (Board(), Board()))
    """The established board, and the provisional one."""
    applied: set[str] = field(default_factory=set)
    journal: list[bytes] = field(default_factory=list)
    histories: dict[str, list[bytes]] = field(default_factory=dict)
    """Each player's points, newest first."""


def window(total: int, centre: int, limit: int) -> int:
    """The first rank of a page of ``limit`` centred on rank ``centre`` (kept within the
    board)."""
    return max(0, min(centre - limit // 2, total - limit))


class MemoryRatingStore:
    """Ratings in this process's memory: safe under asyncio, as nothing awaits between reading
    and writing."""

    def __init__(self) -> None:
        self._keys: dict[str, _Ratings] = {}

    def _of(self, key: str) -> _Ratings:
        return self._keys.setdefault(key, _Ratings())

    async def entries(self, key: str, player_ids: Sequence[str]) -> list[bytes | None]:
        kept = self._of(key).entries
        return [kept.get(player_id) for player_id in player_ids]

    async def apply(
        self, key: str, game_id: str, changes: Sequence[Change], result: bytes
    ) -> Applied:
        ratings = self._of(key)
        if game_id in ratings.applied:
            return "done"
        if any(ratings.entries.get(c.player_id) != c.before for c in changes):
            return "stale"
        self._write(ratings, changes)
        for change in changes:
            if change.point is not None:
                points = ratings.histories.setdefault(change.player_id, [])
                points.insert(0, change.point)
                del points[HISTORY_KEPT:]
        ratings.journal.append(result)
        ratings.applied.add(game_id)
        return "applied"

    @staticmethod
    def _write(ratings: _Ratings, changes: Sequence[Change]) -> None:
        established, provisional = ratings.boards
        for change in changes:
            ratings.entries[change.player_id] = change.after
            on, off = (
                (provisional, established) if change.provisional else (established, provisional)
            )
            on.put(change.player_id, change.rating)
            off.drop(change.player_id)

    async def is_applied(self, key: str, game_id: str) -> bool:
        return game_id in self._of(key).applied

    async def player_entries(self, player_id: str, keys: Sequence[str]) -> dict[str, bytes]:
        found = {key: self._keys[key].entries.get(player_id) for key in keys if key in self._keys}
        return {key: entry for key, entry in found.items() if entry is not None}

    async def page(self, key: str, provisional: bool, start: int | str, limit: int) -> Page | None:
        ratings = self._of(key)
        board = ratings.boards[provisional]
        total = len(board.ratings)
        if isinstance(start, str):
            rank = board.rank(start)
            if rank is None:
                return None
            start = window(total, rank, limit)
        chosen = board.best_first(start, limit)
        return Page(total, start, [(p, ratings.entries[p]) for p in chosen])

    async def journal(self, key: str) -> list[bytes]:
        return list(self._of(key).journal)

    async def history(self, key: str, player_id: str) -> list[bytes]:
        return list(self._of(key).histories.get(player_id, ()))

    async def replace(self, key: str, changes: Sequence[Change]) -> None:
        self._write(self._of(key), changes)

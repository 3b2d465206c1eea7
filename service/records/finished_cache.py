"""Finished games' records kept decoded in this process, for the pages of their record
(``service.records.finished``): a finished game's record never changes, so an entry is never
stale; the least recently read goes first.

Bounded by the actions the records hold, not by their count: a game has no limit on its
actions, and a record's objects grow with them (some 120 bytes an action)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from engine.records import GameRecord

DEFAULT_ACTIONS: Final = 200_000
"""Actions held at most, over every record kept: ten games of 20,000 actions, some 25 MB."""


def actions_in(record: GameRecord) -> int:
    return sum(len(r.actions) for r in record.rounds)


class FinishedRecords:
    """Finished games' records in this process, holding at most ``actions`` actions in all (a
    record of more is not kept)."""

    def __init__(self, actions: int = DEFAULT_ACTIONS) -> None:
        self._most = actions
        self._held = 0
        self._records: OrderedDict[str, tuple[GameRecord, int]] = OrderedDict()

    def get(self, game_id: str) -> GameRecord | None:
        entry = self._records.get(game_id)
        if entry is None:
            return None
        self._records.move_to_end(game_id)
        return entry[0]

    def put(self, game_id: str, record: GameRecord) -> None:
        weight = actions_in(record)
        if weight > self._most or game_id in self._records:
            return
        self._records[game_id] = (record, weight)
        self._held += weight
        while self._held > self._most:
            _, (_, gone) = self._records.popitem(last=False)
            self._held -= gone

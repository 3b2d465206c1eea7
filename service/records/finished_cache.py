"""Finished games' records kept decoded in this process, for the pages of their record
(``service.records.finished``): a finished game's record never changes, so an entry is never
stale; the least recently read goes first."""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from engine.records import GameRecord

DEFAULT_SIZE: Final = 64
"""Records kept at most (the record of a game of 20,000 actions holds a few MB of objects)."""


class FinishedRecords:
    """Finished games' records in this process, at most ``size`` of them."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._records: OrderedDict[str, GameRecord] = OrderedDict()

    def get(self, game_id: str) -> GameRecord | None:
        record = self._records.get(game_id)
        if record is not None:
            self._records.move_to_end(game_id)
        return record

    def put(self, game_id: str, record: GameRecord) -> None:
        self._records[game_id] = record
        self._records.move_to_end(game_id)
        while len(self._records) > self._size:
            self._records.popitem(last=False)

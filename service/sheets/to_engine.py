"""Wire → engine for score sheets: a round's entries as the engine's."""

from __future__ import annotations

from collections.abc import Sequence

from engine.scoresheet import CardsEntry, Entry, PointsEntry
from service.http.problems import InvalidField
from service.sheets import wire as sheet_wire
from service.vocabulary.to_engine import cards_from_codes


def entries_from_wire(entries: Sequence[sheet_wire.EntryIn]) -> list[Entry]:
    """Each entry as the engine's: its cards parsed (a bad code named by its place), or its
    points; exactly one of the two."""
    out: list[Entry] = []
    for index, entry in enumerate(entries):
        field = f"entries[{index}]"
        if (entry.cards is None) == (entry.points is None):
            raise InvalidField(
                f"{field}: give the seat's cards or its points, exactly one of the two",
                field=f"{field}.cards" if entry.cards is not None else field,
            )
        if entry.cards is not None:
            cards = cards_from_codes(entry.cards, f"{field}.cards")
            out.append(CardsEntry(entry.seat, tuple(cards), entry.failed_go_outs))
        else:
            out.append(PointsEntry(entry.seat, entry.points or 0, entry.failed_go_outs))
    return out

"""What a score sheet's rounds are entered as: cards or points per seat, and what a round's
scoring makes of them."""

from __future__ import annotations

from dataclasses import dataclass

from engine.analysis import Meld
from engine.cards import Card, Rank

# -- what is entered ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardsEntry:
    """The cards left in a seat's hand at the end of a round, to be scored exactly.
    ``failed_go_outs``: go-outs the seat declared this round that its hand did not meld."""

    seat: int
    cards: tuple[Card, ...]
    failed_go_outs: int = 0


@dataclass(frozen=True, slots=True)
class PointsEntry:
    """A seat's score for a round as counted at the table (doubling and penalties included),
    taken as given; for the seat that went out, 0 (its score is the going-out bonus)."""

    seat: int
    points: int
    failed_go_outs: int = 0
    """Always 0: a failed go-out's penalty is part of the points given."""


Entry = CardsEntry | PointsEntry


@dataclass(frozen=True, slots=True)
class ScoredEntry:
    """An entry with what it scored: a cards entry's best arrangement (a points entry has no
    melds and no deadwood cards; its deadwood points are the points given)."""

    entry: Entry
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    deadwood_points: int
    points: int
    """The seat's score for the round."""

    @property
    def seat(self) -> int:
        return self.entry.seat


@dataclass(frozen=True, slots=True)
class Deal:
    """One round as entered: who went out and every seat's scored entry, seat order.
    ``replayed``: a double naught, dealt again; it counts for nothing."""

    round: int
    out_seat: int | None
    entries: tuple[ScoredEntry, ...]
    replayed: bool = False

    def points_of(self, seat: int) -> int:
        return next((e.points for e in self.entries if e.seat == seat), 0)


@dataclass(frozen=True, slots=True)
class RoundShape:
    """What a round is before anything is entered."""

    round: int
    cards_dealt: int
    wild: Rank
    dealer: int
    seats: tuple[int, ...]
    """The seats that play it: every seat, or in the tie-break round the tied ones."""
    tiebreak: bool

"""A tournament's scoring: pure functions of its rounds' tables and their games' final totals.

**Points.** A game gives each seat one point for every other seat of its table that finished
with a higher total (3-13's lowest total wins), and half a point for every one that finished
level: at a table of ``k`` the winner alone scores ``k - 1``, the last ``0``, and the points of a
table add up to ``k (k - 1) / 2`` however it ends. A bye scores ``(k - 1) / 2``, what a seat
scores on average. Points are counted in halves (``halves``), so sums stay exact.

**Standings**, best first: points; then the **Buchholz** (the points of every entrant met at a
table, summed over the rounds: who had the harder field); then **wins** (games finished first,
ties included); then the **lowest total** of the entrant's final game scores; then the order of
entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from service.tournaments.records import RoundRecord


def seat_halves(scores: Sequence[int], seat: int) -> int:
    """The half points of ``seat`` at a finished table whose final totals are ``scores``."""
    mine = scores[seat]
    beaten = sum(other > mine for other in scores)
    level = sum(other == mine for other in scores) - 1
    return 2 * beaten + level


def place_of(scores: Sequence[int], seat: int) -> int:
    """1 for the lowest total (shared by those level), and so on."""
    return 1 + sum(other < scores[seat] for other in scores)


@dataclass(slots=True)
class Standing:
    entrant: int
    halves: int = 0
    buchholz_halves: int = 0
    wins: int = 0
    total: int = 0
    games: int = 0
    byes: int = 0
    opponents: list[int] = field(default_factory=list)


def standings(entrants: int, table_size: int, rounds: Sequence[RoundRecord]) -> list[Standing]:
    """Every entrant's standing, best first (the module's order), from the tables played out."""
    rows = [Standing(entrant) for entrant in range(entrants)]
    for played in rounds:
        for table in played.tables:
            if table.scores is None:
                continue
            for seat, entrant in enumerate(table.entrants):
                row = rows[entrant]
                row.halves += seat_halves(table.scores, seat)
                row.wins += place_of(table.scores, seat) == 1
                row.total += table.scores[seat]
                row.games += 1
                row.opponents += [e for e in table.entrants if e != entrant]
        if played.over:
            for entrant in played.byes:
                rows[entrant].halves += table_size - 1
                rows[entrant].byes += 1
    for row in rows:
        row.buchholz_halves = sum(rows[o].halves for o in row.opponents)
    return sorted(rows, key=lambda r: (-r.halves, -r.buchholz_halves, -r.wins, r.total, r.entrant))


def ranking(entrants: int, table_size: int, rounds: Sequence[RoundRecord]) -> list[int]:
    """The entrants in standing order, best first (a Swiss round's pairing order)."""
    return [row.entrant for row in standings(entrants, table_size, rounds)]

"""The tournament soak's check: every game's record replayed by the engine, and the standings
worked out again from the replayed totals, compared with what the service answers.

The standings here are written out again from docs/tournaments.md ("Scoring and tie-breaks"),
not imported from ``service.tournaments.standings``: the check is of the service's records and
its scoring both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.records import import_json

Json = dict[str, Any]


@dataclass(frozen=True)
class Table:
    """A table of a round: its game, the entrants seat by seat, the final totals."""

    game_id: str
    players: tuple[str, ...]
    totals: tuple[int, ...]


def first_deal(record: Json) -> tuple[object, ...]:
    """A record's first deal with the seats left out (its hands as a set, its upcard, its
    stock): equal at every table of a duplicate round, whichever seats hold the hands."""
    dealt = record["rounds"][0]
    return sorted(map(sorted, dealt["hands"])), dealt["upcard"], dealt["stock"]


def replayed_totals(record: Json) -> tuple[int, ...]:
    """A finished game's final totals, seat by seat, from its record replayed action by action
    (``import_json`` also checks each round's recorded result against the replay)."""
    state = import_json(record)
    assert state.status == "finished", f"a record of a game not finished: {state.status}"
    return tuple(state.totals)


@dataclass
class _Row:
    halves: int = 0
    wins: int = 0
    total: int = 0
    games: int = 0
    byes: int = 0
    opponents: list[str] = field(default_factory=list)


Standing = tuple[str, float, float, int, int, int, int]
"""Player id, points, Buchholz, wins, total, games, byes."""


def standings(
    entrants: Sequence[str], table_size: int, tables: Sequence[Table], byes: Sequence[str]
) -> list[Standing]:
    """Best first: points (1 for each seat of the table with a higher total, half for each one
    level; a bye the average, ``(k - 1) / 2``), then the Buchholz (the points of everyone met),
    wins (a first place, shared or not), the lowest sum of totals, the order of entry."""
    rows: dict[str, _Row] = defaultdict(_Row)
    for table in tables:
        for seat, player in enumerate(table.players):
            mine = table.totals[seat]
            row = rows[player]
            row.halves += 2 * sum(other > mine for other in table.totals)
            row.halves += sum(other == mine for other in table.totals) - 1
            row.wins += min(table.totals) == mine
            row.total += mine
            row.games += 1
            row.opponents += [p for p in table.players if p != player]
    for player in byes:
        rows[player].halves += table_size - 1
        rows[player].byes += 1
    buchholz = {p: sum(rows[o].halves for o in rows[p].opponents) for p in entrants}
    order = sorted(
        entrants,
        key=lambda p: (-rows[p].halves, -buchholz[p], -rows[p].wins, rows[p].total),
    )  # sorted is stable: equal keys keep the order of entry
    return [
        (
            p,
            rows[p].halves / 2,
            buchholz[p] / 2,
            rows[p].wins,
            rows[p].total,
            rows[p].games,
            rows[p].byes,
        )
        for p in order
    ]


def service_standings(tournament: Json) -> list[Standing]:
    return [
        (s["player_id"], s["points"], s["buchholz"], s["wins"], s["total"], s["games"], s["byes"])
        for s in tournament["standings"]
    ]


def differences(mine: list[Standing], theirs: list[Standing]) -> list[str]:
    """Each rank at which the two standings differ, said in a line."""
    return [
        f"rank {rank}: replayed {a}, service {b}"
        for rank, (a, b) in enumerate(zip(mine, theirs, strict=False), start=1)
        if a != b
    ] + ([f"{len(mine)} rows replayed, {len(theirs)} served"] if len(mine) != len(theirs) else [])

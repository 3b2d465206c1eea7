"""Who sits at which table in each round of a tournament: pure functions of the entrants (by
their index in the tournament's list), the table size and the rounds paired before.

- **Round robin, tables of 2**: the circle method. One entrant stays put and the others turn
  around it one place a round; with an odd number a phantom entrant joins, and whoever is paired
  with it has the round's bye. Every two entrants meet exactly once, in ``n - 1`` rounds (``n``
  when odd, each entrant's one bye among them).
- **Round robin, larger tables**: a greedy schedule, round after round, until every two entrants
  have sat at one table: the byes first (below), then each table opened by the entrant with the
  most others still to meet and filled with whoever meets the most of the table for the first
  time. Deterministic, so its length is known at the start (``round_robin_length``).
- **Swiss**: entrants by their standing (``ranking``, best first); the byes first; then tables
  top-down, the best entrant still to seat heading the next table with the best who have not sat
  with anyone of it, found by a search of ``SEARCH_BUDGET`` tables tried (every way when the
  field is small): never two entrants at one table twice when a pairing without that exists
  within the search. Past the budget, tables are filled greedily with the fewest such meetings.
- **Byes**: when the entrants do not fill whole tables, the ``n mod table_size`` left over sit
  the round out: those with the fewest byes so far, and of them the lowest ranked (in a round
  robin, the last in the list, but those with the fewest left to meet first). So nobody has a
  second bye before everyone has had one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

SEARCH_BUDGET: Final = 20_000
"""Tables a Swiss round's search tries before it fills tables greedily instead."""
ROUND_ROBIN_MOST: Final = 200
"""A round robin's schedule is cut at this many rounds (none of the bounded fields needs as
many: 64 entrants at tables of 2 need 63)."""

Table = tuple[int, ...]
"""The entrants of one table, by index, in seat order."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round: its tables, and the entrants who sit it out."""

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()


def met(history: Sequence[Pairing]) -> set[frozenset[int]]:
    """Every two entrants who have sat at one table."""
    return {
        frozenset(pair)
        for pairing in history
        for table in pairing.tables
        for pair in combinations(table, 2)
    }


def byes_had(entrants: int, history: Sequence[Pairing]) -> list[int]:
    counts = [0] * entrants
    for pairing in history:
        for entrant in pairing.byes:
            counts[entrant] += 1
    return counts


def bye_takers(ranking: Sequence[int], table_size: int, history: Sequence[Pairing]) -> list[int]:
    """Who sits this round out: as many as do not fill a table, the fewest byes had first and,
    among equals, the lowest in ``ranking`` (best first)."""
    count = len(ranking) % table_size
    if count == 0:
        return []
    had = byes_had(len(ranking), history)
    place = {entrant: index for index, entrant in enumerate(ranking)}
    return sorted(ranking, key=lambda e: (had[e], -place[e]))[:count]


# -- round robin ----------------------------------------------------------------------------------


def round_robin(entrants: int, table_size: int, history: Sequence[Pairing]) -> Pairing | None:
    """The next round of the round robin, or None when every two entrants have met."""
    if table_size == 2:  # noqa: PLR2004  # the circle method's own case
        return _circle(entrants, len(history))
    if len(history) >= ROUND_ROBIN_MOST:
        return None
    seen = met(history)
    everyone = range(entrants)
    left = {e: sum(frozenset((e, o)) not in seen for o in everyone if o != e) for e in everyone}
    if not any(left.values()):
        return None
    # The byes go by fewest had, then to those with the fewest others left to meet.
    ranking = sorted(everyone, key=lambda e: (-left[e], e))
    byes = bye_takers(ranking, table_size, history)
    seated = [e for e in everyone if e not in byes]
    tables = []
    while seated:
        head = max(seated, key=lambda e: (_new_mates(e, seated, seen), -e))
        table = [head]
        seated.remove(head)
        while len(table) < table_size:
            mate = max(
                seated,
                key=lambda e: (sum(frozenset((e, t)) not in seen for t in table), left[e], -e),
            )
            table.append(mate)
            seated.remove(mate)
        tables.append(tuple(table))
    return Pairing(tuple(tables), tuple(sorted(byes)))


def _new_mates(entrant: int, others: Sequence[int], seen: set[frozenset[int]]) -> int:
    return sum(frozenset((entrant, o)) not in seen for o in others if o != entrant)


def _circle(entrants: int, round_index: int) -> Pairing | None:
    """Round ``round_index`` (from 0) of the circle method."""
    size = entrants + entrants % 2  # a phantom makes an odd field even
    if round_index >= size - 1:
        return None
    turning = list(range(size - 1))
    shift = round_index % (size - 1)
    turning = turning[shift:] + turning[:shift]
    order = [*turning, size - 1]
    tables, byes = [], []
    for k in range(size // 2):
        one, two = order[k], order[size - 1 - k]
        if entrants in (one, two):  # the phantom's partner sits out
            byes.append(two if one == entrants else one)
        else:
            tables.append((one, two) if (round_index + k) % 2 == 0 else (two, one))
    return Pairing(tuple(tables), tuple(byes))


def round_robin_length(entrants: int, table_size: int) -> int:
    """How many rounds the whole round robin takes."""
    history: list[Pairing] = []
    while (pairing := round_robin(entrants, table_size, history)) is not None:
        history.append(pairing)
    return len(history)


# -- Swiss ----------------------------------------------------------------------------------------


def swiss(ranking: Sequence[int], table_size: int, history: Sequence[Pairing]) -> Pairing:
    """The next Swiss round for entrants standing in ``ranking`` (best first)."""
    byes = bye_takers(ranking, table_size, history)
    order = tuple(e for e in ranking if e not in byes)
    seen = met(history)
    tables = _without_repeats(order, table_size, seen) or _fewest_repeats(order, table_size, seen)
    return Pairing(tuple(tables), tuple(sorted(byes)))


def _without_repeats(
    order: tuple[int, ...], table_size: int, seen: set[frozenset[int]]
) -> list[Table] | None:
    """Tables in which no two entrants have met before, top-down by ``order``; None if the
    search finds none within ``SEARCH_BUDGET`` tables tried."""
    tried = 0

    def tables_of(rest: tuple[int, ...]) -> list[Table] | None:
        nonlocal tried
        if not rest:
            return []
        head, others = rest[0], rest[1:]
        for picks in combinations(range(len(others)), table_size - 1):
            tried += 1
            if tried > SEARCH_BUDGET:
                return None
            table = (head, *(others[i] for i in picks))
            if any(frozenset(pair) in seen for pair in combinations(table, 2)):
                continue
            found = tables_of(tuple(e for i, e in enumerate(others) if i not in picks))
            if found is not None:
                return [table, *found]
        return None

    return tables_of(order)


def _fewest_repeats(
    order: tuple[int, ...], table_size: int, seen: set[frozenset[int]]
) -> list[Table]:
    """Tables top-down by ``order``, each mate the best placed of those who met the fewest of
    the table before."""
    rest = list(order)
    tables = []
    while rest:
        table = [rest.pop(0)]
        while len(table) < table_size:
            mate = min(
                rest,
                key=lambda e: (sum(frozenset((e, t)) in seen for t in table), rest.index(e)),
            )
            table.append(mate)
            rest.remove(mate)
        tables.append(tuple(table))
    return tables

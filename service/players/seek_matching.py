"""Which waiting seeks of a pool make a table. Pure: the memory pool calls it, and the Redis
pool's script (``service.players.redis_seek_pool``) does the same steps in Lua, number for number.

An unrated pool matches its oldest seekers, by the terms alone. A rated pool matches by rating:
each seek carries its seeker's rating under the seek's preset and mode (a provisional player's
``mu``, an established one's conservative rating, ``service.players.seeks``) and the time it
entered. A group of seeks makes a table when the spread of their ratings (the highest less the
lowest) is within the **window** of the oldest of them, which widens with the time it has waited:
``WINDOW_START`` points at once, ``WIDENING_PER_SECOND`` more each second, and anyone after
``ANYONE_AFTER`` seconds.

The seeks are looked at oldest first, each as the **anchor** of a table of seeks younger than it:
its best table is the one of least spread among those the anchor is in, which, with the seeks in
rating order, is one of the ``size`` runs of consecutive seeks around it. The first anchor whose
best table fits its window is matched: the longest waiting are served first, each with the
nearest ratings there are. An anchor whose best table does not fit yet says when it will (its
window reaching that spread): the earliest such time over the anchors is the pool's **due**
time, when a sweep (``SeekPool.sweep``) looks again, so a seek whose window widens is matched
without another seek arriving. A seek in rating order links to its neighbours and an anchor looked
at leaves the links, so a look costs O(n log n + n * size) for n waiting seeks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, NamedTuple

WINDOW_START: Final = 3.0
"""The spread of ratings a new seek is matched within at once: well inside one ``sigma`` of a
newcomer (25/3), so players of one level meet at once and a strong player is not handed a
beginner while nearer ratings may come."""
WIDENING_PER_SECOND: Final = 0.5
"""How fast the window widens as the oldest seek of a table waits: 15 points in 30 seconds,
about the distance between the built-in levels' ratings."""
ANYONE_AFTER: Final = 30.0
"""Seconds after which a seek is matched with anyone of its terms: no quick-play seeker waits
longer than this for a rating while a table's seekers are there."""


class Widening(NamedTuple):
    """How a rated pool's window widens (the module's constants unless a test says otherwise)."""

    start: float = WINDOW_START
    per_second: float = WIDENING_PER_SECOND
    anyone_after: float = ANYONE_AFTER

    def fits(self, spread: float, waited: float) -> bool:
        """Whether a table of this ``spread`` fits the window of an anchor that ``waited``."""
        return waited >= self.anyone_after or spread <= self.start + self.per_second * waited

    def reached(self, spread: float, entered: float) -> float:
        """When the window of an anchor that entered at ``entered`` takes in ``spread``."""
        return entered + min(self.anyone_after, (spread - self.start) / self.per_second)


WIDENING: Final = Widening()
"""The service's widening: the module's constants."""


class Waiting(NamedTuple):
    """A waiting seek as matching sees it."""

    seek_id: str
    rating: float | None
    """None in an unrated pool."""
    entered: float


class Choice(NamedTuple):
    mates: tuple[str, ...] | None
    """The seeks of the table, oldest first; None: no table now."""
    due: float | None
    """No table now: when one may fit (None: not before another seek comes)."""


def choose(
    waiting: Sequence[Waiting],
    size: int,
    now: float,
    widening: Widening,
    must: str | None = None,
) -> Choice:
    """The table the pool's ``waiting`` seeks (oldest first) make now, if any. With ``must``
    (a seek being added), only a table with that seek is made: a table of others that fits is
    left to the next sweep (due now)."""
    if len(waiting) < size:
        return Choice(None, None)
    if waiting[0].rating is None:
        return Choice(tuple(s.seek_id for s in waiting[:size]), None)
    ratings = [math.nan if s.rating is None else s.rating for s in waiting]
    order = sorted(range(len(waiting)), key=lambda i: (ratings[i], i))
    place = {seek: at for at, seek in enumerate(order)}
    before = [at - 1 for at in range(len(order))]
    after = [at + 1 if at + 1 < len(order) else -1 for at in range(len(order))]
    due: float | None = None
    for anchor, seek in enumerate(waiting):
        if len(waiting) - anchor < size:
            break
        at = place[anchor]
        line = [*reversed(_walk(before, at, size - 1)), at, *_walk(after, at, size - 1)]
        spread, first = min(
            (ratings[order[line[s + size - 1]]] - ratings[order[line[s]]], s)
            for s in range(len(line) - size + 1)
        )
        if before[at] >= 0:
            after[before[at]] = after[at]
        if after[at] >= 0:
            before[after[at]] = before[at]
        if not widening.fits(spread, now - seek.entered):
            reached = widening.reached(spread, seek.entered)
            due = reached if due is None else min(due, reached)
            continue
        mates = tuple(waiting[i].seek_id for i in sorted(order[a] for a in line[first:][:size]))
        if must is None or must in mates:
            return Choice(mates, None)
        due = now
    return Choice(None, due)


def _walk(links: list[int], at: int, count: int) -> list[int]:
    """Up to ``count`` seeks from ``at`` along ``links``, nearest first."""
    walked: list[int] = []
    near = links[at]
    while near >= 0 and len(walked) < count:
        walked.append(near)
        near = links[near]
    return walked

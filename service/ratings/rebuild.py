"""What ``python -m service.rebuild [--write]`` does: recompute every rating from the rated
games' results, in the order they were applied, and compare with the ratings kept.

Each rating key's journal (``service.ratings.store``) holds every rated game's result as its
finishing commit left it (the seats, their places, when it ended), written in the same atomic
step as the ratings it moved, so it outlives the games themselves (which expire). Folding the
journal from fresh entries with the same model gives the same numbers, bit for bit, as the live
updates did: the command prints each rating that differs (none, unless the model changed or a
store lost a write) and exits 1 when one does. ``--write`` stores the recomputed ratings instead:
run it with the service stopped (a game applied meanwhile would be overwritten).

The store is the settings' (``REDIS_URL``; in memory there is nothing kept to rebuild).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from service.ratings import model
from service.ratings.model import Entry, GameResult
from service.ratings.store import Change, RatingStore


class Difference(NamedTuple):
    key: str
    player_id: str
    kept: Entry | None
    rebuilt: Entry


def folded(results: Iterable[GameResult]) -> dict[str, Entry]:
    """Every player's entry after ``results`` in order, from nothing."""
    entries: dict[str, Entry] = {}
    for result in results:
        before = [entries.get(seated.player_id) for seated in result.seats]
        for seated, entry in zip(result.seats, model.rated(result, before), strict=True):
            entries[seated.player_id] = entry
    return entries


async def rebuilt(ratings: RatingStore, key: str) -> dict[str, Entry]:
    """The entries of ``key`` recomputed from its journal."""
    return folded(model.decode_result(data) for data in await ratings.journal(key))


async def differences(
    ratings: RatingStore, keys: Sequence[str] = model.RATING_KEYS
) -> list[Difference]:
    """Each rating kept that is not what the journal recomputes."""
    found = []
    for key in keys:
        entries = await rebuilt(ratings, key)
        ids = list(entries)
        kept = await ratings.entries(key, ids) if ids else []
        for player_id, data in zip(ids, kept, strict=True):
            before = None if data is None else model.decode_entry(data)
            if before != entries[player_id]:
                found.append(Difference(key, player_id, before, entries[player_id]))
    return found


async def write(ratings: RatingStore, found: Sequence[Difference]) -> None:
    """Store the recomputed entries of ``found``."""
    by_key: dict[str, list[Change]] = {}
    for difference in found:
        entry = difference.rebuilt
        change = Change(
            difference.player_id, None, model.encode(entry), entry.rating, entry.provisional
        )
        by_key.setdefault(difference.key, []).append(change)
    for key, changes in by_key.items():
        await ratings.replace(key, changes)


async def run(ratings: RatingStore, *, store: bool) -> int:
    found = await differences(ratings)
    for key, player_id, kept, entry in found:
        was = "none" if kept is None else f"{kept.mu:.6f}/{kept.sigma:.6f}/{kept.games}"
        print(
            f"{key:<20} {player_id:<24} kept {was:<28} rebuilt "
            f"{entry.mu:.6f}/{entry.sigma:.6f}/{entry.games}"
        )
    if store:
        await write(ratings, found)
        print(f"{len(found)} ratings written")
        return 0
    print(f"{len(found)} ratings differ from the rebuild")
    return 1 if found else 0

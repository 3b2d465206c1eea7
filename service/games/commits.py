"""The one way a game changes in the store. A person's action, a bot's or a clock's move, a speed
game's caller, and a table's seats (claimed, dealt, left, handed to a bot) all commit here, so
the ownership invariant is written once: the new record, its new log segments, the game's due
entry (``movers.entry_due``: a bot or a clock owes the next move) and the request's saved answer
go in one compare-and-set; then this process's decoded cache, the notice that wakes the game's
streams, and the bus (``service.games.bus``) that tells the other features.

A commit that lost the race (the game moved on since it was loaded) changes nothing and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import game
from engine.game.actions import Action
from engine.game.state import GameState
from service.games import movers
from service.games import records as game_records
from service.games.bus import Committed
from service.games.deps import GameServices
from service.games.lifecycle import LoadedGame, announce
from service.games.records import GameRecord
from service.operations import crash_points


@dataclass(frozen=True, slots=True)
class Change:
    """A game's record as a commit is to leave it, and what it holds."""

    record: GameRecord
    state: GameState | None
    """The game the record holds; None for a table still waiting for players."""
    parts: game.StateParts | None = None
    """The state as parts (an action's): its head is the record's, its newly sealed parts are
    appended as segments, and this process keeps the state decoded. None: the record holds the
    whole state (a deal) or none."""


def acted(loaded: LoadedGame, seat: int, action: Action, *, by_token: bool) -> Change:
    """The game after ``seat`` takes ``action`` (``engine.game.apply``: its errors are the
    rules'), its record moved on: who moves next and since when, away seats, the end."""
    after = game.apply(loaded.state, seat, action)
    parts = game.dumps_parts(after, loaded.sealed)
    record = game_records.stamped(
        movers.committed(loaded.record, loaded.state, after, parts.head, by_token=by_token),
        finished=after.status == "finished",
    )
    return Change(record, after, parts)


async def commit(
    services: GameServices,
    game_id: str,
    stored_version: int,
    change: Change,
    *,
    saved: tuple[str, bytes] | None = None,
    by_service: bool = False,
) -> bool:
    """Commit ``change`` over the version loaded (with ``saved``, the request's answer under its
    idempotency key); False, changing nothing, if the game moved on. ``by_service``: a move the
    service made (a bot, a clock, the caller), not a person's request."""
    record, state, parts = change.record, change.state, change.parts
    crash_points.reached(services.settings, "commit.before")
    if not await services.store.commit(
        game_id,
        stored_version,
        game_records.encode_record(record),
        segments=() if parts is None else game_records.segments_of(parts),
        idempotency=saved,
        due=None if state is None else movers.entry_due(record, state),
        acted=not by_service,
    ):
        return False
    crash_points.reached(services.settings, "commit.after")
    if parts is not None and state is not None:
        services.decoded.put(game_id, parts.head, state)
    announce(services, game_id, stored_version + 1)
    if state is not None:
        services.bus.publish(Committed(game_id, record, state, by_service=by_service))
    return True

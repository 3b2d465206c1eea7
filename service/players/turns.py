"""Whether a game waits for a seat, and until when, as a player's list and events say it."""

from __future__ import annotations

from service.games.records import GameRecord
from service.games.wire import GameView
from service.http.wire import utc_time


def waits_for(view: GameView, seat: int) -> bool:
    """The game waits for ``seat``: its turn, or (speed) an open call it has not chosen in."""
    if view.status != "playing":
        return False
    if view.call is not None:
        return seat in view.active and seat not in view.call.chosen
    return view.turn == seat


def deadline(view: GameView, record: GameRecord) -> str | None:
    """When the turn clock or the speed call runs out; None without one."""
    if view.status != "playing":
        return None
    if view.call is not None:
        return view.call.deadline
    return (
        None if record.turn_seconds is None else utc_time(record.turn_started + record.turn_seconds)
    )

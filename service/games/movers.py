"""Who moves a seat: the person holding its token, a computer player, or, once the turn clock
has run out, a ``normal`` bot playing the person's turn for them.

A game record says it in four fields (``game_records.GameRecord``): ``bots`` (each seat's
level, None for a person), ``away`` (the seats whose turn the clock played), ``turn_seconds``
and ``turn_started``. From them and the state alone, ``mover`` says whether a bot is to move
now and ``due_at`` when the next bot move is due; every commit of a game with bots or a clock
writes its entry in the due moves (``service.storage.due_moves``, ``entry_due``) in the same atomic
step; told of the commit (``service.games.bus``), the bots' drivers start at once when a bot is
to move now (``service.bots.reactions``).
"""

from __future__ import annotations

import time
from typing import Final

import msgspec

from engine.game.state import GameState
from service.games import calls
from service.games.records import GameRecord
from service.games.wire import PlayerOut

TAKEOVER_LEVEL: Final = "normal"
"""The level that plays a person's overdue turn, and a seat its player left during play."""


def level_of(record: GameRecord, seat: int) -> str | None:
    return record.bots[seat] if record.bots else None


def controlled(record: GameRecord) -> bool:
    """Whether the service may ever have to move in this game: a bot seat, a clock, or a
    speed game's caller."""
    return record.turn_seconds is not None or record.call_seconds is not None or any(record.bots)


def mover(record: GameRecord, state: GameState, now: float) -> str | None:
    """The level of the bot that moves now for the seat on turn, or None (a person's turn with
    time left, or the game is over)."""
    move = next_move(record, state, now)
    return None if move is None else move[1] or TAKEOVER_LEVEL


def next_move(record: GameRecord, state: GameState, now: float) -> tuple[int, str | None] | None:
    """The seat the service moves now and the level of the bot that moves it (in a speed game,
    the caller's timeout: ``CALLER`` and no level), or None."""
    if calls.is_speed(state):
        return calls.next_move(record, state, now)
    if state.status != "playing":
        return None
    level = level_of(record, state.turn)
    if level is not None:
        return state.turn, level
    deadline = due_at(record, state)
    return (state.turn, TAKEOVER_LEVEL) if deadline is not None and now >= deadline else None


def due_at(record: GameRecord, state: GameState) -> float | None:
    """When the service makes the next move (Unix time): at once on a bot's turn, at the end
    of the clock on a person's; None if it never does (no clock, or the game is over). In a
    speed game: at once for a bot's or an away seat's choice, else at the call's deadline."""
    if calls.is_speed(state):
        return calls.due_at(record, state)
    if state.status != "playing":
        return None
    if level_of(record, state.turn) is not None:
        return record.turn_started
    if record.turn_seconds is None:
        return None
    return record.turn_started + record.turn_seconds


def stalled(record: GameRecord, state: GameState, now: float, lease: float) -> bool:
    """Whether a move the service owes is overdue by more than a lease: the instance that took
    it died, and a request that loads the game should see it made."""
    due = due_at(record, state)
    return due is not None and now > due + lease


def committed(
    before: GameRecord, old: GameState, new: GameState, head: bytes, *, by_token: bool
) -> GameRecord:
    """The record after the seat on turn in ``old`` acted: ``head`` the new state's, the turn's
    start moved on if the seat on turn changed or a round was dealt. A seat whose token acted
    is back from away; a person whose overdue turn a bot played (``by_token`` false) is away.
    In a speed game, a seat chose (``service.games.calls.committed``)."""
    if calls.is_speed(old):
        return calls.committed(before, old, new, head, by_token=by_token)
    seat = old.turn
    away = list(before.away) if before.away else [False] * len(new.players)
    away[seat] = not by_token and level_of(before, seat) is None
    started = time.time() if (new.turn, new.deal) != (old.turn, old.deal) else before.turn_started
    return msgspec.structs.replace(
        before, state=head, away=tuple(away) if any(away) else (), turn_started=started
    )


def seated_players(players: list[PlayerOut], record: GameRecord) -> list[PlayerOut]:
    """The view's players with each seat's ``bot`` level, ``away`` flag and player."""
    if not record.bots and not record.away and not record.players:
        return players
    return [
        msgspec.structs.replace(
            player,
            bot=level_of(record, player.seat),
            away=bool(record.away) and record.away[player.seat],
            player_id=record.players[player.seat] if record.players else None,
        )
        for player in players
    ]


def entry_due(record: GameRecord, state: GameState) -> float | None:
    """The game's due entry as the commit of ``record`` writes it (``service.storage.due_moves``):
    when the service's next move is due, None if it never is."""
    return due_at(record, state) if controlled(record) else None

"""The caller of a speed game (``turns: speed``): who the service chooses for in the open call,
and when the call's time runs out.

A speed game has no turns: every seat still in the round chooses at once, in each call. The
game record's ``turn_started`` is then the open call's start, and its deadline that plus
``call_seconds``. The service owes a choice at once for every bot seat and every away seat
(a person whose call ran out, until their token acts again: a ``normal`` bot chooses for
them), and the caller's timeout (``CALL_TIMEOUT``) at the deadline. Both are made by the
turn clock's machinery (``service.games.movers`` and ``turns``): one due entry per game, the
sweepers on every instance, and the game's compare-and-set, so each happens exactly once.
"""

from __future__ import annotations

import time
from typing import Final

import msgspec

from engine.game.actions import CALLER
from engine.game.speed import choosers
from engine.game.state import RECORD_CHUNK, GameState
from service.games.records import GameRecord
from service.games.wire import DEFAULT_CALL_SECONDS
from service.http.wire import utc_time

CALLS_KEPT: Final = 64
"""Ended calls a game record keeps the start of (``GameRecord.ended_calls``): an event stream
that resumes within the last ones shows each past call's own deadline, and the record stays
small however long the game."""

TAKEOVER_LEVEL: Final = "normal"
"""The level that chooses for an away seat (as a turn clock's takeover plays a turn)."""


def is_speed(state: GameState) -> bool:
    return state.rules.turns == "speed"


def call_deadline(record: GameRecord) -> float:
    """When the open call's time runs out (Unix time)."""
    return record.turn_started + (record.call_seconds or DEFAULT_CALL_SECONDS)


def deadline_text(record: GameRecord, version: int) -> str | None:
    """The deadline of the call open at ``version`` as views show it (ISO 8601, UTC, to the
    millisecond): the open call's, or an earlier one's from the calls the record keeps; None
    for a call too old to be kept."""
    started = record.turn_started
    for ended, start in reversed(record.ended_calls):
        if ended <= version:
            break
        started = start
    else:
        if len(record.ended_calls) == CALLS_KEPT:
            return None  # the oldest kept call may not be this version's
    return utc_time(started + (record.call_seconds or DEFAULT_CALL_SECONDS))


def owed_choice(record: GameRecord, state: GameState) -> tuple[int, str] | None:
    """The first seat the service chooses for in the open call (a bot, or an away person who
    has not chosen), with the level that chooses; None if there is none."""
    if state.status != "playing":
        return None
    for seat in choosers(state):
        if state.choices[seat] is not None:
            continue
        level = record.bots[seat] if record.bots else None
        if level is None and record.away and record.away[seat]:
            level = TAKEOVER_LEVEL
        if level is not None:
            return seat, level
    return None


def next_move(record: GameRecord, state: GameState, now: float) -> tuple[int, str | None] | None:
    """What the service does now in the game: a seat's choice by the bot of a level, the
    caller's timeout (``CALLER``, no level), or nothing yet (None)."""
    if state.status != "playing":
        return None
    owed = owed_choice(record, state)
    if owed is not None:
        return owed
    return (CALLER, None) if now >= call_deadline(record) else None


def due_at(record: GameRecord, state: GameState) -> float | None:
    """At once while the service owes a choice, else at the call's deadline; None once the
    game is over."""
    if state.status != "playing":
        return None
    return record.turn_started if owed_choice(record, state) is not None else call_deadline(record)


def actor(old: GameState, new: GameState) -> int:
    """The seat whose choice made ``new`` from ``old`` (``CALLER`` for a timeout): the seat of
    the first version after ``old``'s (a choice that ends its call is followed by the call's
    end)."""
    chunk, offset = divmod(old.version, RECORD_CHUNK)
    return new.records[chunk][offset].seat


def committed(
    before: GameRecord, old: GameState, new: GameState, head: bytes, *, by_token: bool
) -> GameRecord:
    """The record after a seat chose (or the caller timed the call out): the call's start
    moved on when a new call opened, the one that ended kept in ``ended_calls``. A person who
    had not chosen when the call ran out is away; a token's choice brings its seat back."""
    seat = actor(old, new)
    away = list(before.away) if before.away else [False] * len(new.players)
    if seat == CALLER:
        for chooser in choosers(old):
            person = not (before.bots and before.bots[chooser])
            if person and old.choices[chooser] is None:
                away[chooser] = True
    elif by_token:
        away[seat] = False
    if (new.calls, new.deal) == (old.calls, old.deal):
        return msgspec.structs.replace(before, state=head, away=tuple(away) if any(away) else ())
    ended = (*before.ended_calls, (new.version, before.turn_started))[-CALLS_KEPT:]
    return msgspec.structs.replace(
        before,
        state=head,
        away=tuple(away) if any(away) else (),
        turn_started=time.time(),
        ended_calls=ended,
    )

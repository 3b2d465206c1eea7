"""An imported record's parse and replay, in a worker process and within a budget.

A record of ``MAX_RECORD_BYTES`` replays in seconds of CPU, all of it holding the interpreter's
lock: on the event loop it stalled every other request of the instance (``/healthz`` included)
for as long. So ``replayed_record`` runs in the analyses' pool (``service.analysis.pool``, the
review's workers, bounded by its queue: past it a 503 with Retry-After), and the event loop
only awaits it. The work is bounded twice before the replay starts: by the body's bytes
(``MAX_RECORD_BYTES``, Litestar's 413 as the body arrives) and by the record's actions
(``MAX_IMPORT_VERSIONS``, counted once the record is read and before any is replayed: a 413
naming the limit).

What a worker answers comes back pickled. The engine's errors take keyword arguments that
``Exception``'s pickling drops (a ``RecordNotLegal`` could not be rebuilt in the event loop's
process), so a client's mistake comes back as a ``Refusal`` that rebuilds the same exception,
attributes and all, for the one place that maps errors to problems.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final, Literal

from engine import game
from engine.errors import EngineError, NotationError
from engine.game import GameState
from engine.records import GameRecord, Places, import_record, parse_located, record_from_json
from service.http.body_limits import check_json_limits, check_number_digits
from service.http.problems import ServiceProblem

MAX_IMPORT_VERSIONS: Final = 50_000
"""Actions a record imports at most. A game of eleven rounds between eight players takes a few
thousand; a record past this is built to cost (one action a line: a 2 MiB record holds some
90,000) and is refused before its replay."""


class RecordTooLong(ServiceProblem):
    status, kind, title = 413, "record-too-long", "The record holds more actions than are imported"


@dataclass(frozen=True, slots=True)
class Replayed:
    """What an import keeps and answers: the state (``engine.game.dumps``) and its result."""

    stored: bytes
    players: list[str]
    status: Literal["playing", "finished"]
    rounds: int
    totals: list[int]
    winners: list[int] | None


@dataclass(frozen=True, slots=True)
class Refusal:
    """A client's mistake raised in a worker, as it crosses back: its class, message and
    attributes (``line``, ``path``, ``field``, ...)."""

    kind: type[Exception]
    args: tuple[object, ...]
    attributes: dict[str, object]

    @classmethod
    def of(cls, error: Exception) -> Refusal:
        return cls(type(error), error.args, dict(vars(error)))

    def error(self) -> Exception:
        error = self.kind.__new__(self.kind)
        error.args = self.args
        vars(error).update(self.attributes)
        return error


def replayed_record(body: bytes, text: bool) -> Replayed | Refusal:
    """The record's body read (text notation or JSON form), checked against the budget and
    replayed (run in a worker process)."""
    try:
        state = _replayed(body, text)
    except (EngineError, ServiceProblem) as error:
        return Refusal.of(error)
    return Replayed(
        stored=game.dumps(state),
        players=list(state.players),
        status=state.status,
        rounds=state.deal,
        totals=list(state.totals),
        winners=None if state.winners is None else list(state.winners),
    )


def _replayed(body: bytes, text: bool) -> GameState:
    """``NotationError`` or ``RecordNotLegal`` (a 422 naming the line or path) when the record
    does not replay; ``BodyBeyondLimits`` (422) or ``RecordTooLong`` (413) past a limit."""
    record, places = _read(body, text)
    versions = sum(len(r.actions) for r in record.rounds)
    if versions > MAX_IMPORT_VERSIONS:
        raise RecordTooLong(
            f"the record holds {versions} actions; this service imports at most "
            f"{MAX_IMPORT_VERSIONS} (MAX_IMPORT_VERSIONS)",
            field="rounds",
        )
    return import_record(record, places)


def _read(body: bytes, text: bool) -> tuple[GameRecord, Places | None]:
    try:
        decoded = body.decode()
    except UnicodeDecodeError as error:
        raise NotationError(f"the record is not UTF-8 text: {error.reason}") from None
    if text:
        check_number_digits(body)
        return parse_located(decoded)
    check_json_limits(body)
    try:
        value = json.loads(decoded)
    except json.JSONDecodeError as error:
        raise NotationError(
            f"the body is not JSON (send the text notation as text/plain): {error.msg}",
            path=f"line {error.lineno} column {error.colno}",
        ) from None
    return record_from_json(value), None

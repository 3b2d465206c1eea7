"""What the simulated people write down during the soak, and how the harness reads it back.

Two files in the run's directory, written by the Locust process:

- ``records.jsonl``: one record per line (``kind`` tells which): the games people created, the
  seats they claimed, every action attempt with the status of each try and the version it was
  answered with, every stall (a playing game with no new version for ``--stuck`` seconds),
  every game seen finished, every game left.
- ``requests.csv``: every HTTP request (retries included): start (wall clock), route, status
  (0: no answer, the connection failed), milliseconds, a refusal's problem type, the instance
  (its index), the path and the Idempotency-Key. The kill windows are in wall-clock time too, so
  each request is known to be inside one or not.

Times are ``time.time()`` seconds: the people and the chaos loop run in different processes.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

RECORDS_FILE = "records.jsonl"
REQUESTS_FILE = "requests.csv"

NO_ANSWER = 0
"""The status of a try whose connection failed (refused, reset, timed out)."""

# The routes as the request log and Locust's table name them.
CREATE = "POST /v1/games"
CLAIM = "POST /v1/invites/{code}"
VIEW = "GET /v1/games/{id}"
ACT = "POST /v1/games/{id}/actions"
STREAM = "GET /v1/games/{id}/events"
HEALTH = "GET /healthz"
PLAYER = "POST /v1/players"
CHALLENGE = "POST /v1/challenges"
ACCEPT = "POST /v1/challenges/{id}/accept"
SEEK = "POST /v1/seeks"
SEEK_VIEW = "GET /v1/seeks/{id}"


class GameCreated(msgspec.Struct, tag="game", kw_only=True):
    """A game a person created: alone with bots (``solo``) or a table for a guest (``host``)."""

    game_id: str
    """Empty if no try was answered 201."""
    role: str
    number: int
    """The person's number (its name is ``Soak <number>``)."""
    seat: int
    clock: int | None
    """The table's ``turn_seconds``, or None."""
    seats: int
    at: float
    statuses: list[int]
    """The create's tries: more than one means it was retried with its Idempotency-Key."""


class SeatClaimed(msgspec.Struct, tag="claim", kw_only=True):
    """A guest's seat: its claim of an invite code (``how``: ``invite``), a player's acceptance
    of an open challenge (``challenge``, ``code`` its id) or a player's seek matched
    (``seek``, ``code`` its id); ``game_id`` and ``seat`` when it was answered."""

    code: str
    how: str = "invite"
    at: float
    statuses: list[int]
    game_id: str | None = None
    seat: int | None = None
    host_game_id: str
    """The game the host created with this code (whatever the claim answered)."""


class ActionTried(msgspec.Struct, tag="action", kw_only=True):
    """One action a person decided on, sent with one Idempotency-Key until answered.

    ``status`` is None while it is in flight (and stays None if the run ended first);
    ``version`` is the version of the view a 200 answered with.
    """

    game_id: str
    seat: int
    key: str
    expected_version: int
    body: dict[str, Any]
    at: float
    statuses: list[int] = msgspec.field(default_factory=list)
    status: int | None = None
    version: int | None = None
    away: bool = False
    """The person had let the turn clock run out before sending it."""
    away_after: bool | None = None
    """For an action whose first try got no answer and whose retry was refused: whether the
    seat's next view showed it away (the turn clock played it); None if no view came."""


class Stalled(msgspec.Struct, tag="stall", kw_only=True):
    """A playing game in which no version came for ``--stuck`` seconds, seen by one seat."""

    game_id: str
    seat: int
    version: int
    since: float
    """When the last new version was seen."""
    until: float | None = None
    """When a new version came; None if none came before the person left or the run ended."""
    turn: int | None = None
    turn_kind: str = ""
    """Who was on turn: ``bot``, ``person``, ``away`` (a person the clock plays), ``me``."""
    streaming: bool = False


class Finished(msgspec.Struct, tag="finished", kw_only=True):
    game_id: str
    seat: int
    version: int
    at: float


class Left(msgspec.Struct, tag="left", kw_only=True):
    """A person gave up on a game (``stuck``) or on a table nobody joined (``unjoined``)."""

    game_id: str
    seat: int
    version: int
    reason: str
    at: float


Record = GameCreated | SeatClaimed | ActionTried | Stalled | Finished | Left

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Record)


def write_records(path: Path, records: Iterable[Record]) -> None:
    with path.open("wb") as out:
        for record in records:
            out.write(_encoder.encode(record) + b"\n")


def read_records(path: Path) -> list[Record]:
    with path.open("rb") as lines:
        return [_decoder.decode(line) for line in lines if line.strip()]


@dataclass(frozen=True, slots=True)
class Request:
    started: float
    route: str
    status: int
    ms: float
    problem: str
    """The last part of a refusal's problem ``type`` (``stale-version``, ...); empty for 2xx."""
    instance: int
    path: str
    key: str
    """The Idempotency-Key it carried (an action's, a create's, a claim's), else empty."""


class RequestLog:
    """Appends one CSV row per request (the Locust process's side)."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("w", newline="", buffering=1 << 16)
        self._rows = csv.writer(self._file)

    def add(self, request: Request) -> None:
        self._rows.writerow(
            (
                f"{request.started:.3f}", request.route, request.status, f"{request.ms:.2f}",
                request.problem, request.instance, request.path, request.key,
            )
        )  # fmt: skip

    def close(self) -> None:
        self._file.close()


def read_requests(file: Path) -> Iterator[Request]:
    with file.open(newline="") as rows:
        for started, route, status, ms, problem, instance, path, key in csv.reader(rows):
            yield Request(
                float(started), route, int(status), float(ms), problem, int(instance), path, key
            )

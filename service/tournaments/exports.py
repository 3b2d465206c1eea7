"""``GET /v1/tournaments/{id}/records``: every game of a finished tournament, its whole record,
one NDJSON line a game (``wire.TournamentGameRecord``), round by round and table by table.

Each line's ``record`` is the very body ``GET /v1/games/{id}/record`` answers for the game
(``service.records.finished``: a finished game's whole record is built once and kept), spliced
into the line as its bytes, never decoded and encoded again; ``null`` for a game no longer
kept. The lines are written as each record is read, so a long tournament's export holds one
record in memory at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

import msgspec

from service.http.problems import AnalysesBusy, GameNotFound
from service.records.finished import record_answer
from service.tournaments.deps import TournamentServices
from service.tournaments.problems import TournamentNotFinished
from service.tournaments.records import TournamentRecord

MEDIA_TYPE: Final = "application/x-ndjson"
BUSY_ATTEMPTS: Final = 10
"""How many times a record that needs a worker process (a game of more than ``LOOP_ACTIONS``
actions, read for the first time) is asked for while they are all busy, ``retry_after`` apart,
before the export gives up: the answer has begun, so it cannot be a 503 any more."""

_encoder: Final = msgspec.json.Encoder()


def checked(record: TournamentRecord) -> TournamentRecord:
    """The tournament, if it is finished: 409 ``tournament-not-finished`` otherwise."""
    if record.status != "finished":
        raise TournamentNotFinished(
            f"the tournament is {record.status}: its records are exported once it is finished"
        )
    return record


async def lines(services: TournamentServices, record: TournamentRecord) -> AsyncIterator[bytes]:
    """One line a game: its round, table and id, and its whole record (or null)."""
    for number, played in enumerate(record.played, start=1):
        for table, seated in enumerate(played.tables):
            head = _encoder.encode({"round": number, "table": table, "game_id": seated.game_id})
            body = await _whole_record(services, seated.game_id)
            yield b'%s,"record":%s}\n' % (head[:-1], b"null" if body is None else body)


async def _whole_record(services: TournamentServices, game_id: str) -> bytes | None:
    for _ in range(BUSY_ATTEMPTS - 1):
        try:
            return await _read(services, game_id)
        except AnalysesBusy as busy:
            await asyncio.sleep(busy.retry_after or 1)
    return await _read(services, game_id)


async def _read(services: TournamentServices, game_id: str) -> bytes | None:
    try:
        return await record_answer(services, game_id, text=False, since=0, limit=None)
    except GameNotFound:
        return None

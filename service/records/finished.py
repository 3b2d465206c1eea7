"""A finished game's record, made once and kept: it never changes again.

Building a record walks the game's whole history (``engine.records.record_of``) and formats
every action: a cost that grows with the game, paid on the event loop at every read, the same
for a page of ten actions as for the whole (``tests/benchmarks/bench_record_reads.py`` measures
it). A finished game's record is kept instead:

- **whole**, as the answer's bytes in each form asked for (JSON and text), built the first
  time in the analyses' worker processes (the event loop only encodes the state for them) and
  kept in the records store beside the game (``service.records.store``: set-unless-set, so
  instances racing to keep it agree; it expires as the games' records do). A read of the whole
  record is then one store read, on any instance;
- **as the engine's record**, in a small per-process cache
  (``service.records.finished_cache``), for the pages of the record: built on the event loop by
  the first page read in the process; a page is then cut from it
  (``engine.records.record_page``) and formatted, costing its own size.

A game still played is read as before (its public record, from its state: it changes with every
action).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from engine import game
from engine.records import GameRecord, record_of
from service.games import lifecycle as game_flow
from service.records import logic
from service.records.deps import RecordServices
from service.storage.game_store import StoreFull

_encoder: Final = msgspec.json.Encoder()


def finished_record_key(form: str, game_id: str) -> str:
    """The whole record of a finished game in ``form`` (``json`` or ``text``), as answered."""
    return f"finished-record:{form}:{game_id}"


async def record_answer(
    services: RecordServices, game_id: str, *, text: bool, since: int, limit: int | None
) -> bytes:
    """The body of ``GET /v1/games/{id}/record``: kept whole once the game is finished."""
    whole = since == 0 and limit is None
    key = finished_record_key("text" if text else "json", game_id)
    if whole:
        kept = await services.records.get(key)
        if kept is not None:
            return kept
    record = services.finished_records.get(game_id)
    if record is None:
        loaded = await game_flow.load_game(services, game_id)
        headers = logic.record_headers(loaded)
        if loaded.state.status == "finished" and whole:
            state_json = game.dumps(loaded.state)
            body = await services.analyses.run(whole_record, state_json, text, headers)
            return await _kept(services, key, body)
        record = record_of(loaded.state, **headers)
        if loaded.state.status == "finished":
            services.finished_records.put(game_id, record)
    body = _formatted(record, text, *logic.page(record, since, limit))
    if whole and record.headers.status == "finished":
        return await _kept(services, key, body)
    return body


def whole_record(state_json: bytes, text: bool, headers: dict[str, Any]) -> bytes:
    """A finished game's whole record, formatted (run in a worker process)."""
    record = record_of(game.loads(state_json), **headers)
    return _formatted(record, text, record, None)


def _formatted(record: GameRecord, text: bool, page: GameRecord, next_since: int | None) -> bytes:
    if text:
        return logic.record_text(page, next_since).encode()
    return _encoder.encode(logic.record_body(page, next_since))


async def _kept(services: RecordServices, key: str, body: bytes) -> bytes:
    try:
        return await services.records.put_new(key, body)
    except StoreFull:  # a read is answered all the same; it is kept once there is room
        return body

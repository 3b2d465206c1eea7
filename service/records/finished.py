"""A finished game's record, made once and kept: it never changes again.

Building a record replays nothing but walks the game's whole history (``engine.records.record_of``)
and formats every action, a cost that grows with the game: for a game of 20,000 actions, a
quarter of a second to build and a tenth more to format, on the event loop, at every read, and
the same for a page of ten actions as for the whole. A finished game's record is kept instead:

- **whole**, as the answer's bytes in each form asked for (JSON and text), in the records store
  beside the game (``service.records.store``: set-unless-set, so instances racing to keep it
  agree; it expires as the games' records do). A read of the whole record is then one store
  read, on any instance;
- **as the engine's record**, in a small per-process cache
  (``service.records.finished_cache``), for the pages
  of the record: a page is then cut from it (``engine.records.record_page``) and formatted,
  costing its own size.

A game still played is read as before (its public record, from its state: it changes with every
action).
"""

from __future__ import annotations

from typing import Final

import msgspec

from service.http.dependencies import Services
from service.records import logic
from service.storage.game_store import StoreFull

_encoder: Final = msgspec.json.Encoder()


def finished_record_key(form: str, game_id: str) -> str:
    """The whole record of a finished game in ``form`` (``json`` or ``text``), as answered."""
    return f"finished-record:{form}:{game_id}"


async def record_answer(
    services: Services, game_id: str, *, text: bool, since: int, limit: int | None
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
        record = await logic.game_record(services, game_id)
        if record.headers.status == "finished":
            services.finished_records.put(game_id, record)
    page, next_since = logic.page(record, since, limit)
    if text:
        body = logic.record_text(page, next_since).encode()
    else:
        body = _encoder.encode(logic.record_body(page, next_since))
    if whole and record.headers.status == "finished":
        try:
            return await services.records.put_new(key, body)
        except StoreFull:  # a read is answered all the same; it is kept once there is room
            return body
    return body

"""``GET /v1/games/{id}/record``: a page costs its size, a finished game's whole record is made
once and kept.

A game's state keeps each deal's result as the deal ends (``GameState.results``, stored as a
segment of the game like its chunks of history and its packs), so its record is built without
replaying the game (``engine.records.record_page_of``): each deal's header and result from the
state, its layout from its pack, and only the page's actions from the history. A page of a
long game, played or finished, costs what the page holds and is built on the event loop.

- **A read of more than ``LOOP_ACTIONS`` actions** (a whole long game) is built in the analyses'
  worker processes, the event loop only encoding the state for them; so is any read of a game
  stored before its results were kept, which only a replay of the whole game can build.
- **A finished game's whole record** never changes: once built it is kept, as the answer's
  bytes in each form asked for (JSON and text), in the records store (``service.records.store``:
  set-unless-set, so instances racing to keep it agree) for as long as the game is kept and no
  longer (``Store.expiry``), so it never outlives its game or answers for another game
  made later under the same id. A read of it is then one store read, on any instance.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from engine import game
from engine.records import GameRecord, holds_results, record_page_of
from service.games import lifecycle as game_flow
from service.games.routes import LOG_PAGE_MAX
from service.records import logic
from service.records.deps import RecordServices
from service.storage.game_store import StoreFull

LOOP_ACTIONS: Final = LOG_PAGE_MAX
"""A read of at most this many actions (the longest page) is built on the event loop, in a
few milliseconds; a longer one in a worker process."""

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
    loaded = await game_flow.load_game(services, game_id)
    state = loaded.state
    headers = logic.record_headers(loaded)
    if holds_results(state) and (limit is not None or state.version - since <= LOOP_ACTIONS):
        body = formatted_page(state, text, headers, since, limit)
    else:
        asked = (game.dumps(state), text, headers, since, limit)
        body = await services.analyses.run(record_in_worker, *asked)
    if whole and state.status == "finished":
        return await _kept(services, key, body, game_id)
    return body


def formatted_page(
    state: game.GameState, text: bool, headers: dict[str, Any], since: int, limit: int | None
) -> bytes:
    """The page of the state's record after ``since`` (at most ``limit`` actions), formatted."""
    return _formatted(*record_page_of(state, since, limit, **headers), text=text)


def record_in_worker(
    state_json: bytes, text: bool, headers: dict[str, Any], since: int, limit: int | None
) -> bytes:
    """``formatted_page`` of a stored state (run in a worker process)."""
    return formatted_page(game.loads(state_json), text, headers, since, limit)


def _formatted(page: GameRecord, next_since: int | None, *, text: bool) -> bytes:
    if text:
        return logic.record_text(page, next_since).encode()
    return _encoder.encode(logic.record_body(page, next_since))


async def _kept(services: RecordServices, key: str, body: bytes, game_id: str) -> bytes:
    """The body kept under ``key`` for as long as the game is kept, or the body as it is when
    it cannot be kept (the game just expired, or the store is full: kept at a later read)."""
    until = await services.store.expiry(game_id)
    if until is None:
        return body
    try:
        return await services.records.put_new(key, body, until=until)
    except StoreFull:
        return body

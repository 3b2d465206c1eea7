"""Records through the store: a game's record's headers and forms (read by
``service.records.finished``), and a record imported by replay (in a worker process:
``service.records.imports``). Their reviews are ``service.records.reviews``.
"""

from __future__ import annotations

import datetime
import math
from typing import Any, Final

from engine.records import GameRecord, print_record, record_json
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.http import idempotency
from service.http.idempotency import Retry, SavedAnswer
from service.http.problems import IdempotencyKeyReused, ImportQuotaReached, ServiceProblem
from service.records import imports
from service.records.deps import RecordServices
from service.records.store import quota_key, record_key
from service.records.wire import (
    RecordImported,
)

DAY_SECONDS: Final = 86400.0


class RecordNotFound(ServiceProblem):
    status, kind, title = 404, "record-not-found", "No such record"


def _utc(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).isoformat(timespec="seconds")


def record_headers(loaded: game_flow.LoadedGame) -> dict[str, Any]:
    """``record_of``'s headers of the loaded game: its bots and times."""
    stored = loaded.record
    finished = _utc(game_records.finished_at(stored)) if loaded.state.status == "finished" else None
    return {"bots": stored.bots or None, "created": _utc(stored.created), "finished": finished}


def record_text(record: GameRecord, next_since: int | None = None) -> str:
    more = "" if next_since is None else f"; next_since {next_since}\n"
    return print_record(record) + more


def record_body(record: GameRecord, next_since: int | None = None) -> dict[str, Any]:
    body = record_json(record)
    if next_since is not None:
        body["next_since"] = next_since
    return body


async def import_record(
    services: RecordServices,
    body: bytes,
    *,
    text: bool,
    client: str,
    retry: Retry | None = None,
) -> SavedAnswer:
    """Replays the record and keeps the game it replays to; nothing is kept when it does not.
    With an Idempotency-Key (``retry``) the record's id is the key's and the answer is saved
    in the record's own write: a retry is answered again and keeps no second record. Every
    import but such a retry spends its bytes from the ``client``'s daily budget
    (``IMPORT_BYTES_PER_DAY``), refused or kept."""
    if retry is not None:
        saved = await services.records.recall(
            record_key(idempotency.derived_id(retry)), retry.stored_key
        )
        if saved is not None:
            return retry.replayed(saved)
    await _spent(services, client, len(body))
    outcome = await services.analyses.run(imports.replayed_record, body, text)
    if isinstance(outcome, imports.Refusal):
        raise outcome.error()
    stored = outcome.stored
    while True:
        record_id = game_records.new_game_id() if retry is None else idempotency.derived_id(retry)
        imported = _imported(record_id, outcome, round(services.settings.game_ttl))
        answer = SavedAnswer(b"", idempotency.encoded(imported), 201)
        saving = None if retry is None else retry.saved(answer.body, answer.status)
        kept = await services.records.put_new(record_key(record_id), stored, idempotency=saving)
        if kept == stored:
            return answer
        if retry is not None:  # the first attempt (or another body under this key) kept its own
            return await _imported_before(services, record_id, retry)
        # 96 random bits: another record under this id practically never


async def _spent(services: RecordServices, client: str, amount: int) -> None:
    """The import's bytes taken from the client's daily budget, or a 429 saying when it is
    whole again."""
    budget = services.settings.import_bytes_per_day
    if budget == 0:
        return
    wait = await services.records.spend(quota_key(client), amount, budget, DAY_SECONDS)
    if wait is not None:
        raise ImportQuotaReached(
            f"this client sent {budget} bytes of records in a day, the most it may "
            f"(IMPORT_BYTES_PER_DAY); {amount} more are refused: retry in {math.ceil(wait)} s",
            retry_after=max(1, math.ceil(wait)),
        )


async def _imported_before(services: RecordServices, record_id: str, retry: Retry) -> SavedAnswer:
    data = await services.records.recall(record_key(record_id), retry.stored_key)
    if data is None:  # the answer expired before the record did
        raise IdempotencyKeyReused(
            "this Idempotency-Key imported a record whose answer is no longer kept: use a new key",
            field="Idempotency-Key",
        )
    return retry.replayed(data)


def _imported(record_id: str, replayed: imports.Replayed, kept_seconds: int) -> RecordImported:
    return RecordImported(
        record_id=record_id,
        players=replayed.players,
        status=replayed.status,
        rounds=replayed.rounds,
        totals=replayed.totals,
        winners=replayed.winners,
        expires_in=kept_seconds,
    )

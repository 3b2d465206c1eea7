"""``/v1/games/{game_id}/record``, ``/v1/records`` and the reviews of games and records."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath, HeaderParameter, QueryParameter

from engine.records import MAX_RECORD_BYTES
from service.games.routes import LOG_PAGE_MAX, LogSince
from service.http import idempotency
from service.http.body_limits import MAX_JSON_DEPTH, MAX_NUMBER_DIGITS
from service.http.dependencies import AppServices
from service.http.idempotency import IdempotencyKey
from service.http.openapi_declarations import problems
from service.records import finished, logic
from service.records.imports import MAX_IMPORT_VERSIONS
from service.records.wire import RecordImported, RecordJson, ReviewOut

AnyRequest = Request[Any, Any, Any]

Accept = Annotated[
    str | None,
    HeaderParameter(
        name="Accept",
        required=False,
        description="`text/plain` for the text notation; anything else gives the JSON form.",
    ),
]
_TEXT = "text/plain"
RecordLimit = Annotated[
    int | None,
    QueryParameter(
        name="limit",
        ge=1,
        le=LOG_PAGE_MAX,
        required=False,
        description=(
            f"At most this many actions (1 to {LOG_PAGE_MAX}). Default: every action after "
            "`since`, the whole record."
        ),
    ),
]


class RecordsController(Controller):
    path = "/v1"
    tags = ("records",)

    @get(
        "/games/{game_id:str}/record",
        operation_id="getGameRecord",
        summary="A game's record, in JSON or the text notation",
        description=(
            "While the game is played: what the public may see (as the log: no hand, no "
            "stock, a card drawn from the stock this round unknown). Once it is over: "
            "everything, each round's deal (every hand, the upcard, the stock in the order it "
            "was used), every action with its version, the results. `Accept: text/plain` gives "
            "the text notation of docs/records.md, which `POST /v1/records` takes back. "
            "`since` and `limit` page the action list as they page the log: every round keeps "
            "its deal and result, its actions are those after version `since`, at most `limit` "
            "in all, and `next_since` (JSON) is the `since` of the next page, absent on "
            "the last. The text form pages the same way and ends with a comment line "
            "`; next_since N` when more follow; only the whole action list imports. A finished "
            "game's record is made once and kept (as long as the game)."
        ),
        responses=problems(404, 409, 422, 503),
    )
    async def record(
        self,
        services: AppServices,
        game_id: FromPath[str],
        accept: Accept = None,
        since: LogSince = 0,
        limit: RecordLimit = None,
    ) -> Response[RecordJson]:
        text = accept is not None and _TEXT in accept
        body = await finished.record_answer(services, game_id, text=text, since=since, limit=limit)
        if text:
            return Response(body, media_type=f"{_TEXT}; charset=utf-8")  # type: ignore[arg-type]
        return Response(body, media_type="application/json")  # type: ignore[arg-type]

    @post(
        "/records",
        operation_id="importRecord",
        summary="Import a finished game's record (JSON or text), checked by replaying it",
        description=(
            "The body is a whole record, in the JSON form (`Content-Type: application/json`) "
            "or the text notation (`text/plain`), at most "
            f"{MAX_RECORD_BYTES // (1024 * 1024)} MiB ({MAX_RECORD_BYTES} bytes; 413 beyond) "
            f"and {MAX_IMPORT_VERSIONS} actions (413 `record-too-long` beyond, before any is "
            "replayed). "
            "It is replayed under its rules from its own deals, in a worker process (503 with "
            "`Retry-After` while they are all busy): 201 with the `record_id` it is "
            "kept under (as long as a game, `GAME_TTL`) and the result the replay reached, or "
            "a 422 whose `field` names the first line (`line 12`) or JSON path "
            "(`rounds[2].actions[5]`) that is not legal: a card not in hand, an action out of "
            "turn, a score that does not match. Nothing is kept then. With an `Idempotency-Key`, "
            "a retry is answered the first import's record again and keeps no other. A JSON "
            f"body nested deeper than {MAX_JSON_DEPTH} or with a number of more than "
            f"{MAX_NUMBER_DIGITS} digits is a 422 naming the limit."
        ),
        request_max_body_size=MAX_RECORD_BYTES,
        responses=problems(
            413,
            422,
            503,
            descriptions={
                413: "The body is larger than MAX_RECORD_BYTES, or the record holds more "
                "actions than MAX_IMPORT_VERSIONS",
                503: "The import's worker processes are all busy, or the store cannot be "
                "reached or is full; see Retry-After",
            },
        ),
        status_code=201,
    )
    async def import_record(
        self, services: AppServices, request: AnyRequest, idempotency_key: IdempotencyKey = None
    ) -> Response[RecordImported]:
        body = await request.body()
        text = request.content_type[0] == _TEXT
        retry = idempotency.retry_of("importRecord", idempotency_key, (text, body))
        return idempotency.answered(
            await logic.import_record(services, body, text=text, retry=retry)
        )

    @get(
        "/games/{game_id:str}/review",
        operation_id="getGameReview",
        summary="The review of a finished game: every decision, the best, the points lost",
        description=(
            "For each draw and discard of each seat (in a speed game, each seat's choice in "
            "each call, judged at the call's start), rebuilt from what that seat knew then: "
            "the choice, the best choice by the hint's exact figures, the expected points "
            "lost and a grade (`best`, `good`, `inaccuracy`, `mistake`, `blunder`, "
            "`missed_go_out`; thresholds in docs/records.md); per seat and per round the points "
            "lost and an accuracy. Computed once, in a worker process, and kept. 409 while the "
            "game is played."
        ),
        responses=problems(404, 409, 503),
    )
    async def game_review(self, services: AppServices, game_id: FromPath[str]) -> ReviewOut:
        return await logic.game_review(services, game_id)

    @get(
        "/records/{record_id:str}/review",
        operation_id="getRecordReview",
        summary="The review of an imported record",
        description="As a finished game's review (`GET /v1/games/{game_id}/review`).",
        responses=problems(404, 503, descriptions={404: "No such record"}),
    )
    async def record_review(self, services: AppServices, record_id: FromPath[str]) -> ReviewOut:
        return await logic.record_review(services, record_id)

"""``/v1/games/{game_id}/record``, ``/v1/records`` and the reviews of games and records."""

from __future__ import annotations

from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter

from engine.records import MAX_RECORD_BYTES
from service.games.routes import LOG_PAGE_MAX, LogSince
from service.http import idempotency
from service.http.body_limits import MAX_JSON_DEPTH, MAX_NUMBER_DIGITS
from service.http.idempotency import IdempotencyKey, request_retry
from service.http.openapi_declarations import problems
from service.http.route_policy import Limit, RouteLink, from_answer, policy
from service.records import finished, logic, reviews
from service.records.deps import AppRecordServices
from service.records.finished import LOOP_ACTIONS
from service.records.imports import MAX_IMPORT_VERSIONS
from service.records.wire import RecordImported, RecordJson, ReviewOut, ReviewPending

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

_RECORD_TEXT: Final = {
    "schema": {"type": "string", "description": "The text notation of docs/records.md."},
    "example": '[Game "three-thirteen"]\n[Format "1"]\n[Record "whole"]\n...',
}

_PENDING: Final = ResponseSpec(
    ReviewPending, description="The review is being computed: ask again after `Retry-After`"
)
_PENDING_HEADERS: Final = {
    "responses": {
        "202": {
            "headers": {
                "Retry-After": {
                    "description": "Seconds to wait before asking again.",
                    "schema": {"type": "integer", "minimum": 1},
                }
            }
        }
    }
}
"""The 202's ``Retry-After``, which a ``ResponseSpec`` cannot declare."""


_RECORD_BODY: Final = {
    "required": True,
    "description": (
        "A whole record: its JSON form as `GET /v1/games/{game_id}/record` answers it, or its "
        "text notation (`text/plain`, UTF-8). The JSON form is read leniently: a field it does not "
        "know is ignored."
    ),
    "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/RecordJson"}},
        # ``format: binary``: openapi-python-client sends a body of this media type from a
        # ``File`` (mapped to octet streams, tests/contract/python/openapi_python_client.yaml);
        # openapi-typescript types it as a string.
        "text/plain; charset=utf-8": {
            "schema": {
                "type": "string",
                "format": "binary",
                "description": "The text notation of docs/records.md.",
            },
        },
    },
}
"""A record in either form, which the handler reads itself (no ``data`` to declare it): the
JSON form's schema is the one the record is answered in, so a record fetched is posted back
as it is."""


class RecordsController(Controller):
    path = "/v1"
    tags = ("records",)

    @get(
        "/games/{game_id:str}/record",
        operation_id="getGameRecord",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
            openapi={"responses": {"200": {"content": {"text/plain": _RECORD_TEXT}}}},
        ),
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
            "`; next_since N` when more follow; only the whole action list imports. A page "
            "costs what it holds, not the game's length; a read of more than "
            f"{LOOP_ACTIONS} actions is built in a worker process (503 with `Retry-After` "
            "while they are all busy). A finished game's whole record is made once and kept "
            "as long as the game, no longer."
        ),
        responses=problems(
            404,
            409,
            422,
            503,
            descriptions={
                503: "The game store cannot be reached, or the worker processes that build a "
                "long read are all busy; see Retry-After"
            },
        ),
    )
    async def record(
        self,
        services: AppRecordServices,
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
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS),
            openapi={"requestBody": _RECORD_BODY},
            links={
                "201": {
                    "GetReview": RouteLink(
                        "getRecordReview", {"record_id": from_answer("/record_id")}
                    )
                }
            },
        ),
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
            f"{MAX_NUMBER_DIGITS} digits is a 422 naming the limit. Each import counts as a "
            "creation (`CREATIONS_PER_DAY`) and its bytes against the client's daily "
            "`IMPORT_BYTES_PER_DAY` (429 `import-quota` past it, with `Retry-After`)."
        ),
        request_max_body_size=MAX_RECORD_BYTES,
        responses=problems(
            413,
            422,
            429,
            503,
            descriptions={
                413: "The body is larger than MAX_RECORD_BYTES, or the record holds more "
                "actions than MAX_IMPORT_VERSIONS",
                429: "Too many requests or imports from this client, or its bytes of records "
                "today past IMPORT_BYTES_PER_DAY; see Retry-After",
                503: "The import's worker processes are all busy, or the store cannot be "
                "reached or is full; see Retry-After",
            },
        ),
        status_code=201,
    )
    async def import_record(
        self,
        services: AppRecordServices,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[RecordImported]:
        body = await request.body()
        text = request.content_type[0] == _TEXT
        retry = request_retry(request, idempotency_key, (text, body))
        return idempotency.answered(
            await logic.import_record(
                services, body, text=text, client=services.proxies.client_of(request), retry=retry
            )
        )

    @get(
        "/games/{game_id:str}/review",
        operation_id="getGameReview",
        opt=policy(limits=(Limit.PER_MINUTE,), openapi=_PENDING_HEADERS),
        summary="The review of a finished game: every decision, the best, the points lost",
        description=(
            "For each draw and discard of each seat (in a speed game, each seat's choice in "
            "each call, judged at the call's start), rebuilt from what that seat knew then: "
            "the choice, the best choice by the hint's exact figures, the expected points "
            "lost and a grade (`best`, `good`, `inaccuracy`, `mistake`, `blunder`, "
            "`missed_go_out`; thresholds in docs/records.md); per seat and per round the points "
            "lost and an accuracy. Computed once, in a worker process, for everyone who asks, "
            "and kept: while it is computed the answer is 202 with `Retry-After` and its "
            "status (`ReviewPending`). A game longer than a review's budget is reviewed up to "
            "it, and the review says where it stopped (`over_budget`). 409 while the game is "
            "played."
        ),
        responses={**problems(404, 409, 503), 202: _PENDING},
    )
    async def game_review(
        self, services: AppRecordServices, game_id: FromPath[str]
    ) -> Response[ReviewOut | ReviewPending]:
        return _answered(await reviews.game_review(services, game_id))

    @get(
        "/records/{record_id:str}/review",
        operation_id="getRecordReview",
        opt=policy(limits=(Limit.PER_MINUTE,), openapi=_PENDING_HEADERS),
        summary="The review of an imported record",
        description="As a finished game's review (`GET /v1/games/{game_id}/review`).",
        responses={**problems(404, 503, descriptions={404: "No such record"}), 202: _PENDING},
    )
    async def record_review(
        self, services: AppRecordServices, record_id: FromPath[str]
    ) -> Response[ReviewOut | ReviewPending]:
        return _answered(await reviews.record_review(services, record_id))


def _answered(review: ReviewOut | ReviewPending) -> Response[ReviewOut | ReviewPending]:
    """200 with the review, or 202 with its status and ``Retry-After``."""
    if isinstance(review, ReviewPending):
        headers = {"Retry-After": str(review.retry_after)}
        return Response(review, status_code=202, headers=headers)
    return Response(review)

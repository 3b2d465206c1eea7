"""``POST /v1/analyse``, ``POST /v1/analyse/batch`` and ``GET /v1/rules``: the stateless part of
the API."""

from __future__ import annotations

from typing import Any, Final

from litestar import Controller, Request, get, post
from litestar.params import JSONBody
from litestar.response import Stream

import engine
from engine.rules import PRESET_NAMES
from service.analysis import batch
from service.analysis.costly import analysed, is_costly
from service.analysis.deps import AppAnalysisServices
from service.analysis.to_engine import analyse_inputs
from service.analysis.wire import AnalyseRequest, AnalyseResponse
from service.http.body_limits import MAX_JSON_DEPTH, MAX_NUMBER_DIGITS, body_within
from service.http.openapi_declarations import problems
from service.http.rate_limits import take
from service.http.route_policy import Limit, policy
from service.operations import metrics
from service.settings import ANALYSIS_BATCH_BYTES_MOST
from service.vocabulary import to_wire
from service.vocabulary.wire import PresetsOut

_SCHEMAS: Final = "#/components/schemas/"
_BATCH_OPENAPI: Final = {
    "requestBody": {
        "required": True,
        "description": (
            "The analyse requests, each exactly the body of `POST /v1/analyse`: a JSON array "
            "(`application/json`), or NDJSON (`application/x-ndjson`), one request a line "
            "(blank lines are skipped)."
        ),
        "content": {
            "application/json": {
                "schema": {"type": "array", "items": {"$ref": f"{_SCHEMAS}AnalyseRequest"}}
            },
            batch.MEDIA_TYPE: {"schema": {"$ref": f"{_SCHEMAS}AnalyseRequest"}},
        },
    },
    "responses": {
        "200": {
            "description": (
                "NDJSON, one line an entry in the entries' order: its analysis "
                "(`AnalyseResponse`), or the problem `POST /v1/analyse` would answer it "
                "with and its `index` (`BatchProblem`)."
            ),
            "content": {
                batch.MEDIA_TYPE: {
                    "schema": {
                        "oneOf": [
                            {"$ref": f"{_SCHEMAS}AnalyseResponse"},
                            {"$ref": f"{_SCHEMAS}BatchProblem"},
                        ]
                    }
                }
            },
        },
        "429": {
            "description": (
                "Too many requests from this client address (`RATE_LIMIT_PER_MINUTE`), or "
                "more hands than it has left this minute (`ANALYSED_HANDS_PER_MINUTE`, 429 "
                "`analysed-hands-quota`); see Retry-After"
            )
        },
    },
}
"""What the framework cannot declare: a body read by the handler in two media types, and a
streamed answer of one of two line types."""


class AnalysisController(Controller):
    path = "/v1"
    tags = ("analysis",)

    @post(
        "/analyse",
        operation_id="analyseHand",
        opt=policy(limits=(Limit.PER_MINUTE, Limit.ANALYSED_HANDS)),
        summary="Best melds, deadwood and ranked discards of a hand",
        description=(
            "Arranges the hand into melds with the least possible deadwood under the rules, and "
            "ranks every distinct discard by the deadwood it leaves. The wild rank is `wild`, or "
            "else the wild rank of `round`; a request with neither is a 422. Hands larger than "
            "a deal, or with many wilds, are analysed by a few worker processes: when those "
            "are all busy and their queue is full, the answer is a 503 with Retry-After."
        ),
        status_code=200,
        responses=problems(
            400, 413, 422, 503, descriptions={503: "Every analysis worker is busy (Retry-After)"}
        ),
    )
    async def analyse(
        self,
        services: AppAnalysisServices,
        request: Request[Any, Any, Any],
        data: JSONBody[AnalyseRequest],
    ) -> AnalyseResponse:
        hand, wild, rules = analyse_inputs(data)
        await take(request, Limit.ANALYSED_HANDS, 1)
        settings = services.settings
        if is_costly(hand, wild, settings.analysis_inline_cards, settings.analysis_inline_wilds):
            answer = await services.analyses.run(analysed, hand, wild, rules)
        else:
            answer = analysed(hand, wild, rules)
        metrics.ANALYSES_RUN.inc()
        return answer

    @post(
        "/analyse/batch",
        operation_id="analyseHands",
        opt=policy(limits=(Limit.PER_MINUTE, Limit.ANALYSED_HANDS), openapi=_BATCH_OPENAPI),
        summary="Analyse many hands in one request, answered line by line (NDJSON)",
        description=(
            "Up to `ANALYSIS_BATCH_ENTRIES` (10,000 by default) analyse requests, each exactly "
            "the body of `POST /v1/analyse`, in a JSON array or as NDJSON "
            "(`Content-Type: application/x-ndjson`), in at most `ANALYSIS_BATCH_BYTES` "
            "(4 MiB by default; 413 naming the limit beyond either). The answer is NDJSON, "
            "one line an entry in the same order, written as they are computed: each line is "
            "exactly what `POST /v1/analyse` would answer the entry, its analysis, or the "
            "problem it would be refused with (4xx) and the entry's `index`. A bad entry is "
            "its line, not a failed batch; a body that is not JSON, or not an array, is a 400 "
            "or 422 before anything is analysed, and so is one nested deeper than "
            f"{MAX_JSON_DEPTH} (the array's level counted) or with a number of more than "
            f"{MAX_NUMBER_DIGITS} digits, as on every route. Costly hands go to the worker "
            "processes, the "
            "others are analysed at once. The batch counts its entries against the client's "
            "`ANALYSED_HANDS_PER_MINUTE` (and is one request against `RATE_LIMIT_PER_MINUTE`): "
            "a batch of more than the client has left is refused as a whole, 429 "
            "`analysed-hands-quota` with Retry-After, nothing analysed."
        ),
        status_code=200,
        # ANALYSIS_BATCH_BYTES is a setting of the app, held by ``body_within``; the framework
        # holds the most it may be set to.
        request_max_body_size=ANALYSIS_BATCH_BYTES_MOST,
        responses=problems(
            400,
            413,
            422,
            descriptions={
                413: "More bytes than ANALYSIS_BATCH_BYTES, or more entries than "
                "ANALYSIS_BATCH_ENTRIES"
            },
        ),
    )
    async def analyse_batch(
        self, services: AppAnalysisServices, request: Request[Any, Any, Any]
    ) -> Stream:
        settings = services.settings
        body = await body_within(request, settings.analysis_batch_bytes, "ANALYSIS_BATCH_BYTES")
        entries = batch.read_batch(
            body,
            ndjson=request.content_type[0] == batch.MEDIA_TYPE,
            most=settings.analysis_batch_entries,
        )
        await take(request, Limit.ANALYSED_HANDS, len(entries))
        return Stream(batch.lines(services, entries, request), media_type=batch.MEDIA_TYPE)

    @get(
        "/rules",
        operation_id="listRules",
        opt=policy(limits=()),
        summary="The rule presets, with every option",
        sync_to_thread=False,
    )
    def rules(self) -> PresetsOut:
        return PresetsOut(
            presets=[to_wire.rules_to_wire(engine.Rules.preset_named(n)) for n in PRESET_NAMES]
        )

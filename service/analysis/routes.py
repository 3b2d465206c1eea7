"""``POST /v1/analyse`` and ``GET /v1/rules``: the stateless part of the API."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import JSONBody

import engine
from engine.cards import Card, Rank
from engine.rules import PRESET_NAMES
from service.analysis.costly import analysed, is_costly
from service.analysis.deps import AppAnalysisServices
from service.analysis.wire import AnalyseRequest, AnalyseResponse
from service.http.openapi_declarations import problems
from service.http.route_policy import Limit, policy
from service.operations import metrics
from service.vocabulary import to_engine, to_wire
from service.vocabulary.wire import PresetsOut


def _inputs(data: AnalyseRequest) -> tuple[list[Card], Rank, engine.Rules]:
    """The hand, the wild rank and the rules of a request, or the problem with them."""
    rules = to_engine.rules_from_wire(data.rules)
    hand = to_engine.cards_from_codes(data.hand, "hand")
    wild = to_engine.wild_from_wire(data.wild, data.round, rules)
    return hand, wild, rules


class AnalysisController(Controller):
    path = "/v1"
    tags = ("analysis",)

    @post(
        "/analyse",
        operation_id="analyseHand",
        opt=policy(limits=(Limit.PER_MINUTE,)),
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
        self, services: AppAnalysisServices, data: JSONBody[AnalyseRequest]
    ) -> AnalyseResponse:
        hand, wild, rules = _inputs(data)
        settings = services.settings
        if is_costly(hand, wild, settings.analysis_inline_cards, settings.analysis_inline_wilds):
            answer = await services.analyses.run(analysed, hand, wild, rules)
        else:
            answer = analysed(hand, wild, rules)
        metrics.ANALYSES_RUN.inc()
        return answer

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

"""``POST /v1/analyse`` and ``GET /v1/rules``: the stateless part of the API."""

from __future__ import annotations

from typing import Final

import anyio
import anyio.to_thread
import msgspec
from litestar import Controller, get, post
from litestar.middleware import DefineMiddleware
from litestar.params import JSONBody

import engine
from engine.cards import Card, Rank
from engine.rules import PRESET_NAMES
from service import metrics, translate, wire
from service.direct_answers import DirectAnswers
from service.documented import problems
from service.problems import InvalidField, MissingWild
from service.strict_body import decode_analyse_request

INLINE_HAND_SIZE: Final = 16
"""The largest hand a game holds (15 dealt under the extended schedule, plus the card drawn):
analysed on the event loop, in about a millisecond."""

_LARGE_HANDS: Final = anyio.CapacityLimiter(2)
_ENCODER: Final = msgspec.json.Encoder()


def _inputs(data: wire.AnalyseRequest) -> tuple[list[Card], Rank, engine.Rules]:
    """The hand, the wild rank and the rules of a request, or the problem with them."""
    rules = translate.rules_from_wire(data.rules)
    hand = translate.cards_from_codes(data.hand, "hand")
    if data.wild is not None:
        wild = translate.rank_from_code(data.wild, "wild")
        if wild not in rules.ranks:
            raise InvalidField(
                f"wild rank {data.wild!r} is not a rank of the {rules.preset} pack",
                field="wild",
            )
    elif data.round is not None:
        wild = rules.wild_rank(data.round)
    else:
        raise MissingWild("give the wild rank as `wild`, or the round as `round`", field="wild")
    return hand, wild, rules


def _answer_directly(body: bytes) -> bytes | None:
    """The JSON of the 200 for a hand analysed on the event loop (see ``DirectAnswers``); None,
    or the problem raised, for anything else, which the handler below then answers."""
    hand, wild, rules = _inputs(decode_analyse_request(body))
    if len(hand) > INLINE_HAND_SIZE:
        return None
    answer = _ENCODER.encode(translate.analysis_to_wire(engine.analyse(hand, wild, rules)))
    metrics.ANALYSES_RUN.inc()
    return answer


class AnalysisController(Controller):
    path = "/v1"
    tags = ("analysis",)

    @post(
        "/analyse",
        operation_id="analyseHand",
        summary="Best melds, deadwood and ranked discards of a hand",
        description=(
            "Arranges the hand into melds with the least possible deadwood under the rules, and "
            "ranks every distinct discard by the deadwood it leaves. The wild rank is `wild`, or "
            "else the wild rank of `round`; a request with neither is a 422."
        ),
        status_code=200,
        responses=problems(400, 413, 422),
        middleware=[DefineMiddleware(DirectAnswers, answer=_answer_directly)],
    )
    async def analyse(self, data: JSONBody[wire.AnalyseRequest]) -> wire.AnalyseResponse:
        hand, wild, rules = _inputs(data)
        if len(hand) <= INLINE_HAND_SIZE:
            analysis = engine.analyse(hand, wild, rules)
        else:
            # A hand far larger than any deal can take the exact search seconds; in a worker
            # thread it slows the other requests (the GIL) instead of stopping them all.
            analysis = await anyio.to_thread.run_sync(
                engine.analyse, hand, wild, rules, limiter=_LARGE_HANDS
            )
        metrics.ANALYSES_RUN.inc()
        return translate.analysis_to_wire(analysis)

    @get(
        "/rules",
        operation_id="listRules",
        summary="The rule presets, with every option",
        sync_to_thread=False,
    )
    def rules(self) -> wire.PresetsOut:
        return wire.PresetsOut(
            presets=[translate.rules_to_wire(engine.Rules.preset_named(n)) for n in PRESET_NAMES]
        )

"""``POST /v1/analyse`` answered past the framework (``service.direct_answers``): byte for byte
what the framework answers, for every request, and only where the framework adds nothing."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar, Response
from litestar.datastructures import ResponseHeader

import engine
from service import metrics, strict_body
from service.analysis_api import AnalysisController
from service.app import create_app
from service.settings import Settings
from service.strict_body import decode_body_strictly
from tests.service.asgi_calls import asgi_post, status_and_body
from tests.service.test_analyse_api import requests
from tests.service.test_strict_body import _BODY_FIELDS


@cache
def shared_app(*, direct: bool = True) -> Litestar:
    """The app; with ``direct=False`` every request goes through the framework: an after-request
    hook that changes nothing is enough for the direct path to stand aside."""
    app = create_app(Settings())
    if not direct:

        async def unchanged(response: Response[Any]) -> Response[Any]:
            return response

        app.after_request = unchanged
    return app


def analyses_run() -> float:
    return metrics.ANALYSES_RUN._value.get()  # type: ignore[no-any-return]


def answered(
    body: bytes, pieces: int, *, direct: bool = True
) -> tuple[list[dict[str, Any]], float]:
    """What the app sends for ``body`` in ``pieces`` messages, and how many analyses it counted."""
    size = -(-len(body) // pieces) or 1
    chunks = [body[i : i + size] for i in range(0, len(body), size)] or [b""]
    before = analyses_run()
    sent = asgi_post(shared_app(direct=direct), "/v1/analyse", chunks, announced=len(body))
    return sent, analyses_run() - before


_VALID = requests(max_cards=20).map(lambda case: json.dumps(case[0]).encode())
_ANY = _BODY_FIELDS.map(lambda fields: json.dumps(fields).encode())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_VALID, _ANY, st.sampled_from([b"", b"{", b"[]"])), st.integers(1, 3))
def test_the_direct_answer_is_the_frameworks_answer(body: bytes, pieces: int) -> None:
    """Valid requests (hands of up to 20 cards, any spelling, rules, wild or round) and invalid
    ones, in one to three messages: the same messages sent, the same analyses counted."""
    assert answered(body, pieces) == answered(body, pieces, direct=False)


def test_a_plain_request_skips_the_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    read_by_the_framework: list[bool] = []
    read_body = strict_body.read_body

    async def recorded(request: Any) -> bytes:
        read_by_the_framework.append(True)
        return await read_body(request)

    monkeypatch.setattr(strict_body, "read_body", recorded)
    body = json.dumps({"hand": ["4H", "5H", "6H", "KD"], "wild": "8"}).encode()
    status, answer = status_and_body(answered(body, 1)[0])
    assert (status, json.loads(answer)["deadwood"]) == (200, ["KD"])
    assert read_by_the_framework == []
    # A request the direct path leaves (a bad card) reaches the framework, which reads its body.
    bad = json.dumps({"hand": ["4H", "ZZ"], "wild": "8"}).encode()
    assert status_and_body(answered(bad, 1)[0])[0] == 422
    assert read_by_the_framework == [True]
    # And the app the equivalence test compares with reads every body through the framework.
    assert status_and_body(answered(body, 1, direct=False)[0])[0] == 200
    assert read_by_the_framework == [True, True]


def test_nothing_is_answered_directly_where_the_framework_adds_to_answers() -> None:
    app = Litestar(
        route_handlers=[AnalysisController],
        before_request=decode_body_strictly,
        response_headers=[ResponseHeader(name="x-checked", value="yes")],
    )
    body = json.dumps({"hand": ["4H", "5H", "6H", "KD"], "wild": "8"}).encode()
    sent = asgi_post(app, "/v1/analyse", [body], announced=len(body))
    assert status_and_body(sent)[0] == 200
    assert (b"x-checked", b"yes") in sent[0]["headers"]


def test_a_huge_hand_is_left_to_the_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands larger than any deal are analysed in a worker thread, by the handler."""
    on_the_loop: list[int] = []
    analyse = engine.analyse

    def counted(hand: list[int], *args: Any) -> engine.Analysis:
        on_the_loop.append(len(hand))
        return analyse(hand, *args)

    monkeypatch.setattr(engine, "analyse", counted)
    body = json.dumps({"hand": ["4H"] * 17, "wild": "8"}).encode()
    status, answer = status_and_body(answered(body, 1)[0])
    assert status == 200, answer
    assert on_the_loop == [17]  # once, by the handler (the direct path only looked at its size)

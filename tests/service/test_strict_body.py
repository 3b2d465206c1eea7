"""How bodies are read and decoded (``service.strict_body``): the analyse request's cheap path
answers exactly what the strict decoding answers, and Litestar never reads or decodes a body a
second time."""

from __future__ import annotations

import json
from typing import Any

import litestar.connection.request as litestar_request
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from service import wire
from service.app import create_app
from service.problems import ServiceProblem
from service.settings import Settings
from service.strict_body import AnalyseRequestUnchecked, decode_analyse_request, strict_decoder
from tests.service.asgi_calls import asgi_post, status_and_body
from tests.service.test_games_api import assert_problem

Client = TestClient[Litestar]

_CODES = ["4H", "th", "10♥", "Q♤", "jk", "JK", "7x", "AS", "kD", "9c", "4H\n"]
_NOT_CODES = ["", "1H", "4", "ZZ", "4H ", " 4H", "★", "10", "JKR", "4h\n\n", 4, None]
_RANKS = ["8", "t", "10", "A", "K", "8\n", "1", "11", "Z", "", " 8", 8]

_HANDS: st.SearchStrategy[Any] = st.one_of(
    st.lists(st.sampled_from(_CODES), min_size=1, max_size=30),
    st.lists(st.sampled_from(_CODES), min_size=29, max_size=32),
    st.lists(st.sampled_from(_CODES + _NOT_CODES), max_size=4),
    st.lists(st.text(max_size=3), max_size=3),
    st.sampled_from(["4H", {}, None]),
)
_OPTIONAL_FIELDS = {
    "wild": st.sampled_from([*_RANKS, None]),
    "round": st.sampled_from([1, 11, 22, 23, 0, "3", None, 2.0]),
    "rules": st.sampled_from(
        [
            "classic",
            "five-crowns",
            "poker",
            {"preset": "online", "wild_points": 25},
            {"preset": "classic", "aces": 3},
            {"colour": "red"},
            [],
        ]
    ),
}
_BODY_FIELDS = st.one_of(
    st.fixed_dictionaries({"hand": _HANDS}, optional=_OPTIONAL_FIELDS),
    st.fixed_dictionaries({}, optional={"hand": _HANDS, **_OPTIONAL_FIELDS, "colour": st.just(1)}),
)


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        _BODY_FIELDS.map(lambda fields: json.dumps(fields).encode()),
        st.sampled_from([b"", b"{", b"[]", b"null", b'{"hand": ["4H"], "wild": "8"']),
    )
)
def test_the_analyse_request_decodes_as_strictly_as_its_struct_says(body: bytes) -> None:
    """The same value, or the same problem with the same detail and field."""
    strict = strict_decoder(wire.AnalyseRequest)
    try:
        expected: Any = strict(body)
    except ServiceProblem as problem:
        expected = (type(problem), problem.detail, problem.field)
    try:
        got: Any = decode_analyse_request(body)
    except ServiceProblem as problem:
        got = (type(problem), problem.detail, problem.field)
    assert got == expected
    assert type(got) is type(expected)


def test_the_cheap_path_knows_every_field_of_the_analyse_request() -> None:
    def fields(struct: type[msgspec.Struct]) -> list[tuple[str, Any]]:
        return [(f.name, f.default) for f in msgspec.structs.fields(struct)]

    assert fields(AnalyseRequestUnchecked) == fields(wire.AnalyseRequest)


def test_litestar_neither_reads_nor_decodes_a_body_again(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_second_decoding(*_: Any, **__: Any) -> Any:
        raise AssertionError("Litestar decoded a body")

    monkeypatch.setattr(litestar_request, "decode_json", no_second_decoding)
    analysed = client.post("/v1/analyse", json={"hand": ["4H", "5H", "6H"], "wild": "8"})
    assert analysed.status_code == 200, analysed.text
    created = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]})
    assert created.status_code == 201, created.text


def test_a_body_in_several_messages_is_read_whole_and_within_the_limit() -> None:
    app = create_app(Settings(max_body_bytes=1024))
    body = json.dumps({"hand": ["4H", "5H", "6H", "KD"], "wild": "8"}).encode()
    sent = asgi_post(app, "/v1/analyse", [body[:7], b"", body[7:20], body[20:]])
    status, answer = status_and_body(sent)
    assert status == 200, answer
    assert json.loads(answer)["deadwood"] == ["KD"]
    padded = body[:-1] + b"," + b" " * 1024 + b'"round": 1}'
    status, answer = status_and_body(asgi_post(app, "/v1/analyse", [padded[:600], padded[600:]]))
    assert status == 413, answer


def test_a_body_ends_with_the_bytes_its_content_length_announced() -> None:
    """No wait for the server's empty last message (a round trip through granian's threads)."""
    app = create_app(Settings())
    body = json.dumps({"players": [{"name": "a"}, {"name": "b"}], "seed": 3}).encode()
    sent = asgi_post(app, "/v1/games", [body[:9], body[9:]], announced=len(body))
    status, answer = status_and_body(sent)
    assert status == 201, answer
    assert len(json.loads(answer)["seats"]) == 2


def test_a_content_length_over_the_limit_is_refused_before_reading(client: Client) -> None:
    response = client.post(
        "/v1/analyse",
        content=b'{"hand": ["4H"], "wild": "8"}',
        headers={"content-type": "application/json", "content-length": str(10**6)},
    )
    assert_problem(response, 413, "body-too-large")

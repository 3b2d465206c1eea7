"""How bodies are read and decoded (``service.http.strict_body``): strictly, once, whole and within
the size limit."""

from __future__ import annotations

import json
from typing import Any

import litestar.connection.request as litestar_request
import msgspec
import msgspec.inspect
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.asgi_calls import asgi_post, status_and_body
from tests.service.games.test_games_api import assert_problem

Client = TestClient[Litestar]


def test_a_body_is_exactly_what_its_schema_says(client: Client) -> None:
    """No coercion (Litestar's own conversion would take "3" for 3) and no unknown field."""
    as_text = client.post("/v1/analyse", json={"hand": ["4H"], "round": "3"})
    assert_problem(as_text, 422, "invalid-field", "round")
    unknown = client.post("/v1/analyse", json={"hand": ["4H"], "wild": "8", "colour": "red"})
    assert_problem(unknown, 422, "invalid-field", "colour")
    assert_problem(client.post("/v1/analyse", content=b"{"), 400, "body-not-json")


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


def test_a_content_length_over_the_limit_is_refused_before_reading(client: Client) -> None:
    response = client.post(
        "/v1/analyse",
        content=b'{"hand": ["4H"], "wild": "8"}',
        headers={"content-type": "application/json", "content-length": str(10**6)},
    )
    assert_problem(response, 413, "body-too-large")


def test_a_whole_number_is_an_integer_however_it_is_written(client: Client) -> None:
    """JSON Schema's integers (the OpenAPI document's dialect): 3.0 and 3e0 are the integer 3;
    a fraction, however small, and a number past the float range are not."""
    for spelling in (b"3.0", b"3e0", b"0.3e1"):
        answer = client.post(
            "/v1/analyse",
            content=b'{"hand": ["4H"], "round": ' + spelling + b"}",
            headers={"content-type": "application/json"},
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["wild"] == "5"  # round 3 deals 5 cards: fives are wild
    for spelling in (b"3.5", b"3.0000000000000000001", b"1e400", b'"3"'):
        refused = client.post(
            "/v1/analyse",
            content=b'{"hand": ["4H"], "round": ' + spelling + b"}",
            headers={"content-type": "application/json"},
        )
        assert_problem(refused, 422, "invalid-field", "round")
    seeded = client.post(
        "/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7.0}
    )
    assert seeded.status_code == 201, seeded.text
    assert seeded.json()["view"]["seeded"] is True


def _reads_whole_numbers_alike(kind: msgspec.inspect.Type, seen: set[int]) -> bool:
    """Whether a whole number reads the same in ``kind`` typed (``1.0`` a float, or refused) and
    read plain then converted (``1.0`` the int 1): no ``Any``, and no union of int and float."""
    if id(kind) in seen:
        return True
    seen.add(id(kind))
    if isinstance(kind, msgspec.inspect.AnyType):
        return False
    inner: list[msgspec.inspect.Type] = []
    if isinstance(kind, msgspec.inspect.UnionType):
        numbers = {type(t) for t in kind.types} & {
            msgspec.inspect.IntType,
            msgspec.inspect.FloatType,
        }
        if len(numbers) == 2:
            return False
        inner += kind.types
    inner += [f.type for f in getattr(kind, "fields", ())]
    inner += getattr(kind, "item_types", ())  # a tuple's
    for name in ("type", "item_type", "key_type", "value_type"):  # an alias's, a list's, ...
        if isinstance(part := getattr(kind, name, None), msgspec.inspect.Type):
            inner.append(part)
    return all(_reads_whole_numbers_alike(t, seen) for t in inner)


def test_every_request_body_reads_alike_typed_and_plain() -> None:
    """A body is decoded straight into its route's type first, plain and converted when that
    refuses it: the same value either way only while no body type holds ``Any`` or a union of
    int and float (``service.http.strict_body``)."""
    bodies = [
        parameter.annotation
        for route in create_app(Settings()).routes
        for handler in getattr(route, "route_handlers", ())
        if (parameter := handler.parsed_fn_signature.parameters.get("data")) is not None
    ]
    assert len(bodies) >= 10
    for body in bodies:
        assert _reads_whole_numbers_alike(msgspec.inspect.type_info(body), set()), body
    assert not _reads_whole_numbers_alike(msgspec.inspect.type_info(int | float | None), set())
    assert not _reads_whole_numbers_alike(msgspec.inspect.type_info(list[Any]), set())

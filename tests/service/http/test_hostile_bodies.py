"""Hostile bodies: nested past any use, numbers of thousands of digits, more bytes than a route
takes. Each is a 4xx problem naming the limit it passed, on every route that takes a body (found
from the app's own routes and served document, so a new route is covered without a word here),
never a 500 and never a traceback logged at ERROR."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.routes import HTTPRoute
from litestar.testing import TestClient

from engine.records import record_json, record_of
from service.app import create_app
from service.http.body_limits import (
    MAX_JSON_DEPTH,
    MAX_NUMBER_DIGITS,
    check_json_limits,
    deepest,
    without_strings,
)
from service.http.problems import BodyBeyondLimits
from service.settings import Settings
from tests.benchmarks.bench_review import speed_bot_game
from tests.service.games.test_games_api import assert_problem
from tests.service.records.long_records import long_finished_game

Client = TestClient[Litestar]

_WRITES = {"POST", "PUT", "PATCH"}


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    """With its path parameters filled in (an id that names nothing)."""
    operation_id: str
    max_body: int
    takes_body: bool
    """Whether the served document gives the operation a request body."""


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with TestClient(create_app(Settings())) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def routes(client: Client) -> list[Route]:
    document = client.get("/schema/openapi.json").json()
    found = []
    for route in client.app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        path = route.path_format
        for name, parameter in route.path_parameters.items():
            path = path.replace(f"{{{name}}}", "1" if parameter.type is int else "nosuchthing")
        for handler in route.route_handlers:
            for method in sorted(handler.http_methods & _WRITES):
                operation = document["paths"][route.path_format][method.lower()]
                max_body = handler.resolve_request_max_body_size()
                assert max_body is not None
                found.append(
                    Route(
                        method,
                        path,
                        operation["operationId"],
                        max_body,
                        "requestBody" in operation,
                    )
                )
    # The enumeration itself can fail: these must be among what it found.
    assert {"importRecord", "createGame", "enterRound", "applyAction"} <= {
        r.operation_id for r in found if r.takes_body
    }
    return found


@pytest.fixture
def no_error_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    with caplog.at_level(logging.ERROR):
        yield
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def _posted(client: Client, route: Route, body: bytes) -> Any:
    return client.request(
        route.method, route.path, content=body, headers={"Content-Type": "application/json"}
    )


# -- the issue's three bodies ---------------------------------------------------------------


ISSUE_BODIES = {
    "500000-nested-arrays": b"[" * 500_000,
    "100000-nested-objects": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "100000-digit-integer": b"1" * 100_000,
}


@pytest.mark.parametrize("body", ISSUE_BODIES.values(), ids=ISSUE_BODIES.keys())
def test_the_issue_s_bodies_are_a_422_naming_the_limit_on_import(
    client: Client, body: bytes, no_error_logged: None
) -> None:
    response = client.post(
        "/v1/records", content=body, headers={"Content-Type": "application/json"}
    )
    problem = assert_problem(response, 422, "body-beyond-limits", "$")
    assert "MAX_JSON_DEPTH" in problem["detail"] or "MAX_NUMBER_DIGITS" in problem["detail"]


def test_a_text_record_with_a_number_of_thousands_of_digits_is_a_422(
    client: Client, no_error_logged: None
) -> None:
    """The text notation reads its numbers with ``int`` too (here the first dealer's seat)."""
    text = f'[Game "Three Thirteen"]\n[Format "1"]\n[FirstDealer "{"1" * 100_000}"]\n'
    response = client.post("/v1/records", content=text, headers={"Content-Type": "text/plain"})
    problem = assert_problem(response, 422, "body-beyond-limits", "$")
    assert f"at most {MAX_NUMBER_DIGITS}" in problem["detail"]


def test_every_body_route_refuses_a_body_one_level_too_deep(
    client: Client, routes: list[Route], no_error_logged: None
) -> None:
    deep = b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1)
    for route in routes:
        if route.takes_body:
            problem = assert_problem(_posted(client, route, deep), 422, "body-beyond-limits")
            assert f"{MAX_JSON_DEPTH + 1} deep" in problem["detail"], route


# -- fuzzed: nested, long numbers, oversized ------------------------------------------------


def _nested(openers: list[bytes], depth: int, closed: bool) -> bytes:
    layers = [openers[i % len(openers)] for i in range(depth)]
    if not closed:
        return b"".join(layers)
    closers = [b"]" if layer == b"[" else b"}" for layer in reversed(layers)]
    return b"".join(layers) + b"0" + b"".join(closers)


_deep_bodies = st.builds(
    _nested,
    st.lists(st.sampled_from([b"[", b'{"a":', b'{"players":']), min_size=1, max_size=3),
    st.integers(MAX_JSON_DEPTH + 1, 700_000),
    st.booleans(),
)
_long_numbers = st.builds(
    lambda sign, digits, fraction, wrap: wrap.replace(b"N", sign + digits + fraction),
    st.sampled_from([b"", b"-"]),
    st.integers(MAX_NUMBER_DIGITS + 1, 300_000).map(lambda n: b"9" * n),
    st.sampled_from([b"", b".5", b"e3"]),
    st.sampled_from([b"N", b"[N]", b'{"seed": N}', b'{"players": [{"name": "a"}], "seed": N}']),
)
_oversized = st.integers(0, 2 << 20).map(lambda n: b"[" + b"0," * (32 * 1024 + n) + b"0]")
"""Flat arrays of zeros past the usual 64 KiB limit: a 413, or a 422 of what the route takes."""


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(
    hostile=st.one_of(
        st.tuples(st.just("beyond-limits"), st.one_of(_deep_bodies, _long_numbers)),
        st.tuples(st.just("oversized"), _oversized),
    ),
    pick=st.integers(0, 1000),
)
def test_a_hostile_body_is_a_4xx_problem_on_every_route_that_takes_one(
    client: Client,
    routes: list[Route],
    hostile: tuple[str, bytes],
    pick: int,
    no_error_logged: None,
) -> None:
    """One route per example, drawn from every write route; a route that takes a body answers
    exactly: 413 past its size, else 422 naming the limit passed (or, for a flat array within
    the size, what the route takes instead)."""
    kind, body = hostile
    route = routes[pick % len(routes)]
    response = _posted(client, route, body)
    assert 400 <= response.status_code < 500, (route, response.text)
    assert response.headers["content-type"].startswith("application/problem+json")
    if not route.takes_body:
        return
    if len(body) > route.max_body:
        assert_problem(response, 413, "body-too-large")
    elif kind == "oversized" and route.operation_id == "analyseHands":
        # A batch's own bounds, settings below the framework's: its bytes, then its entries.
        detail = assert_problem(
            response, 413, "body-too-large" if len(body) > 4 << 20 else "batch-too-long"
        )
        assert "ANALYSIS_BATCH_" in detail["detail"]
    elif kind == "beyond-limits":
        assert_problem(response, 422, "body-beyond-limits", "$")
    else:
        assert response.status_code == 422, (route, response.text)


# -- the scan itself ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "structure"),
    [
        (b'["[[[", 1]', b"[, 1]"),
        (b'{"a\\"[[": [2]}', b"{: [2]}"),
        (b'["a\\\\", [3]]', b"[, [3]]"),
        (b'["a\\\\\\"[", [4]]', b"[, [4]]"),
        (b'["never closed [[[', b"["),
    ],
)
def test_strings_are_taken_out_escapes_and_all(body: bytes, structure: bytes) -> None:
    assert without_strings(body) == structure


def test_brackets_and_digits_inside_strings_pass() -> None:
    name = '"' + "[" * 100 + "1" * 100 + '"'
    check_json_limits(f'{{"players": [{{"name": {name}}}]}}'.encode())


def test_depth_is_the_deepest_point_not_the_count_of_brackets() -> None:
    assert deepest(b"[[]][[[]]]{}") == 3
    assert deepest(b"") == 0
    check_json_limits(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)
    with pytest.raises(BodyBeyondLimits):
        check_json_limits(b"[]" * 1000 + b"[" * (MAX_JSON_DEPTH + 1))


def test_a_number_at_the_limit_passes_and_one_digit_more_does_not() -> None:
    check_json_limits(b"[" + b"1" * MAX_NUMBER_DIGITS + b"]")
    with pytest.raises(BodyBeyondLimits):
        check_json_limits(b"[0." + b"1" * (MAX_NUMBER_DIGITS + 1) + b"]")


def test_the_deepest_body_the_api_takes_is_well_within_the_depth() -> None:
    """A game record's JSON form, turns and speed, nests far less than ``MAX_JSON_DEPTH``."""
    for state in (long_finished_game(5), speed_bot_game("classic", 3)):
        body = msgspec.json.encode(record_json(record_of(state)))
        assert deepest(without_strings(body)) <= MAX_JSON_DEPTH // 2
        check_json_limits(body)

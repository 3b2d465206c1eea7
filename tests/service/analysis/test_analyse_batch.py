"""``POST /v1/analyse/batch`` over HTTP: each line is what ``POST /v1/analyse`` answers its entry,
in the entries' order, costly hands in the worker processes; bad entries are their own lines;
bodies bounded with a 413 naming the limit; the hands counted against
``ANALYSED_HANDS_PER_MINUTE`` by the batch's size."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

import engine
from service.app import create_app
from service.settings import Settings
from tests.service.analysis.test_analyse_api import requests
from tests.service.costly_hands import LARGER_THAN_A_DEAL, codes
from tests.service.games.test_games_api import assert_problem

Client = TestClient[Litestar]
NDJSON = "application/x-ndjson"

CONTRACT_EXAMPLE = {"hand": ["4H", "8S", "6H", "KD"], "wild": "8"}
DEAL = {"hand": codes("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS"), "round": 11}
BAD_CARD = {"hand": ["4H", "ZZ"], "wild": "8"}
NO_WILD = {"hand": ["4H"]}
UNKNOWN_FIELD = {"hand": ["4H"], "wild": "8", "colour": "red"}
ROUND_AS_FLOAT = {"hand": ["4H", "5H"], "round": 1.0}
"""Taken by the single route (a whole number is an integer), refused by a strict typed read."""


def batch(client: Client, entries: Any) -> Any:
    return client.post("/v1/analyse/batch", json=entries)


def ndjson_batch(client: Client, entries: list[Any]) -> Any:
    body = "\n".join(json.dumps(entry) for entry in entries)
    return client.post("/v1/analyse/batch", content=body, headers={"content-type": NDJSON})


def lines_of(response: Any) -> list[Any]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith(NDJSON)
    assert response.text == "" or response.text.endswith("\n")
    return [json.loads(line) for line in response.text.splitlines()]


def single_answer(client: Client, entry: Any) -> Any:
    """What ``POST /v1/analyse`` answers the entry, as a batch's line says it."""
    response = client.post("/v1/analyse", json=entry)
    return response.json()


def expected_line(client: Client, index: int, entry: Any) -> Any:
    response = client.post("/v1/analyse", json=entry)
    if response.status_code == 200:
        return response.json()
    assert 400 <= response.status_code < 500, response.text
    return {"index": index, **response.json()}


def test_each_line_is_the_single_routes_answer_in_the_entries_order(client: Client) -> None:
    entries = [CONTRACT_EXAMPLE, DEAL, ROUND_AS_FLOAT, {**DEAL, "rules": "online"}]
    lines = lines_of(batch(client, entries))
    assert lines == [single_answer(client, entry) for entry in entries]
    assert lines[0]["suggested_discard"] == "KD"


def test_costly_hands_go_to_the_workers_and_the_lines_keep_the_entries_order(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Costly entries first, then cheap ones: the cheap ones are analysed (here, on the event
    loop) long before the worker process answers, and still come after them."""
    costly = [
        LARGER_THAN_A_DEAL,
        {**LARGER_THAN_A_DEAL, "wild": "9"},
        {**LARGER_THAN_A_DEAL, "hand": [*LARGER_THAN_A_DEAL["hand"], "JK"]},
    ]
    cheap: list[dict[str, Any]] = [CONTRACT_EXAMPLE, DEAL, {**DEAL, "round": 3}]
    entries = [costly[0], costly[1], *cheap, costly[2], BAD_CARD, *cheap]
    expected = [expected_line(client, index, entry) for index, entry in enumerate(entries)]
    analysed_here: list[int] = []
    analyse = engine.analyse

    def counted(hand: Any, *args: Any) -> engine.Analysis:
        analysed_here.append(len(hand))
        return analyse(hand, *args)

    monkeypatch.setattr(engine, "analyse", counted)  # this process only: not the worker's
    lines = lines_of(batch(client, entries))
    assert lines == expected
    assert sorted(analysed_here) == sorted(len(entry["hand"]) for entry in cheap * 2)
    assert client.app.state["services"].analyses.started


def test_bad_entries_are_error_lines_naming_the_entry_and_the_field(client: Client) -> None:
    entries = [CONTRACT_EXAMPLE, BAD_CARD, NO_WILD, UNKNOWN_FIELD, 42, "4H", DEAL]
    lines = lines_of(batch(client, entries))
    assert len(lines) == len(entries)
    assert lines[0]["deadwood_points"] == 10
    assert lines[6]["deadwood_points"] == single_answer(client, DEAL)["deadwood_points"]
    problems = {line["index"]: line for line in lines[1:6]}
    assert sorted(problems) == [1, 2, 3, 4, 5]
    assert (problems[1]["status"], problems[1]["field"]) == (422, "hand[1]")
    assert "invalid card code 'ZZ'" in problems[1]["detail"]
    assert problems[2]["type"] == "urn:three-thirteen:problem:missing-wild"
    assert problems[3]["field"] == "colour"
    assert problems[4]["field"] == problems[5]["field"] == "$"
    for index, entry in enumerate(entries):
        assert lines[index] == expected_line(client, index, entry)


def test_an_ndjson_body_is_answered_as_the_same_array(client: Client) -> None:
    entries = [CONTRACT_EXAMPLE, BAD_CARD, DEAL, ROUND_AS_FLOAT]
    as_array = lines_of(batch(client, entries))
    assert lines_of(ndjson_batch(client, entries)) == as_array
    with_blank_lines = "\r\n".join(["", *(json.dumps(e) for e in entries), "  ", ""])
    response = client.post(
        "/v1/analyse/batch", content=with_blank_lines, headers={"content-type": NDJSON}
    )
    assert lines_of(response) == as_array


def test_an_ndjson_line_that_is_not_json_is_its_own_400_line(client: Client) -> None:
    body = json.dumps(CONTRACT_EXAMPLE) + "\n{not json\n" + json.dumps(DEAL)
    lines = lines_of(
        client.post("/v1/analyse/batch", content=body, headers={"content-type": NDJSON})
    )
    assert lines[0]["deadwood_points"] == 10
    assert lines[1]["index"] == 1
    assert lines[1]["status"] == 400
    assert lines[1]["type"] == "urn:three-thirteen:problem:body-not-json"
    assert lines[2] == single_answer(client, DEAL)


def test_an_empty_batch_is_an_empty_answer(client: Client) -> None:
    assert lines_of(batch(client, [])) == []
    assert lines_of(ndjson_batch(client, [])) == []


def test_a_body_that_is_no_batch_is_refused_as_a_whole(client: Client) -> None:
    not_json = client.post(
        "/v1/analyse/batch",
        content=b'[{"hand": ["4H"]',
        headers={"content-type": "application/json"},
    )
    assert_problem(not_json, 400, "body-not-json")
    empty = client.post(
        "/v1/analyse/batch", content=b"", headers={"content-type": "application/json"}
    )
    assert_problem(empty, 400, "body-not-json")
    not_an_array = assert_problem(batch(client, CONTRACT_EXAMPLE), 422, "invalid-field", "$")
    assert "array" in not_an_array["detail"]
    deepest = b"[" + b"[" * 100_000 + b"]" * 100_000 + b"]"  # too deep to split into entries
    too_deep = client.post(
        "/v1/analyse/batch", content=deepest, headers={"content-type": "application/json"}
    )
    assert "MAX_JSON_DEPTH" in assert_problem(too_deep, 422, "body-beyond-limits")["detail"]


def test_a_body_past_the_limits_on_nesting_or_digits_is_refused_as_on_every_route(
    client: Client,
) -> None:
    """The array's level counts: an entry nested 32 deep makes a body 33 deep."""
    deep = b"[" * 32 + b"]" * 32
    body = b"[" + json.dumps(CONTRACT_EXAMPLE).encode() + b"," + deep + b"]"
    json_body = {"content-type": "application/json"}
    refused = client.post("/v1/analyse/batch", content=body, headers=json_body)
    assert "33 deep" in assert_problem(refused, 422, "body-beyond-limits", "$")["detail"]
    line = b"[" * 33 + b"]" * 33  # an NDJSON line is a body of its own
    ndjson = client.post("/v1/analyse/batch", content=line, headers={"content-type": NDJSON})
    assert "33 deep" in assert_problem(ndjson, 422, "body-beyond-limits", "$")["detail"]
    digits = b'[{"hand": ["4H"], "round": 1' + b"0" * 25 + b"}]"
    long_number = client.post("/v1/analyse/batch", content=digits, headers=json_body)
    assert "MAX_NUMBER_DIGITS" in assert_problem(long_number, 422, "body-beyond-limits")["detail"]
    within = b"[" + json.dumps(CONTRACT_EXAMPLE).encode() + b"," + b"[" * 31 + b"]" * 31 + b"]"
    lines = lines_of(client.post("/v1/analyse/batch", content=within, headers=json_body))
    assert lines[1]["index"] == 1
    assert lines[1]["field"] == "$"  # not an object: the entry's own line


@pytest.fixture
def small_batches() -> Iterator[Client]:
    app = create_app(Settings(analysis_batch_entries=3, analysis_batch_bytes=1024))
    with TestClient(app) as client:
        yield client


def test_more_entries_than_the_limit_is_a_413_naming_it(small_batches: Client) -> None:
    assert len(lines_of(batch(small_batches, [CONTRACT_EXAMPLE] * 3))) == 3
    for response in (
        batch(small_batches, [CONTRACT_EXAMPLE] * 4),
        ndjson_batch(small_batches, [CONTRACT_EXAMPLE] * 4),
    ):
        problem = assert_problem(response, 413, "batch-too-long")
        assert "ANALYSIS_BATCH_ENTRIES" in problem["detail"]
        assert "3" in problem["detail"]


def test_more_bytes_than_the_limit_is_a_413_naming_it(small_batches: Client) -> None:
    body = json.dumps([CONTRACT_EXAMPLE] * 3, indent=40).encode()  # 1,2xx bytes of spaces
    assert len(body) > 1024
    json_body = {"content-type": "application/json"}
    response = small_batches.post("/v1/analyse/batch", content=body, headers=json_body)
    problem = assert_problem(response, 413, "body-too-large")
    assert "1024" in problem["detail"]
    assert "ANALYSIS_BATCH_BYTES" in problem["detail"]

    def in_pieces() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield from (body[start : start + 100] for start in range(0, len(body), 100))

    streamed = small_batches.post("/v1/analyse/batch", content=in_pieces(), headers=json_body)
    assert "ANALYSIS_BATCH_BYTES" in assert_problem(streamed, 413, "body-too-large")["detail"]


@pytest.fixture
def ten_hands_a_minute() -> Iterator[Client]:
    app = create_app(Settings(analysed_hands_per_minute=10))
    with TestClient(app) as client:
        yield client


def test_a_batch_counts_its_entries_against_the_hands_a_minute(ten_hands_a_minute: Client) -> None:
    client = ten_hands_a_minute
    assert len(lines_of(batch(client, [CONTRACT_EXAMPLE, BAD_CARD] * 3))) == 6  # 4 left
    refused = assert_problem(batch(client, [CONTRACT_EXAMPLE] * 5), 429, "analysed-hands-quota")
    assert "ANALYSED_HANDS_PER_MINUTE" in refused["detail"]
    assert "4 are left" in refused["detail"]
    assert 1 <= int(batch(client, [CONTRACT_EXAMPLE] * 5).headers["retry-after"]) <= 60
    assert len(lines_of(ndjson_batch(client, [CONTRACT_EXAMPLE] * 3))) == 3  # a refusal took none
    assert client.post("/v1/analyse", json=CONTRACT_EXAMPLE).status_code == 200  # the tenth
    assert_problem(client.post("/v1/analyse", json=CONTRACT_EXAMPLE), 429, "analysed-hands-quota")
    assert lines_of(batch(client, [])) == []  # nothing to count


def test_a_batch_larger_than_a_minutes_hands_says_so(ten_hands_a_minute: Client) -> None:
    refused = batch(ten_hands_a_minute, [CONTRACT_EXAMPLE] * 11)
    assert (
        "send at most 10 at a time"
        in assert_problem(refused, 429, "analysed-hands-quota")["detail"]
    )


def test_a_batch_is_one_request_against_the_requests_a_minute(client: Client) -> None:
    first = batch(client, [CONTRACT_EXAMPLE] * 50)
    second = batch(client, [CONTRACT_EXAMPLE] * 50)
    used = int(first.headers["ratelimit-remaining"]) - int(second.headers["ratelimit-remaining"])
    assert used == 1


# -- agreement with the single route, on random batches -------------------------------------------


@st.composite
def entries(draw: st.DrawFn) -> Any:
    """A valid analyse request (up to 14 cards), or one broken in one of a few ways."""
    body, *_ = draw(requests(max_cards=14))
    match draw(st.sampled_from(["valid", "valid", "valid", "card", "wild", "field", "round"])):
        case "card":
            body["hand"] = [*body["hand"], draw(st.sampled_from(["ZZ", "1H", "", "4"]))]
        case "wild":
            body.pop("wild", None)
            body.pop("round", None)
        case "field":
            body["extra"] = 1
        case "round":
            body["round"] = draw(st.sampled_from([0, 14, -1, "3"]))
    return body


@cache
def shared_client() -> Client:
    """One app for every generated example (a fixture would be shared across them anyway)."""
    return TestClient(create_app(Settings(analysed_hands_per_minute=0, rate_limit_per_minute=0)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(entries(), max_size=12), st.booleans())
def test_every_line_is_what_the_single_route_answers(
    batch_entries: list[Any], ndjson: bool
) -> None:
    client = shared_client()
    send = ndjson_batch if ndjson else batch
    lines = lines_of(send(client, batch_entries))
    assert lines == [expected_line(client, i, entry) for i, entry in enumerate(batch_entries)]

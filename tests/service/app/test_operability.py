"""What an operator and a client developer see when something goes wrong: one access log line per
request (and no secret in it), the request id, CORS refusals, and every error a problem that says
what was expected, briefly."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings

TestClientT = TestClient[Litestar]
ORIGIN = "https://table.example"


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def access_log(client: TestClientT) -> Iterator[Kept]:
    """The access log's records (the app's logging is configured when the client starts it)."""
    kept = Kept()
    logger = logging.getLogger("service.access")
    logger.addHandler(kept)
    try:
        yield kept
    finally:
        logger.removeHandler(kept)


def _lines(kept: Kept) -> list[dict[str, object]]:
    return [json.loads(record.getMessage()) for record in kept.records]


def _problem(response: object) -> dict[str, object]:
    assert response.headers["content-type"].startswith("application/problem+json")  # type: ignore[attr-defined]
    body: dict[str, object] = response.json()  # type: ignore[attr-defined]
    return body


def test_each_request_is_one_json_line_with_its_route_and_no_secret(
    client: TestClientT, access_log: Kept
) -> None:
    created = client.post(
        "/v1/games", json={"players": [{"name": "Ann"}, {"open": True}]}, headers={}
    )
    assert created.status_code == 201
    token = created.json()["seats"][0]["token"]
    code = created.json()["invite_code"]
    game_id = created.json()["game_id"]
    client.get(
        f"/v1/games/{game_id}",
        params={"key": "query-secret"},
        headers={"Authorization": f"Bearer {token}"},
    )
    client.post(f"/v1/invites/{code}", json={"name": "Bob"})
    client.get("/no/such/path")

    lines = _lines(access_log)
    assert [(line["method"], line["route"], line["status"]) for line in lines] == [
        ("POST", "/v1/games", 201),
        ("GET", "/v1/games/{game_id}", 200),
        ("POST", "/v1/invites/{code}", 201),
        ("GET", None, 404),
    ]
    for line in lines:
        assert set(line) == {"time", "method", "route", "status", "duration_ms", "request_id"}
        assert isinstance(line["duration_ms"], float)
        assert line["duration_ms"] >= 0
    logged = "\n".join(record.getMessage() for record in access_log.records)
    for secret in (token, code, game_id, "query-secret"):
        assert secret not in logged


def test_a_request_id_is_echoed_or_made(client: TestClientT, access_log: Kept) -> None:
    echoed = client.get("/healthz", headers={"X-Request-ID": "abc-123.x"})
    assert echoed.headers["x-request-id"] == "abc-123.x"
    made = client.get("/healthz")
    forged = client.get("/healthz", headers={"X-Request-ID": 'a" injected'})
    assert len(made.headers["x-request-id"]) == 32
    assert forged.headers["x-request-id"] not in ('a" injected', made.headers["x-request-id"])
    ids = [line["request_id"] for line in _lines(access_log)]
    assert ids == [r.headers["x-request-id"] for r in (echoed, made, forged)]
    problem = client.get("/v1/games/nope", headers={"X-Request-ID": "on-error"})
    assert problem.status_code == 404
    assert problem.headers["x-request-id"] == "on-error"


def test_a_refused_cors_preflight_is_a_problem_and_logged() -> None:
    with TestClient(create_app(Settings(cors_origins=(ORIGIN,)))) as client:
        refusals = Kept()
        logging.getLogger("service.http.access_log").addHandler(refusals)
        try:
            refused = client.options(
                "/v1/rules",
                headers={"Origin": "https://other.example", "Access-Control-Request-Method": "GET"},
            )
            allowed = client.options(
                "/v1/rules", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "GET"}
            )
        finally:
            logging.getLogger("service.http.access_log").removeHandler(refusals)
    assert refused.status_code == 400
    problem = _problem(refused)
    assert problem["type"] == "urn:three-thirteen:problem:cors-refused"
    assert problem["field"] == "Origin"
    assert "https://other.example" in str(problem["detail"])
    assert [r.levelno for r in refusals.records] == [logging.WARNING]
    assert "https://other.example" in refusals.records[0].getMessage()
    assert allowed.status_code in (200, 204)
    assert allowed.headers["access-control-allow-origin"] == ORIGIN


@pytest.mark.parametrize("path", ["/schema/nothing", "/schema/a/b", "/schema/x.json", "/nothing"])
def test_an_unknown_path_is_a_problem(client: TestClientT, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert _problem(answer)["status"] == 404


def test_an_enum_error_lists_the_allowed_values(client: TestClientT) -> None:
    created = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]})
    game = created.json()
    turn = game["view"]["turn"]
    answer = client.post(
        f"/v1/games/{game['game_id']}/actions",
        json={"type": "draw", "source": "deck"},
        headers={"Authorization": f"Bearer {game['seats'][turn]['token']}"},
    )
    assert answer.status_code == 422
    problem = _problem(answer)
    assert problem["field"] == "source"
    assert problem["detail"] == "source: Invalid enum value 'deck'; allowed: 'discard', 'stock'"
    rules = client.post("/v1/analyse", json={"hand": ["4H"], "wild": "8", "rules": {"suits": 7}})
    assert _problem(rules)["detail"] == "rules.suits: Invalid enum value 7; allowed: 4, 5"
    preset = client.post("/v1/analyse", json={"hand": ["4H"], "wild": "8", "rules": "nope"})
    assert "allowed: 'classic', 'five-crowns', 'online'" in str(_problem(preset)["detail"])


def test_an_unknown_action_type_lists_the_allowed_types(client: TestClientT) -> None:
    """A tagged union's unknown tag (``{"type": "pass"}``) is refused with the tags it knows:
    the request bodies' own, as the document lists them."""
    created = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]})
    game = created.json()
    turn = game["view"]["turn"]
    answer = client.post(
        f"/v1/games/{game['game_id']}/actions",
        json={"type": "pass"},
        headers={"Authorization": f"Bearer {game['seats'][turn]['token']}"},
    )
    assert answer.status_code == 422
    problem = _problem(answer)
    assert problem["field"] == "type"
    assert problem["detail"] == "type: Invalid value 'pass'; allowed: 'discard', 'draw', 'lay_off'"
    document = client.get("/schema/openapi.json").json()
    body = document["paths"]["/v1/games/{game_id}/actions"]["post"]["requestBody"]
    schemas = document["components"]["schemas"]
    types = [
        value
        for kind in body["content"]["application/json"]["schema"]["oneOf"]
        for value in schemas[kind["$ref"].rsplit("/", 1)[1]]["properties"]["type"]["enum"]
    ]
    assert sorted(types) == ["discard", "draw", "lay_off"]


def test_a_too_large_body_names_the_limit() -> None:
    with TestClient(create_app(Settings(max_body_bytes=2048))) as client:
        answer = client.post("/v1/analyse", json={"hand": ["4H"] * 1000, "wild": "8"})
    assert answer.status_code == 413
    problem = _problem(answer)
    assert problem["type"] == "urn:three-thirteen:problem:body-too-large"
    assert "2048 bytes" in str(problem["detail"])


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/games", {"players": [{"name": "a\u202eb"}, {"name": "Bob"}]}, "players[0].name"),
        ("/v1/scoresheets", {"players": ["a\u202eb", "Bob"]}, "players[0]"),
    ],
)
def test_a_pattern_error_is_short_and_says_what_the_field_takes(
    client: TestClientT, path: str, body: object, field: str
) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == 422
    problem = _problem(answer)
    assert problem["field"] == field
    detail = str(problem["detail"])
    assert len(detail) < 300
    assert "regex" not in detail
    assert "bidirectional" in detail


def test_a_warning_log_level_turns_the_access_log_off() -> None:
    with TestClient(create_app(Settings(log_level="WARNING"))) as client:
        kept = Kept()
        logger = logging.getLogger("service.access")
        logger.addHandler(kept)
        try:
            answer = client.get("/healthz")
        finally:
            logger.removeHandler(kept)
    assert answer.headers["x-request-id"]
    assert kept.records == []

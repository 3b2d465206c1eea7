"""The OpenAPI document is a product: committed, equal to what the app serves, complete, and
browsable offline."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema_rs import Draft202012Validator
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.http.auth import TOKEN_DEPENDENCIES
from service.openapi.export import render
from service.settings import Settings
from service.streams.events import STREAM_EVENTS

Client = TestClient[Litestar]
COMMITTED = Path(__file__).parents[3] / "openapi" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture
def app() -> Litestar:
    """A deployment that sets ``METRICS_TOKEN``, so that every secured operation has a token to
    ask for (the document is the same without it)."""
    return create_app(Settings(metrics_token="scrape-" + "x" * 24))


def served(client: Client) -> dict[str, Any]:
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_the_committed_document_is_what_the_app_serves(client: Client) -> None:
    """Fails until `make openapi` is run after a change to the HTTP surface."""
    assert COMMITTED.read_text(encoding="utf-8") == render(served(client))


def test_every_operation_has_an_id_a_summary_and_problem_details_for_errors(client: Client) -> None:
    document = served(client)
    found = operations(document)
    ids = [operation["operationId"] for _, _, operation in found]
    assert len(ids) == len(set(ids)) == 64
    for method, path, operation in found:
        assert operation.get("summary"), f"{method} {path}"
        assert operation.get("tags"), f"{method} {path}"
        for status, response in operation["responses"].items():
            if status.startswith(("4", "5")):
                content = response["content"]
                assert list(content) == ["application/problem+json"], f"{method} {path} {status}"
                schema = content["application/problem+json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Problem"}
    action_statuses = set(document["paths"]["/v1/games/{game_id}/actions"]["post"]["responses"])
    assert {"200", "401", "404", "409", "413", "422"} <= action_statuses


def test_request_bodies_refuse_unknown_fields(client: Client) -> None:
    schemas = served(client)["components"]["schemas"]
    for name in (
        "AnalyseRequest",
        "CreateGameRequest",
        "DrawAction",
        "DiscardAction",
        "RulesOverrides",
    ):
        assert schemas[name]["additionalProperties"] is False, name


def test_a_created_game_links_to_its_operations(client: Client) -> None:
    created = served(client)["paths"]["/v1/games"]["post"]["responses"]["201"]
    targets = {link["operationId"] for link in created["links"].values()}
    assert targets == {
        *("getGame", "getGameLog", "getGameEvents", "applyAction", "claimInvite"),
        *("getInviteQr", "getHint", "createStreamUrl", "getGameRecord"),
    }


def test_a_claimed_seat_links_to_its_view_turn_and_stream(client: Client) -> None:
    claimed = served(client)["paths"]["/v1/invites/{code}"]["post"]["responses"]["201"]
    links = claimed["links"]
    targets = {link["operationId"] for link in links.values()}
    assert targets == {"getGame", "applyAction", "createStreamUrl", "leaveGame", "claimInvite"}
    assert links["ClaimedSeatDraws"]["parameters"]["header.Authorization"] == (
        "Bearer {$response.body#/token}"
    )


def test_a_seat_spec_is_exactly_one_kind_of_seat(client: Client) -> None:
    seat = Draft202012Validator(served(client)["components"]["schemas"]["PlayerIn"])
    for kind in ({"name": "Ann"}, {"open": True}, {"bot": "easy"}, {"bot": "hard", "name": "Hal"}):
        assert seat.is_valid(kind), kind
    for mixed in ({}, {"name": "Ann", "open": True}, {"open": True, "bot": "easy"}):
        assert not seat.is_valid(mixed), mixed


def _schemas_under(node: Any) -> list[dict[str, Any]]:
    """Every object in the document (schemas among them), but not inside example values."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for key, value in node.items():
            if key not in ("examples", "example", "links"):
                found += _schemas_under(value)
    elif isinstance(node, list):
        for item in node:
            found += _schemas_under(item)
    return found


def test_unions_have_two_kinds_or_more_and_enums_one_type(client: Client) -> None:
    for schema in _schemas_under(served(client)):
        for union in ("oneOf", "anyOf"):
            assert len(schema.get(union, [None, None])) >= 2, schema
        if "enum" in schema:
            assert isinstance(schema.get("type"), str), schema


def test_card_codes_are_patterns_in_every_input_form(client: Client) -> None:
    schemas = served(client)["components"]["schemas"]
    card = schemas["AnalyseRequest"]["properties"]["hand"]["items"]
    for code in ("TH", "10h", "K♥", "jk", "5X"):
        assert Draft202012Validator(card).is_valid(code), code
    for code in ("", "1H", "TH\n", "JKX"):
        assert not Draft202012Validator(card).is_valid(code), code
    (rank,) = (
        kind
        for kind in schemas["AnalyseRequest"]["properties"]["wild"]["anyOf"]
        if kind["type"] == "string"
    )
    assert Draft202012Validator(rank).is_valid("10")
    assert not Draft202012Validator(rank).is_valid("")


def test_request_fields_with_defaults_are_optional(client: Client) -> None:
    """The service applies a request field's default: the description says it, and no
    ``default`` keyword makes a generator (openapi-typescript) require the field."""
    schemas = served(client)["components"]["schemas"]
    create = schemas["CreateGameRequest"]
    assert create["required"] == ["players"]
    assert "default" not in create["properties"]["rules"]
    assert 'Default: `"classic"`' in create["properties"]["rules"]["description"]


def test_every_route_that_reads_a_token_declares_its_security(client: Client) -> None:
    """A handler that takes a token (one of the dependencies ``service.http.auth`` lists) has a
    security requirement in the document, and no operation has an Authorization header
    parameter."""
    document = served(client)
    schemes = set(document["components"]["securitySchemes"])
    reads_token: set[str] = set()
    for route in client.app.routes:
        for handler in getattr(route, "route_handlers", []):
            if TOKEN_DEPENDENCIES & set(handler.parsed_fn_signature.parameters):
                reads_token.add(handler.operation_id)
    assert len(reads_token) >= 9, reads_token
    for method, path, operation in operations(document):
        names = {p["name"].lower() for p in operation.get("parameters", [])}
        assert "authorization" not in names, f"{method} {path}"
        declared = operation["security"] or operation.get("x-optional-security", [])
        required = [set(requirement) for requirement in declared]
        if operation["operationId"] in reads_token:
            assert required, f"{method} {path}"
            assert set().union(*required) <= schemes, f"{method} {path}"
        else:
            assert required == [], f"{method} {path}"


# A valid body for each secured operation that takes one: the token is what is wrong.
_VALID_BODIES: dict[str, Any] = {
    "applyAction": {"type": "draw", "source": "stock"},
    "enterRound": {"entries": [{"seat": 0, "points": 5}, {"seat": 1, "points": 0}], "out_seat": 1},
    "createGame": {"players": [{"me": True}, {"name": "Bob"}]},
    "claimInvite": {"me": True},
    "createChallenge": {},
    "declineChallenge": {"reason": "later"},
    "createSeek": {},
    "createWebhook": {"url": "https://example.com/hook", "events": ["your_turn"]},
    "createAppWebhook": {"url": "https://example.com/hook", "events": ["your_turn"]},
    "createTournament": {"name": "Cup"},
    "createPlayer": {"name": "Ann"},
}
# Operations whose token only ever is a player's key: the wrong one is a key no player holds.
_KEY_ONLY: set[str] = {
    "getLeaderboard",
    "createWebhook",
    "listWebhooks",
    "deleteWebhook",
    "listWebhookDeliveries",
    "redeliverWebhookDelivery",
    "createGame",
    "claimInvite",
    "getMe",
    "replaceKey",
    "listMyGames",
    "getMyEvents",
    "createPlayerStreamUrl",
    "createChallenge",
    "acceptChallenge",
    "declineChallenge",
    "cancelChallenge",
    "createSeek",
    "getSeek",
    "cancelSeek",
    "getSignInQr",
    "createTournament",
    "joinTournament",
    "leaveTournament",
}


def test_every_operation_that_declares_a_token_refuses_a_wrong_one(client: Client) -> None:
    """What schemathesis' ``ignored_auth`` check asks of every secured operation (its live run
    leaves that check out, see schemathesis.toml): a token that is none of the game's or the
    sheet's is a 401, and so is no token where the token is required, on a real game and sheet;
    neither changes anything."""
    created = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]})
    sheet = client.post("/v1/scoresheets", json={"players": ["Ann", "Bob"]})
    assert (created.status_code, sheet.status_code) == (201, 201)
    ids = {
        "game_id": created.json()["game_id"],
        "sheet_id": sheet.json()["sheet_id"],
        "round": "1",
        "code": created.json()["invite_code"] or "AAAAAAAA",
        "challenge_id": created.json()["game_id"],
        "seek_id": "no-such-seek",
        "preset": "classic",
        "webhook_id": "wh_" + "a" * 16,
        "delivery_id": "msg_" + "a" * 22,
        "tournament_id": "no-such-tournament",
    }

    def state() -> tuple[Any, Any]:
        return (
            client.get(f"/v1/games/{ids['game_id']}/log").json(),
            client.get(f"/v1/scoresheets/{ids['sheet_id']}").json(),
        )

    before = state()
    secured = [
        op
        for op in operations(served(client))
        if op[2]["security"] or "x-optional-security" in op[2]
    ]
    assert len(secured) == 40, [op[2]["operationId"] for op in secured]
    for method, path, operation in secured:
        url = path.format(**ids)
        optional = "x-optional-security" in operation
        body = _VALID_BODIES.get(operation["operationId"])
        params = {"idle_timeout": 0} if operation["operationId"] == "getGameEvents" else None
        wrong = (
            "ttp_no-player-holds-this-key"
            if operation["operationId"] in _KEY_ONLY
            else "not-a-token-of-this-game"
        )
        tries = [{"Authorization": f"Bearer {wrong}"}]
        if not optional:
            tries.append({})
        for headers in tries:
            answer = client.request(method, url, json=body, headers=headers, params=params)
            assert answer.status_code == 401, (method, path, headers, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
    assert state() == before


def test_each_stream_event_has_a_message_schema(client: Client) -> None:
    document = served(client)
    stream = document["paths"]["/v1/games/{game_id}/events"]["get"]["responses"]["200"]
    (message_schema, text) = stream["content"]["text/event-stream"]["schema"]["oneOf"]
    assert message_schema == {"$ref": "#/components/schemas/GameStreamMessage"}
    assert text["type"] == "string"
    messages = document["components"]["schemas"]["GameStreamMessage"]["discriminator"]["mapping"]
    assert set(messages) == {event for event, _, _ in STREAM_EVENTS}
    for event, struct, _ in STREAM_EVENTS:
        name = messages[event].rsplit("/", 1)[1]
        message = document["components"]["schemas"][name]["properties"]
        assert message["event"] == {"type": "string", "enum": [event]}
        assert message["data"]["contentMediaType"] == "application/json"
        assert message["data"]["contentSchema"] == {
            "$ref": f"#/components/schemas/{struct.__name__}"
        }


def test_public_reads_need_no_token_and_say_they_take_one(client: Client) -> None:
    """A generated client's plain ``Client`` can call a public read (openapi-python-client
    types any operation with a security requirement as needing a token), and the token it
    takes is still stated."""
    document = served(client)
    for method, path, operation in operations(document):
        if operation["operationId"] in ("getGame", "getGameLog", "getGameEvents"):
            assert operation["security"] == [], (method, path)
            assert operation["x-optional-security"] == [{"seatToken": []}], (method, path)
            assert "`seatToken`" in operation["description"], (method, path)


def test_metrics_take_the_deployments_metrics_token_where_it_sets_one(client: Client) -> None:
    """The document is every deployment's: one without METRICS_TOKEN answers /metrics to
    anyone, so the token is an optional requirement (a scraper calls it, not a generated
    client: it stays in ``security``), and the description says when it is needed."""
    operation = served(client)["paths"]["/metrics"]["get"]
    assert operation["security"] == [{"metricsToken": []}, {}]
    assert "x-optional-security" not in operation
    assert "`METRICS_TOKEN`" in operation["description"]
    assert "401" in operation["responses"]


def test_the_docs_ui_loads_nothing_from_another_host(client: Client) -> None:
    page = client.get("/schema")
    assert page.status_code == 200
    assert "SwaggerUIBundle" in page.text
    references = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", page.text)
    assert references, page.text
    for reference in references:
        assert reference.startswith("/schema/assets/"), reference
        asset = client.get(reference)
        assert asset.status_code == 200, reference
        assert len(asset.content) > 100
    assert "//" not in json.dumps(references)


def test_a_rule_between_fields_is_described_and_answered_422_naming_the_field(
    client: Client,
) -> None:
    rules = served(client)["components"]["schemas"]["RulesOverrides"]["properties"]
    assert "At most `max_players`" in rules["min_players"]["description"]
    players = [{"name": "Ann"}, {"name": "Bob"}]
    clash = {"preset": "classic", "min_players": 5, "max_players": 3}
    answer = client.post("/v1/games", json={"players": players, "rules": clash})
    assert answer.status_code == 422
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["field"] == "rules.max_players"

"""The OpenAPI document is a product: committed, equal to what the app serves, complete, and
browsable offline."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from service.openapi import render

Client = TestClient[Litestar]
COMMITTED = Path(__file__).parents[2] / "openapi" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "patch")


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
    assert len(ids) == len(set(ids)) == 22
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
    assert targets == {"getGame", "getGameLog", "getGameEvents", "applyAction", "claimInvite"}


def test_a_claimed_seat_links_to_its_view_turn_and_stream(client: Client) -> None:
    claimed = served(client)["paths"]["/v1/invites/{code}"]["post"]["responses"]["201"]
    links = claimed["links"]
    targets = {link["operationId"] for link in links.values()}
    assert targets == {"getGame", "applyAction", "createStreamUrl", "leaveGame", "claimInvite"}
    assert links["ClaimedSeatDraws"]["parameters"]["header.Authorization"] == (
        "Bearer {$response.body#/token}"
    )


def test_a_seat_spec_is_exactly_one_kind_of_seat(client: Client) -> None:
    seat = served(client)["components"]["schemas"]["PlayerIn"]
    assert [kind["required"] for kind in seat["oneOf"]] == [["name"], ["open"], ["bot"]]


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

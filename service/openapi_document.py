"""Finishing touches on the generated OpenAPI document, applied once when the app is built.

Litestar derives the document from the handlers and structs; three things it cannot know are
added here: request structs refuse unknown fields (``additionalProperties: false``), the only
error schema is the problem details one (Litestar adds its own 400 body for handlers with
parameters), and the links from a created game to its operations (so a client, or
schemathesis's stateful phase, can follow a game from its creation).
"""

from __future__ import annotations

from typing import Any, Final

from litestar import Litestar
from litestar.openapi.spec import Link, OpenAPI, OpenAPIResponse, Operation, Reference, Schema

from service import wire

# Operations reachable from a created game, with how to fill their parameters from the 201 body.
_GAME_LINKS: Final[dict[str, dict[str, Any]]] = {
    "GetPublicView": {
        "operation_id": "getGame",
        "parameters": {"game_id": "$response.body#/game_id"},
    },
    "GetSeatView": {
        "operation_id": "getGame",
        "parameters": {
            "game_id": "$response.body#/game_id",
            "header.Authorization": "Bearer {$response.body#/seats/0/token}",
        },
    },
    "ActAsFirstSeat": {
        "operation_id": "applyAction",
        "parameters": {
            "game_id": "$response.body#/game_id",
            "header.Authorization": "Bearer {$response.body#/seats/0/token}",
        },
    },
    "ActAsSecondSeat": {
        "operation_id": "applyAction",
        "parameters": {
            "game_id": "$response.body#/game_id",
            "header.Authorization": "Bearer {$response.body#/seats/1/token}",
        },
    },
    "GetLog": {"operation_id": "getGameLog", "parameters": {"game_id": "$response.body#/game_id"}},
}


def _strict_schema_names() -> set[str]:
    return {
        name
        for name, value in vars(wire).items()
        if isinstance(value, type) and issubclass(value, wire.Strict) and value is not wire.Strict
    }


def _operations(document: OpenAPI) -> list[Operation]:
    found: list[Operation] = []
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            if operation is not None:
                found.append(operation)
    return found


def finish_document(app: Litestar) -> OpenAPI:
    document = app.openapi_schema
    strict = _strict_schema_names()
    schemas = (document.components.schemas or {}) if document.components else {}
    for name, schema in schemas.items():
        if name in strict and isinstance(schema, Schema):
            schema.additional_properties = False
    for operation in _operations(document):
        responses = operation.responses or {}
        for status in [s for s, r in responses.items() if _is_litestar_error_body(r)]:
            del responses[status]
        if operation.operation_id == "createGame" and "201" in responses:
            created = responses["201"]
            if isinstance(created, OpenAPIResponse):
                created.links = {
                    name: Link(operation_id=spec["operation_id"], parameters=spec["parameters"])
                    for name, spec in _GAME_LINKS.items()
                }
    return document


def _is_litestar_error_body(response: OpenAPIResponse | Reference) -> bool:
    """Litestar's automatic ValidationException response: JSON with ``status_code``/``detail``.
    Ours are all ``application/problem+json``."""
    if not isinstance(response, OpenAPIResponse) or not response.content:
        return False
    media = response.content.get("application/json")
    schema = media.schema if media is not None else None
    return isinstance(schema, Schema) and bool(
        schema.properties and "status_code" in schema.properties
    )

"""Finishing touches on the generated OpenAPI document, so that it says what the service does and
clients can be generated from it (openapi-python-client, openapi-typescript; docs/contract.md).

Two stages, both on the document's first use (``served_document``: building Litestar's document
costs more than the rest of the app, and most apps never serve it). ``finish_document``
(``service.app.links``), on Litestar's document objects: the only error schema is the
problem details one (Litestar adds its own 400 body for handlers with parameters), and the links
from a created game or score sheet to its operations (so a client, or schemathesis's stateful
phase, can follow a game from its creation to a seat claimed by its invite code, and on to that
seat's views and turns, and a sheet from its creation to its rounds). ``finished``, on the
document as a dict, the one the app serves and ``make openapi`` commits
(``FinishedJsonRenderPlugin``, ``FinishedSwaggerRenderPlugin``):

- The body schemas are msgspec's own (``msgspec.json.schema_components``): msgspec is what
  decodes and checks every body, so its schema is what the service accepts (Litestar's loses
  the patterns of list items, bounds of 0, and types its enums of mixed kinds as one). Every
  description comes from the wire modules themselves: a struct's docstring, a field's ``Meta``.
- An enum of values of several JSON types is an ``anyOf`` of one enum per type, and every enum
  has its ``type`` (generators make one enum class per type; openapi-python-client refuses a
  mixed one). A single-item ``oneOf`` or ``anyOf`` is its item.
- A request field's default is stated in its description, not as ``default``: it is applied
  by the service, and openapi-typescript makes every field with a ``default`` required, also in
  a request, where a client may leave it out.
- Rules between fields: stated in the schema where JSON Schema can, described where they apply
  where it cannot (``service.app.body_rules``).
- The event stream's messages: one schema per event type
  (``service.streams.events.STREAM_EVENTS``).
- Every operation states its security: a seat's or a sheet's token, or none (``security: []``);
  a token that is optional is in ``x-optional-security`` and the description (see
  ``_operation_finished``); every response header its schema.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec
from litestar import Litestar, Request
from litestar.handlers import BaseRouteHandler
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.routes import HTTPRoute

from service.app.body_rules import rules_between_fields_stated
from service.app.links import finish_document
from service.http.openapi_declarations import APP_KEY, PLAYER_KEY, SEAT_TOKEN, SECURITY_SCHEMES
from service.http.problems import PROBLEM_MEDIA_TYPE
from service.http.route_policy import limits_of, openapi_of
from service.http.wire import Out, Strict
from service.streams import events as event_stream

# -- the second stage: the document as a dict -----------------------------------------------------

_JSON_TYPES: Final = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def _json_type(value: Any) -> str:
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "null")


def _structs() -> dict[str, type[msgspec.Struct]]:
    """Every wire struct by name, in service.wire or a module of its own (service.sheets.wire)."""
    found: dict[str, type[msgspec.Struct]] = {}
    pending: list[type[msgspec.Struct]] = [Strict, Out]
    while pending:
        struct = pending.pop()
        for sub in struct.__subclasses__():
            if found.setdefault(sub.__name__, sub) is not sub:
                raise ValueError(f"two wire structs are named {sub.__name__}")
            pending.append(sub)
    return found


def _event_schemas() -> dict[str, dict[str, Any]]:
    """A schema per event type of the stream, and ``GameStreamMessage``, any one of them.

    Each describes one message as an SSE reader parses it, the way OpenAPI 3.2 describes a
    stream's items (and schemathesis reads the ``schema`` of a ``text/event-stream`` in 3.1):
    its ``event``, its ``id``, and its ``data``, a line of JSON of the event's struct
    (``contentMediaType``, ``contentSchema``)."""
    schemas: dict[str, dict[str, Any]] = {}
    mapping: dict[str, str] = {}
    for event, struct, description in event_stream.STREAM_EVENTS:
        name = "".join(part.title() for part in event.split("_")) + "Message"
        mapping[event] = f"#/components/schemas/{name}"
        schemas[name] = {
            "title": name,
            "description": description,
            "type": "object",
            "properties": {
                "event": {"type": "string", "enum": [event]},
                "id": {
                    "type": "string",
                    "description": "The game's version once it happened: resume after it with "
                    "`Last-Event-ID`.",
                },
                "data": {
                    "type": "string",
                    "description": f"`{struct.__name__}` as JSON.",
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": f"#/components/schemas/{struct.__name__}"},
                },
            },
            "required": ["event", "data"],
        }
    schemas["GameStreamMessage"] = {
        "title": "GameStreamMessage",
        "description": (
            "One message of `GET /v1/games/{game_id}/events`: its SSE `event` type, `id` and "
            "`data` (JSON of the type's struct). Comments (`: keep-alive`) carry nothing."
        ),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "event", "mapping": mapping},
    }
    return schemas


_OPTIONAL: Final = {
    SEAT_TOKEN: (
        " With a seat's token (`seatToken`, `Authorization: Bearer <token>`, or the key of the "
        "seat's player), it answers as that seat sees it; without one, the public view."
    ),
    PLAYER_KEY: (
        " With a player's key (`playerKey`, `Authorization: Bearer <key>`), a seat for "
        '`{"me": true}` is that player\'s; without one, seats are named.'
    ),
    APP_KEY: " Without an app's key (`appKey`), the player is no app's.",
}
"""What an operation's description says of the token it takes without needing it."""


_CLIENT_SCHEMES: Final = frozenset(_OPTIONAL)
"""The tokens a generated client's user holds: an operation that takes one without needing it
states it in ``x-optional-security``, so that a plain client calls it."""


_RATE_LIMITED: Final = {
    "description": "Too many requests from this client address (`RATE_LIMIT_PER_MINUTE`, and "
    "the daily quotas `CREATIONS_PER_DAY` and `CLAIMS_PER_DAY`); see Retry-After",
    "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def _walk(node: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    """``visit`` every object under ``node``, deepest first, but not inside values (examples,
    defaults, links' request bodies), which are not schemas."""
    if isinstance(node, list):
        for item in node:
            _walk(item, visit)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key not in ("examples", "example", "default", "links", "enum"):
                _walk(value, visit)
        visit(node)


def _typed_enum(schema: dict[str, Any]) -> None:
    values = schema.get("enum")
    if not isinstance(values, list) or "type" in schema:
        return
    types = sorted({_json_type(value) for value in values})
    if len(types) == 1:
        schema["type"] = types[0]
        return
    del schema["enum"]
    schema["anyOf"] = [
        {"type": kind, "enum": [value for value in values if _json_type(value) == kind]}
        for kind in types
    ]


def _single_union_flattened(schema: dict[str, Any]) -> None:
    for key in ("oneOf", "anyOf"):
        items = schema.get(key)
        if isinstance(items, list) and len(items) == 1 and not set(items[0]) & set(schema):
            schema.update(schema.pop(key)[0])


def _default_described(schema: dict[str, Any]) -> None:
    """A request field's default in its description (a null default says nothing more)."""
    for field in (schema.get("properties") or {}).values():
        default = field.pop("default", None)
        if default is not None:
            text = msgspec.json.encode(default).decode()
            field["description"] = f"{field.get('description', '')} Default: `{text}`.".strip()


def _struct_doc_as_markdown(schema: dict[str, Any]) -> None:
    """A struct's docstring (msgspec's description of its schema), its reST literals as
    Markdown and its lines joined. (Each field's description is declared on the field, in its
    ``Meta``.)"""
    if "description" in schema:
        schema["description"] = " ".join(schema["description"].replace("``", "`").split())


def finished(document: dict[str, Any], handlers: Mapping[str, BaseRouteHandler]) -> dict[str, Any]:
    """The document ``document`` finished (a copy): see this module's docstring. ``handlers``:
    the app's route handlers by operation id, for what each route declares of itself."""
    document = copy.deepcopy(document)
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    structs = _structs()
    named = [structs[name] for name in schemas if name in structs]
    named += [struct for _, struct, _ in event_stream.STREAM_EVENTS]
    _, wire_schemas = msgspec.json.schema_components(
        named, ref_template="#/components/schemas/{name}"
    )
    schemas.update(wire_schemas)
    for name in wire_schemas:
        _struct_doc_as_markdown(schemas[name])
    schemas.update(_event_schemas())
    rules_between_fields_stated(schemas)
    for name, struct in structs.items():
        if issubclass(struct, Strict) and name in schemas:
            _default_described(schemas[name])
    document["components"]["securitySchemes"] = SECURITY_SCHEMES
    for item in document.get("paths", {}).values():
        for method, operation in item.items():
            if method in ("get", "put", "post", "delete", "patch"):
                _operation_finished(operation, handlers.get(operation.get("operationId", "")))
    # A struct only a route's own declaration names (a streamed line's, say): described too.
    declared = [structs[name] for name in _refs(document.get("paths", {})) - set(schemas)]
    if declared:
        _, more = msgspec.json.schema_components(
            declared, ref_template="#/components/schemas/{name}"
        )
        for name, schema in more.items():
            if name not in schemas:
                schemas[name] = schema
                _struct_doc_as_markdown(schema)
    schemas = dict(sorted(schemas.items()))
    document["components"]["schemas"] = schemas
    _walk(document, _typed_enum)
    _walk(document, _single_union_flattened)
    return document


def _refs(node: Any) -> set[str]:
    """The names of the component schemas ``node`` refers to."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        found = {ref.rsplit("/", 1)[-1]} if isinstance(ref, str) else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(item) for item in node))
    return set()


def _operation_finished(operation: dict[str, Any], handler: BaseRouteHandler | None) -> None:
    """Its security stated (none: ``[]``), a 429 where its route is rate limited, every
    response header's schema, and what its route declares beyond the framework
    (``route_policy``'s ``openapi`` fragment)."""
    security = operation.setdefault("security", [])
    if {} in security and any(_CLIENT_SCHEMES & set(requirement) for requirement in security):
        # A token the operation takes but does not need. As ``[{seatToken: []}, {}]`` it is
        # right, but openapi-python-client types every operation with a requirement as needing
        # an ``AuthenticatedClient`` (whose empty token breaks httpx): the requirement is kept
        # in ``x-optional-security`` and the description, and ``security`` says none is needed.
        # (``/metrics``' ``[{metricsToken: []}, {}]`` stays: a scraper calls it, not a client.)
        operation["x-optional-security"] = [requirement for requirement in security if requirement]
        operation["security"] = []
        scheme = next(name for requirement in security for name in requirement)
        optional = _OPTIONAL[scheme]
        operation["description"] = (operation.get("description", "") + optional).strip()
    if handler is not None and limits_of(handler):
        operation["responses"].setdefault("429", copy.deepcopy(_RATE_LIMITED))
    for response in operation.get("responses", {}).values():
        for header in (response.get("headers") or {}).values():
            header.setdefault("schema", {"type": "string"})
    if handler is not None:
        _merged(operation, openapi_of(handler))
    for response in operation.get("responses", {}).values():
        # A streamed answer (``Stream``) that declares its own contents: the framework adds an
        # empty JSON schema beside them, which says nothing and is never sent.
        content = response.get("content") or {}
        if len(content) > 1 and content.get("application/json") == {"schema": {}}:
            del content["application/json"]


def _merged(target: dict[str, Any], fragment: Mapping[str, Any]) -> None:
    """``fragment`` merged into ``target``: objects key by key, any other value replacing."""
    for key, value in fragment.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _merged(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def _handlers_by_operation(app: Litestar) -> dict[str, BaseRouteHandler]:
    return {
        handler.operation_id: handler
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if isinstance(handler.operation_id, str)
    }


SERVED_DOCUMENT_KEY: Final = "openapi_document"
"""Where an app's state keeps its finished document."""


def served_document(app: Litestar) -> dict[str, Any]:
    """The document ``app`` serves, both stages done once, on its first use."""
    document: dict[str, Any] | None = app.state.get(SERVED_DOCUMENT_KEY)
    if document is None:
        handlers = _handlers_by_operation(app)
        generated = finish_document(app, handlers).to_schema()
        document = app.state[SERVED_DOCUMENT_KEY] = finished(generated, handlers)
    return document


class FinishedJsonRenderPlugin(JsonRenderPlugin):
    """``/schema/openapi.json``: the finished document."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, served_document(request.app))


class FinishedSwaggerRenderPlugin(SwaggerRenderPlugin):
    """Swagger UI on the finished document."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, served_document(request.app))

"""The first stage of finishing the OpenAPI document (``service.app.document``), on
Litestar's document objects: Litestar's own error bodies out (every error is a problem), and the
links from a response to the operations it leads to, as each route declares them
(``service.http.route_policy``), so a client, or schemathesis's stateful phase, can follow a game
from its creation to a seat claimed by its invite code and on to that seat's views and turns, and
a sheet from its creation to its rounds.
"""

from __future__ import annotations

from collections.abc import Mapping

from litestar import Litestar
from litestar.handlers import BaseRouteHandler
from litestar.openapi.spec import Link, OpenAPI, OpenAPIResponse, Operation, Reference, Schema

from service.http.route_policy import RouteLink, links_of


def _link(link: RouteLink) -> Link:
    parameters = dict(link.parameters)
    if link.body is None:
        return Link(operation_id=link.operation_id, parameters=parameters)
    return Link(operation_id=link.operation_id, parameters=parameters, request_body=link.body)


def _operations(document: OpenAPI) -> list[Operation]:
    found: list[Operation] = []
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            if operation is not None:
                found.append(operation)
    return found


def finish_document(app: Litestar, handlers: Mapping[str, BaseRouteHandler]) -> OpenAPI:
    """The first stage, on Litestar's document objects: its own error bodies out, and in, the
    links each route declares (``route_policy``; ``handlers`` by operation id)."""
    document = app.openapi_schema
    for operation in _operations(document):
        responses = operation.responses or {}
        for status in [s for s, r in responses.items() if _is_litestar_error_body(r)]:
            del responses[status]
        handler = handlers.get(operation.operation_id or "")
        for status, links in ({} if handler is None else links_of(handler)).items():
            response = responses.get(status)
            if isinstance(response, OpenAPIResponse):
                response.links = {name: _link(link) for name, link in links.items()}
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

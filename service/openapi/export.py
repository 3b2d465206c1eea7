"""The OpenAPI document the app serves at ``/schema/openapi.json``, as ``python -m
service.openapi`` prints it (``make openapi`` writes it to ``openapi/openapi.json``)."""

from __future__ import annotations

import json
from typing import Any

from service.app import create_app
from service.app.document import served_document
from service.settings import Settings


def document() -> dict[str, Any]:
    """The document exactly as served (the same dict the JSON render plugin encodes)."""
    return served_document(create_app(Settings()))


def render(schema: dict[str, Any]) -> str:
    """Stable text for the committed file: sorted keys, two-space indent, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

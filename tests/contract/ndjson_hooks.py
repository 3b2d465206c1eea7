"""schemathesis hooks for the NDJSON body of ``POST /v1/analyse/batch`` (schemathesis knows JSON,
forms and text, not NDJSON): a generated value is sent as one line of JSON, an entry. Loaded by
schemathesis.toml (``hooks``) for the live run, and imported by the in-process one."""

from __future__ import annotations

import json
from typing import Any

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def one_ndjson_line(ctx: Any, value: Any) -> bytes:
    return json.dumps(value).encode() + b"\n"

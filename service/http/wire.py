"""The bases of every JSON body (``Strict`` requests, ``Out`` responses) and the problem details
every error answers with.

Requests decode strictly (``service.http.strict_body``): unknown fields are refused, and the
constraints live in each feature's ``wire`` module, in ``Annotated`` aliases, so the OpenAPI
document states them and the handlers never re-check them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import msgspec
from msgspec import Meta

# Bodies are plain trees of values, never in a reference cycle: so their structs are left out of
# the garbage collector's tracking (``gc=False``), which makes each one cheaper to make and free.


def utc_time(timestamp: float) -> str:
    """A Unix time as every answer shows times: ISO 8601, UTC, to the millisecond, ``Z``."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Strict(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True, gc=False):
    """Base of every request body: a field the API does not know is an error, not ignored."""


class Out(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Base of every response body."""


class FieldError(Out, frozen=True):
    field: str
    message: str


class Problem(Out, frozen=True):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    field: Annotated[
        str | None,
        Meta(
            description=(
                "For an error about one input field: its path, such as `hand[2]` or `rules.aces`."
            )
        ),
    ] = None
    errors: list[FieldError] | None = None

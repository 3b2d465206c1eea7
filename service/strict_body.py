"""Strict decoding of request bodies, before Litestar's own lenient conversion.

Litestar converts bodies with ``strict=False`` (so ``"3"`` would pass as the integer 3). The API
promises that a body is exactly what the schema says, so a ``before_request`` hook decodes each
body strictly with msgspec first and turns the first error into a 422 naming the field. A body
that passes decodes identically under the lenient rules afterwards.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
from litestar import Request

from service.problems import BodyNotJson, InvalidField, field_of_validation_message


@cache
def _decoder(body_type: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(body_type)


async def decode_body_strictly(request: Request[Any, Any, Any]) -> None:
    parameter = request.route_handler.parsed_fn_signature.parameters.get("data")
    if parameter is None:
        return
    body = await request.body()
    try:
        _decoder(parameter.annotation).decode(body)
    except msgspec.ValidationError as exc:
        field, message = field_of_validation_message(str(exc))
        raise InvalidField(f"{field}: {message}", field=field) from None
    except msgspec.DecodeError as exc:
        raise BodyNotJson(f"the body is not JSON: {exc}") from None

"""Strict decoding of request bodies, before Litestar's own lenient conversion.

Litestar converts bodies with ``strict=False`` (so ``"3"`` would pass as the integer 3) and
answers a mismatch with a 400 listing messages. The API promises that a body is exactly what the
schema says, and a 422 naming the field: so a ``before_request`` hook reads the body through the
request (Litestar's own reader, with its size limit and errors), checks its depth and numbers
(``service.http.body_limits``: msgspec has no depth limit of its own), decodes it strictly with
msgspec into the handler's declared type, and turns the first error into that 422. The value is
kept in the request's state, and the app's request class (``StrictBodyRequest``) answers it as
the request's JSON, which Litestar then hands to the handler as it is (its conversion leaves a
value of the declared type alone), so a body is decoded once. Both are the framework's public hooks
(``before_request``, ``request_class``).

Numbers are read as JSON Schema reads them (the OpenAPI document's dialect): a number with no
fractional part is an integer, so a seat sent as ``1.0`` (or ``1e0``) is the seat 1, where
msgspec's strict mode would refuse a float. A body is first decoded straight into the handler's
type; one that this refuses is decoded to plain values, a number that is whole as the int it
is, and msgspec then converts them, as strictly as ever (``"1"`` stays a string, ``1.5`` stays
refused), into the handler's type, or names the problem. The request types hold no float and
no ``Any`` (where a whole number would read differently), so both reads give the same value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import cache
from http import HTTPStatus
from typing import Any, Final

import msgspec
from litestar import Request
from litestar.exceptions import HTTPException

from engine import CardCodeError, parse_card, parse_rank
from service.http.body_limits import check_json_limits
from service.http.field_messages import explained
from service.http.problems import (
    BodyNotJson,
    BodyTooLarge,
    InvalidField,
    field_of_validation_message,
)

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
# Fields whose pattern is a card or a rank code: a mismatch is explained by the engine's parser,
# which names the code and says what a valid one looks like.
_PARSERS = {"hand": parse_card, "cards": parse_card, "card": parse_card, "wild": parse_rank}


STRICT_BODY_KEY: Final = "strict_body"
"""The key of the strictly decoded body in the request's state."""


async def decode_body_strictly(request: Request[Any, Any, Any]) -> None:
    parameter = request.route_handler.parsed_fn_signature.parameters.get("data")
    if parameter is None:
        return
    try:
        body = await request.body()
    except HTTPException as exc:
        limit = request.route_handler.resolve_request_max_body_size()
        if exc.status_code != HTTPStatus.REQUEST_ENTITY_TOO_LARGE or limit is None:
            raise
        raise BodyTooLarge(
            f"the body is larger than this service's limit of {limit} bytes (MAX_BODY_BYTES)"
        ) from None
    request.state[STRICT_BODY_KEY] = decoded_strictly(body, parameter.annotation)


def decoded_strictly(body: bytes, body_type: Any) -> Any:
    """``body`` as a value of ``body_type``, exactly as a route that declares it as its ``data``
    reads it: its depth and numbers checked, then decoded strictly; or the problem with it.
    (``POST /v1/analyse/batch`` reads each of its entries so.)"""
    check_json_limits(body)
    return strict_decoder(body_type)(body)


class StrictBodyRequest(Request[Any, Any, Any]):
    """The app's request: its JSON is the body ``decode_body_strictly`` decoded, when it did."""

    async def json(self) -> Any:
        state = self.state  # a new State around the scope's each time it is read
        if STRICT_BODY_KEY in state:
            return state[STRICT_BODY_KEY]
        return await super().json()


@cache
def strict_decoder(body_type: Any) -> Callable[[bytes], Any]:
    """A body → its value of ``body_type``, or the problem of its first error."""

    typed = msgspec.json.Decoder(body_type)

    def decode(body: bytes) -> Any:
        # A typed decoder first: one pass from the bytes to the value, where a body of plain
        # values ends, and the same value the plain read below converts (strictly both; a
        # typed read of a tagged union takes a tenth of the conversion's time). What it refuses
        # goes the plain way, which reads JSON Schema's whole numbers and names the problem.
        try:
            return typed.decode(body)
        except msgspec.MsgspecError:
            pass
        try:
            return msgspec.convert(_plain.decode(body), body_type)
        except msgspec.ValidationError as exc:
            field, message = field_of_validation_message(str(exc))
            raise InvalidField(
                f"{field}: {_explained(body_type, field, message, body)}", field=field
            ) from None
        except msgspec.DecodeError as exc:
            raise BodyNotJson(f"the body is not JSON: {exc}") from None

    return decode


_INT_RANGE: Final = 2**64
"""Past every integer field's range: a larger whole number stays a float (and is refused),
and is never turned into an int of thousands of digits."""


def _number(text: str) -> int | float:
    """A JSON number (msgspec's ``float_hook``, for a number with a fraction or an exponent):
    the int it is when it is whole (exactly, as a decimal), else the float."""
    value = float(text)
    if abs(value) <= _INT_RANGE:
        exact = Decimal(text)
        if exact == exact.to_integral_value():
            return int(exact)
    return value


_plain: Final = msgspec.json.Decoder(float_hook=_number)


def _explained(body_type: Any, field: str, message: str, body: bytes) -> str:
    """For a card or rank code that misses its pattern, the engine's message; else msgspec's,
    with what the field allows (``service.http.field_messages``)."""
    if "matching regex" not in message:
        return explained(body_type, field, message)
    steps = _STEP.findall(field)
    parse = _PARSERS.get(next((name for name, _ in reversed(steps) if name), ""))
    if parse is None:
        return explained(body_type, field, message)
    value: Any = msgspec.json.decode(body)
    for name, index in steps:
        value = value[name] if name else value[int(index)]
    try:
        parse(value)
    except CardCodeError as error:
        return str(error)
    return message  # pragma: no cover - the pattern and the parser accept the same codes

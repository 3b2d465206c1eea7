"""Strict decoding of request bodies, once, before Litestar's own lenient conversion.

Litestar converts bodies with ``strict=False`` (so ``"3"`` would pass as the integer 3). The API
promises that a body is exactly what the schema says, so a ``before_request`` hook decodes each
body strictly with msgspec first and turns the first error into a 422 naming the field. The body
and the value decoded from it become the request's own, so Litestar neither reads nor decodes
the body again (its conversion leaves a value of the declared type as it is).

Every analyse request pays for this, so it is cheap:

- the body is read straight from the ASGI messages, with Litestar's size limit and errors
  (Litestar's own reading builds a map of every header and an async generator first);
- a hand's card codes would cost a regular expression each in msgspec's checks of their pattern,
  most of the cost of decoding the request. So an analyse body is decoded without the codes'
  patterns first, and its codes looked up among those the patterns have already accepted (a few
  hundred spellings at most); only a body that fails there is decoded again the strict way,
  whose first error is the answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from functools import cache
from typing import Annotated, Any, Final, get_args

import msgspec
from litestar import Request
from litestar.exceptions import ClientException, InternalServerException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.utils.scope.state import ScopeState

from engine import CardCodeError, parse_card, parse_rank
from service import wire
from service.problems import BodyNotJson, InvalidField, field_of_validation_message

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
# Fields whose pattern is a card or a rank code: a mismatch is explained by the engine's parser,
# which names the code and says what a valid one looks like.
_PARSERS = {"hand": parse_card, "cards": parse_card, "card": parse_card, "wild": parse_rank}


async def decode_body_strictly(request: Request[Any, Any, Any]) -> None:
    parameter = request.route_handler.parsed_fn_signature.parameters.get("data")
    if parameter is None:
        return
    body_type = parameter.annotation
    state = ScopeState.from_scope(request.scope)
    body = state.body = await read_body(request)
    decode = (
        decode_analyse_request if body_type is wire.AnalyseRequest else strict_decoder(body_type)
    )
    state.json = decode(body)


async def read_body(request: Request[Any, Any, Any]) -> bytes:
    """The body, as ``Request.body()`` reads it: the same size limit, the same errors."""
    limit = request.route_handler.resolve_request_max_body_size() or math.inf
    announced = -1
    for name, value in request.scope["headers"]:  # ASGI header names are lower case
        if name == b"content-length":
            try:
                announced = int(value)
            except ValueError:
                raise ClientException(
                    f"Invalid content-length: {value.decode('latin-1')!r}"
                ) from None
            if announced > limit:
                raise RequestEntityTooLarge
            break
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise InternalServerException("client disconnected prematurely")
        if message["type"] != "http.request":
            continue
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise RequestEntityTooLarge
        chunks.append(chunk)
        # Every byte announced has come: granian would still answer one more receive, with an
        # empty last chunk, at the price of a round trip through its Rust threads.
        if size == announced or not message.get("more_body", False):
            request.is_connected = False
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


@cache
def strict_decoder(body_type: Any) -> Callable[[bytes], Any]:
    """A body → its value of ``body_type``, or the problem of its first error."""
    decoder = msgspec.json.Decoder(body_type)

    def decode(body: bytes) -> Any:
        try:
            return decoder.decode(body)
        except msgspec.ValidationError as exc:
            field, message = field_of_validation_message(str(exc))
            raise InvalidField(
                f"{field}: {_explained(field, message, body)}", field=field
            ) from None
        except msgspec.DecodeError as exc:
            raise BodyNotJson(f"the body is not JSON: {exc}") from None

    return decode


def _explained(field: str, message: str, body: bytes) -> str:
    """msgspec's message, or for a card or rank code that misses its pattern, the engine's."""
    if "matching regex" not in message:
        return message
    steps = _STEP.findall(field)
    parse = _PARSERS.get(next((name for name, _ in reversed(steps) if name), ""))
    if parse is None:
        return message
    value: Any = msgspec.json.decode(body)
    for name, index in steps:
        value = value[name] if name else value[int(index)]
    try:
        parse(value)
    except CardCodeError as error:
        return str(error)
    return message  # pragma: no cover - the pattern and the parser accept the same codes


# -- the analyse request --------------------------------------------------------------------------


class AnalyseRequestUnchecked(wire.Strict, frozen=True):
    """``wire.AnalyseRequest`` without the patterns of its card and rank codes (the same fields:
    the cheap path builds the request from them)."""

    hand: Annotated[list[str], get_args(wire.Hand)[1]]
    wild: str | None = None
    round: wire.RoundNumber | None = None
    rules: wire.RulesSpec = "classic"


class _AcceptedCodes:
    """The codes that the pattern of a code type of the wire has accepted so far."""

    def __init__(self, code_type: Any) -> None:
        self._pattern = re.compile(get_args(code_type)[1].pattern)
        self._accepted: set[str] = set()

    def accept(self, codes: Collection[str]) -> bool:
        if self._accepted.issuperset(codes):
            return True
        for code in codes:
            if self._pattern.search(code) is None:  # as msgspec matches a pattern
                return False
            self._accepted.add(code)
        return True


_UNCHECKED: Final = msgspec.json.Decoder(AnalyseRequestUnchecked)
_CARD_CODES: Final = _AcceptedCodes(wire.CardCode)
_RANK_CODES: Final = _AcceptedCodes(wire.RankCode)


def decode_analyse_request(body: bytes) -> wire.AnalyseRequest:
    """What ``strict_decoder(wire.AnalyseRequest)`` answers, at a fraction of the cost."""
    try:
        unchecked = _UNCHECKED.decode(body)
    except msgspec.MsgspecError:
        unchecked = None
    if (
        unchecked is None
        or not _CARD_CODES.accept(unchecked.hand)
        or not (unchecked.wild is None or _RANK_CODES.accept((unchecked.wild,)))
    ):
        # Again the strict way, for its first error (or the value, should it find none).
        value: wire.AnalyseRequest = strict_decoder(wire.AnalyseRequest)(body)
        return value
    return wire.AnalyseRequest(
        hand=unchecked.hand, wild=unchecked.wild, round=unchecked.round, rules=unchecked.rules
    )

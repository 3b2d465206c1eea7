"""Limits on a body's shape, checked before any decoder sees it.

msgspec and the standard library's ``json`` both decode nested arrays and objects by recursion
and have no depth option: 500,000 ``[`` reach the interpreter's recursion limit (a
``RecursionError``, which is no client's business to cause), and ``json`` turns a 100,000-digit
number into an int, past the interpreter's 4,300-digit guard (a ``ValueError``). So every body
a route decodes as JSON is first scanned here, in linear time and without recursion, and one
past a limit is a 422 naming the limit (``BodyBeyondLimits``). A record in the text notation
has no nesting, but its numbers go through ``int`` too: it is held to the same digits.

The scan works on the body with its strings taken out (a ``[`` or a digit inside a string is
text, not structure): what is left is brackets, numbers, literals, commas and colons. The depth
is the running sum of openers (+1) and closers (-1), taken with ``itertools.accumulate`` over a
signed view of the bytes: every step is one pass in C, never a Python loop over the bytes. A
body that is not JSON at all may pass or be refused here; either way the decoder that follows
names what is wrong.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any, Final

from litestar import Request

from service.http.problems import BodyBeyondLimits, BodyTooLarge

MAX_JSON_DEPTH: Final = 32
"""Arrays and objects nested at most this deep: a game record's JSON form, the deepest body the
API takes, nests 9 (``tests/service/test_hostile_bodies.py`` measures it)."""
MAX_NUMBER_DIGITS: Final = 20
"""Digits in a row in a number at most (its integer part, its fraction or its exponent): every
integer the API takes fits in 64 bits (20 digits), and a float holds 17 significant digits."""

_LONG_NUMBER: Final = re.compile(rb"[0-9]{%d,}" % (MAX_NUMBER_DIGITS + 1))
_STEPS: Final = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS: Final = bytes(sorted(set(range(256)) - set(b"[{]}")))


def check_json_limits(body: bytes) -> None:
    """Refuse (``BodyBeyondLimits``, a 422) a body nested deeper than ``MAX_JSON_DEPTH`` or with
    a number with more than ``MAX_NUMBER_DIGITS`` digits in a row."""
    structure = without_strings(body)
    check_depth(structure, MAX_JSON_DEPTH)
    check_number_digits(structure)


def check_depth(structure: bytes, most: int) -> None:
    """Refuse (``BodyBeyondLimits``, a 422) a body (its strings already taken out) nested deeper
    than ``most``: ``MAX_JSON_DEPTH``, or one more for an array of bodies, each held to it."""
    depth = deepest(structure)
    if depth > most:
        raise BodyBeyondLimits(
            f"the body nests arrays and objects {depth} deep; this service takes at most "
            f"{most} (MAX_JSON_DEPTH{'' if most == MAX_JSON_DEPTH else ', within each entry'})",
            field="$",
        )


def check_number_digits(body: bytes) -> None:
    """Refuse (``BodyBeyondLimits``, a 422) a body with a run of more than
    ``MAX_NUMBER_DIGITS`` digits (for a JSON body, outside its strings)."""
    long = _LONG_NUMBER.search(body)
    if long is not None:
        raise BodyBeyondLimits(
            f"the body holds a number with a run of {len(long[0])} digits; this service takes "
            f"at most {MAX_NUMBER_DIGITS} (MAX_NUMBER_DIGITS)",
            field="$",
        )


def without_strings(body: bytes) -> bytes:
    """The body with every string taken out, quotes and all (a string never closed, to its end).

    Inside a JSON string a backslash always starts a pair (``\\\\``, ``\\"``, ``\\n``, ...), and
    outside one it is not JSON: so the escaped backslashes, then the escaped quotes, are taken
    out first, and every quote left opens or closes a string. Splitting at them leaves the text
    outside strings at the even places. Each step is one pass in C (a regular expression that
    matches whole strings takes a hundred times as long on a record of short strings)."""
    pieces = body.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
    return b"".join(pieces[::2])


def deepest(structure: bytes) -> int:
    """The deepest nesting of brackets in ``structure`` (strings already taken out)."""
    steps = memoryview(structure.translate(_STEPS, _NOT_BRACKETS)).cast("b")
    return max(accumulate(steps), default=0)


async def body_within(request: Request[Any, Any, Any], most: int, setting: str) -> bytes:
    """The request's body, refused (``BodyTooLarge``, a 413 naming ``setting``) as soon as its
    ``Content-Length``, or the bytes received so far, pass ``most``: for a route whose bound is
    a setting of its own (its ``request_max_body_size`` the most that setting may be) rather
    than ``MAX_BODY_BYTES``."""

    def too_large() -> BodyTooLarge:
        return BodyTooLarge(
            f"the body is larger than this service's limit of {most} bytes ({setting})"
        )

    announced = request.headers.get("content-length")
    if announced is not None and announced.isdigit() and int(announced) > most:
        raise too_large()
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > most:
            raise too_large()
        chunks.append(chunk)
    return b"".join(chunks)

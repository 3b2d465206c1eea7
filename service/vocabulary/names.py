"""Display names on the wire: the engine's one rule (``engine.names``: nothing invisible,
nothing that renders as something other than it reads, a bounded number of combining marks, one
canonical spelling), stated for clients and applied to what they send.

``NAME_PATTERN`` states the refused characters of the Basic Multilingual Plane in the wire's
pattern (so the OpenAPI document says it and clients can check it); ``display_name`` checks
them all, and the combining marks, which a pattern cannot count.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from engine.names import canonical_name, name_fault, refused_char
from service.http.problems import InvalidField


def _in_pattern(point: int) -> bool:
    """Refused and stated in ``NAME_PATTERN``: unassigned code points are left to
    ``display_name`` (a client's newer Unicode may assign them), surrogates too (below)."""
    char = chr(point)
    return refused_char(char) and unicodedata.category(char) not in ("Cs", "Cn")


def _refused_class() -> str:
    """The refused characters of the BMP as the body of a regular expression's character class
    (``\\uXXXX`` ranges, which Python and the JSON Schema dialect both read).

    Surrogates (Cs) are left out: no JSON body decodes to one (msgspec refuses a lone surrogate
    escape), and the Unicode-mode regex engines of clients and test tools (Rust's, in
    schemathesis; ECMA's ``u`` flag) refuse them in a class. ``display_name`` refuses them all
    the same."""
    ranges: list[tuple[int, int]] = []
    for point in range(0x10000):
        if not _in_pattern(point):
            continue
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    return "".join(
        f"\\u{low:04x}" if low == high else f"\\u{low:04x}-\\u{high:04x}" for low, high in ranges
    )


_REFUSED: Final = _refused_class()
NAME_PATTERN: Final = f"^[^{_REFUSED}]*[^{_REFUSED}\\s][^{_REFUSED}]*$(?!\\n)"
"""A name: no refused character of the BMP, at least one that is not a space."""


def display_name(raw: str, field: str) -> str:
    """``raw`` as a name is kept (``engine.names``: NFC, its ends stripped of spaces);
    InvalidField naming ``field`` if the engine's rule refuses it."""
    name = canonical_name(raw)
    fault = name_fault(name)
    if fault is not None:
        raise InvalidField(f"{field}: {fault}", field=field)
    return name

"""Display names as every view shows them: one canonical spelling, nothing invisible or unbounded.

A name is shown to every seat and to the public, so it must not carry what renders as something
other than it reads: control characters (NUL, newlines, escapes), format characters (zero-width
spaces and joiners, bidirectional overrides that reverse the text around them), surrogates, line
and paragraph separators. Combining marks are bounded per letter: real scripts stack two or
three (Vietnamese, Hebrew points), a "Zalgo" name stacks dozens that spill over the lines
around it. Nor may it hold what renders as nothing, so that a name looks empty or two names look
alike: the default-ignorable code points (U+034F, the Hangul fillers U+115F and U+3164, ...), the
blank Braille pattern U+2800, private-use characters and code points no character is assigned
to (noncharacters like U+FFFF among them). The name kept is the NFC normalisation of what was
sent, so two spellings of "é" are the same name.

``NAME_PATTERN`` states the refused characters of the Basic Multilingual Plane in the wire's
pattern (so the OpenAPI document says it and clients can check it); ``display_name`` checks
them all, and the combining marks, which a pattern cannot count.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from service.http.problems import InvalidField

MAX_COMBINING_MARKS: Final = 3
"""Combining marks allowed in a row after one base character."""

_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_COMBINING_CATEGORIES: Final = frozenset({"Mn", "Me"})
_INVISIBLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Characters that render as nothing whatever their category: Unicode's default-ignorable code
points (DerivedCoreProperties.txt) but the variation selectors, which choose how the character
before them looks (an emoji's colour form), and the blank Braille pattern U+2800."""


def _refused_char(char: str) -> bool:
    point = ord(char)
    return unicodedata.category(char) in _REFUSED_CATEGORIES or any(
        low <= point <= high for low, high in _INVISIBLE
    )


def _in_pattern(point: int) -> bool:
    """Refused and stated in ``NAME_PATTERN``: unassigned code points are left to
    ``display_name`` (a client's newer Unicode may assign them), surrogates too (below)."""
    char = chr(point)
    return _refused_char(char) and unicodedata.category(char) not in ("Cs", "Cn")


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
    """``raw`` in NFC with its ends stripped of spaces; InvalidField naming ``field`` if it
    holds a character a name may not, or more than ``MAX_COMBINING_MARKS`` marks on a letter."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise InvalidField(f"{field}: a name needs a visible character", field=field)
    marks = 0
    for position, char in enumerate(name):
        if _refused_char(char):
            raise InvalidField(
                f"{field}: character U+{ord(char):04X} at position {position} is not allowed "
                "in a name (control, format, separator, private-use, unassigned, or a "
                "character that renders as nothing)",
                field=field,
            )
        category = unicodedata.category(char)
        if category not in _COMBINING_CATEGORIES:
            marks = 0
            continue
        marks += 1
        if marks > MAX_COMBINING_MARKS:
            raise InvalidField(
                f"{field}: a name may carry at most {MAX_COMBINING_MARKS} combining marks on "
                f"each letter (position {position})",
                field=field,
            )
    return name

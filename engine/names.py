"""Display names: the one rule every name shown to a table, the public or a record obeys.

A name is shown to every seat and to the public, so it must not carry what renders as something
other than it reads: control characters (NUL, newlines, escapes), format characters (zero-width
spaces and joiners, bidirectional overrides such as U+202E that reverse the text around them),
surrogates, line and paragraph separators. Combining marks are bounded per letter: real scripts
stack two or three (Vietnamese, Hebrew points), a "Zalgo" name stacks dozens that spill over the
lines around it. Nor may it hold what renders as nothing, so that a name looks empty or two
names look alike: the default-ignorable code points (U+034F, the Hangul fillers U+115F and
U+3164, ...), the blank Braille pattern U+2800, private-use characters and code points no
character is assigned to. A name is kept in its canonical form: Unicode NFC, no spaces at its
ends (``canonical_name``), so two spellings of "é" are one name.

``name_fault`` says what is wrong with a name as kept (None when nothing is); the service's
``display_name`` applies the same rule to what a client sends, and a record's players are
checked by it when the record is read (``engine.records``).
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_DISPLAY_NAME: Final = 40
"""The most characters a name has (the wire's ``PlayerName`` states the same bound)."""
MAX_COMBINING_MARKS: Final = 3
"""Combining marks allowed in a row after one base character."""

_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_COMBINING_CATEGORIES: Final = frozenset({"Mn", "Me"})
INVISIBLE: Final = (
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
"""Code point ranges that render as nothing whatever their category: Unicode's default-ignorable
code points (DerivedCoreProperties.txt) but the variation selectors, which choose how the
character before them looks (an emoji's colour form), and the blank Braille pattern U+2800."""


def refused_char(char: str) -> bool:
    """Whether a name may not hold ``char`` (see the module's docstring)."""
    point = ord(char)
    return unicodedata.category(char) in _REFUSED_CATEGORIES or any(
        low <= point <= high for low, high in INVISIBLE
    )


def canonical_name(raw: str) -> str:
    """``raw`` as a name is kept: in NFC, its ends stripped of spaces."""
    return unicodedata.normalize("NFC", raw).strip()


def name_fault(name: str) -> str | None:
    """What is wrong with ``name`` as a kept name, or None: empty, longer than
    ``MAX_DISPLAY_NAME``, not canonical, a refused character, or more than
    ``MAX_COMBINING_MARKS`` marks on one letter. The reason names the position."""
    if not name.strip():
        return "a name needs a visible character"
    if len(name) > MAX_DISPLAY_NAME:
        return f"a name has at most {MAX_DISPLAY_NAME} characters, not {len(name)}"
    marks = 0
    for position, char in enumerate(name):
        if refused_char(char):
            return (
                f"character U+{ord(char):04X} at position {position} is not allowed in a name "
                "(control, format, separator, private-use, unassigned, or a character that "
                "renders as nothing)"
            )
        if unicodedata.category(char) not in _COMBINING_CATEGORIES:
            marks = 0
            continue
        marks += 1
        if marks > MAX_COMBINING_MARKS:
            return (
                f"a name may carry at most {MAX_COMBINING_MARKS} combining marks on each letter "
                f"(position {position})"
            )
    if name != canonical_name(name):
        return "a name is kept in Unicode NFC with no spaces at its ends"
    return None

"""Invite codes: short, easy to read aloud and to type, case-insensitive.

Six symbols from fourteen: no vowels (so no code spells a word), none of the letters that rhyme
when read aloud in English (B C D E G P T V Z, and J beside K), none that look like digits
(I L O S) and no 0 1 2 5 8. That is 14⁶ ≈ 7.5 million codes; a code is unique among waiting
tables because it is reserved before its table is stored (``TableIndex.reserve_code``), and a
clash only draws another. On input, case, spaces and hyphens do not matter.
"""

from __future__ import annotations

import secrets
from typing import Final

ALPHABET: Final = "FHKMNRWXY34679"
LENGTH: Final = 6
_IGNORED: Final = str.maketrans("", "", " -")


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalised(text: str) -> str | None:
    """The canonical code ``text`` spells (``"kmr-x47"`` → ``"KMRX47"``), or None if it cannot
    be one."""
    code = text.translate(_IGNORED).upper()
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code

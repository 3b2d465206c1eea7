"""Invite codes: short, easy to read aloud and to type, case-insensitive.

Eight symbols from fourteen: no vowels (so no code spells a word), none of the letters that
rhyme when read aloud in English (B C D E G P T V Z, and J beside K), none that look like digits
(I L O S) and no 0 1 2 5 8. That is 14⁸ ≈ 1.5 billion codes: with 10,000 tables waiting, a
guesser needs some 147,600 claims for one seat, and a client may claim ``CLAIMS_PER_DAY``
(200) a day, so two years (docs/tables.md). Six symbols (7.5 million codes) were guessed in
30 s. A code is unique among waiting tables because it is reserved before its table is stored
(``TableIndex.reserve_code``), and a clash only draws another. On input, case, spaces and
hyphens do not matter; the six-symbol codes of tables made before are still read.
"""

from __future__ import annotations

import secrets
from typing import Final

ALPHABET: Final = "FHKMNRWXY34679"
LENGTH: Final = 8
_READ_LENGTHS: Final = frozenset({6, LENGTH})
_IGNORED: Final = str.maketrans("", "", " -")


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalised(text: str) -> str | None:
    """The canonical code ``text`` spells (``"kmrx-47fh"`` → ``"KMRX47FH"``), or None if it
    cannot be one."""
    code = text.translate(_IGNORED).upper()
    if len(code) not in _READ_LENGTHS or any(c not in ALPHABET for c in code):
        return None
    return code

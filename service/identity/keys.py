"""Player keys and player ids.

A player key is the player's one credential: 256 random bits after the prefix ``ttp_``, sent
as ``Authorization: Bearer <key>`` wherever a seat token goes. The prefix tells a key from a
seat token without a lookup (a seat token is bare URL-safe base64) and lets secret scanners
recognise a leaked key. Only the key's SHA-256 is stored: a copy of the store grants nothing.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

KEY_PREFIX: Final = "ttp_"
KEY_BYTES: Final = 32
"""256 random bits per key (``KEY_PREFIX`` then 43 URL-safe base64 characters)."""
PLAYER_ID_BYTES: Final = 9
"""72 random bits per player id (12 characters): public, so only unique, not secret."""


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)


def is_player_key(token: str) -> bool:
    """Whether a bearer token is a player key (else it is a seat token, or nothing)."""
    return token.startswith(KEY_PREFIX)


def key_hash(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def new_player_id() -> str:
    return "p" + secrets.token_urlsafe(PLAYER_ID_BYTES)

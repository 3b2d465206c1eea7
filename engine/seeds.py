"""Seeds mixed with a secret: a client's seed never drives a shuffle by itself.

A seat of a game made with a small seed could find the seed, and so every hand and the stock's
order, by trying seeds against what it sees. ``mixed_seed`` turns the client's seed and the
deployment's secret into the seed the engine shuffles with (HMAC-SHA256): the same seed still
gives the same game on the same deployment, and without the secret the seed tells nothing.
``new_game`` keeps taking a plain seed: the service mixes before it calls it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

from engine.errors import GameSetupError

SECRET_BYTES: Final = 32
SEED_BITS: Final = 128
"""Bits of the mixed seed: past any search, and still a plain int for ``new_game``."""
_CONTEXT: Final = b"three-thirteen/seed/"


def new_secret() -> str:
    """A fresh deployment secret, as text (hex) to keep in a store or the environment."""
    return secrets.token_hex(SECRET_BYTES)


def mixed_seed(seed: int, secret: str | bytes) -> int:
    """The seed the engine shuffles with for a client's ``seed`` on the deployment whose secret
    is ``secret``: HMAC-SHA256 of the seed's decimal text, keyed by the secret."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise GameSetupError(f"seed must be an integer, not {seed!r}")
    key = secret.encode() if isinstance(secret, str) else secret
    if not key:
        raise ValueError("the secret must not be empty")
    digest = hmac.new(key, _CONTEXT + str(seed).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[: SEED_BITS // 8], "big")

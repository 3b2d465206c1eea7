"""Stream keys: what a browser ``EventSource`` (which cannot send headers) carries in its URL to
follow one seat's private stream.

A seat's stream key is an HMAC-SHA256 of the game id and seat, keyed by the SHA-256 of the seat's
token that the game record keeps: any instance can check it with nothing stored beside the game,
it is scoped to that seat of that game, it dies with the game (or when the seat is left), and it
reveals nothing of the token, which it never is (sent as a token, it answers 401). It only ever
grants reading the seat's stream.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Final

_KEY_BYTES: Final = 24
"""192 bits of the MAC: far past guessing, and a URL of modest length."""


def stream_key(game_id: str, seat: int, token_hash: bytes) -> str:
    mac = hmac.new(token_hash, f"stream/{game_id}/{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:_KEY_BYTES]).decode()


def seat_of_stream_key(game_id: str, key: str, token_hashes: tuple[bytes, ...]) -> int | None:
    """The seat whose stream key this is, or None; every seat held is compared in constant time."""
    found: int | None = None
    for seat, token_hash in enumerate(token_hashes):
        if token_hash and hmac.compare_digest(
            stream_key(game_id, seat, token_hash).encode(), key.encode()
        ):
            found = seat
    return found

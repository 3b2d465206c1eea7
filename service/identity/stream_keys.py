"""A player's stream key: what a browser ``EventSource`` (which cannot send headers) carries in
its URL to follow the player's stream (``GET /v1/players/me/events?key=…``).

It is the player's id and an HMAC-SHA256 of it keyed by the hash of the player's current key: any
instance checks it against the store, it grants reading the player's stream only, and it dies
when the key is replaced. It reveals nothing of the key, which it never is (as a bearer it is
no player's key: a 401).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Final

_MAC_BYTES: Final = 24
"""192 bits of the MAC: far past guessing, and a URL of modest length."""


def player_stream_key(player_id: str, key_hash: bytes) -> str:
    return f"{player_id}.{_mac(player_id, key_hash)}"


def player_of_stream_key(stream_key: str) -> str | None:
    """The player a stream key claims to be (to be checked with ``holds``), or None."""
    player_id, dot, mac = stream_key.rpartition(".")
    return player_id if dot and player_id and mac else None


def holds(stream_key: str, player_id: str, key_hash: bytes) -> bool:
    """Whether ``stream_key`` is the player's, for its current key (constant time)."""
    return hmac.compare_digest(stream_key.encode(), player_stream_key(player_id, key_hash).encode())


def _mac(player_id: str, key_hash: bytes) -> str:
    mac = hmac.new(key_hash, f"player-stream/{player_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:_MAC_BYTES]).decode()

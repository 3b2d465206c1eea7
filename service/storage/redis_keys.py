"""Where a game's keys live in Redis: every key of a game, and the due moves of every game of its
shard, share one hash tag, so in Redis Cluster they are one slot and one script may write them
all (a commit writes the game, its due entry and its event notice in one atomic step):

    <prefix>:{g<k>}:<game_id>:game          hash: ``v`` = version, ``r`` = record, ``i`` while idle
    <prefix>:{g<k>}:<game_id>:log           list: the game's segments, appended, never rewritten
    <prefix>:{g<k>}:<game_id>:idem:<key>    string: the response saved with an idempotency key
    <prefix>:{g<k>}:<game_id>:driver        string: the instance driving the game (its lease)
    <prefix>:{g<k>}:<game_id>:events        stream: the game's event notices, one per commit
    <prefix>:{g<k>}:due                     sorted set: game id → Unix time its next move is due
    <prefix>:{sweepers}:live                sorted set: sweeping instance → its last sweep

``k = shard_of(game_id)``: the CRC-32 of the id modulo ``SHARDS``. The tag comes before the id,
so no id (a path segment, whatever its braces) can move a game out of its shard. ``SHARDS`` is
fixed: changing it moves every game's keys. Sixty-four tags spread over the masters of a cluster
as evenly as its slots do, and a sweep of them all is sixty-four small scripts.
"""

from __future__ import annotations

import zlib
from typing import Final

SHARDS: Final = 64
"""Shards of the games and their due moves (``g0`` … ``g63``)."""


def shard_of(game_id: str) -> int:
    return zlib.crc32(game_id.encode()) % SHARDS


def _tagged(prefix: str, game_id: str) -> str:
    return f"{prefix}:{{g{shard_of(game_id)}}}:{game_id}"


def game_key(prefix: str, game_id: str) -> str:
    return f"{_tagged(prefix, game_id)}:game"


def log_key(prefix: str, game_id: str) -> str:
    return f"{_tagged(prefix, game_id)}:log"


def idempotency_key(prefix: str, game_id: str, key: str) -> str:
    return f"{_tagged(prefix, game_id)}:idem:{key}"


def driver_key(prefix: str, game_id: str) -> str:
    return f"{_tagged(prefix, game_id)}:driver"


def events_key(prefix: str, game_id: str) -> str:
    return f"{_tagged(prefix, game_id)}:events"


def shard_due_key(prefix: str, shard: int) -> str:
    return f"{prefix}:{{g{shard}}}:due"


def due_key(prefix: str, game_id: str) -> str:
    """The due moves of the game's shard."""
    return shard_due_key(prefix, shard_of(game_id))


def sweepers_key(prefix: str) -> str:
    return f"{prefix}:{{sweepers}}:live"

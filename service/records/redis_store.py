"""Records, reviews and the seed secret in Redis or a Redis Cluster, on the games' own client:

    <prefix>:record:{<record_id>}        an imported record (a state as ``engine.game.dumps``)
    <prefix>:review:<kind>:{<id>}        a finished game's or a record's review (its JSON)
    <prefix>:finished-record:<form>:{<id>}  a finished game's whole record, as answered (expires
                                         when the game does: ``PXAT`` its expiry)
    <prefix>:seed-secret                 the deployment's seed secret (no expiry)
    <prefix>:claim:review:<kind>:{<id>}  the claim on computing a review (expires)
    <prefix>:quota:imports:{<client>}    a client's bytes of records sent today (expires)
    <prefix>:record:{<record_id>}:idem:<key>  an import's saved answer (``Idempotency-Key``)

Each is one string written with ``SET … NX`` (with ``PX`` for those that expire) and read with
``GET``: one round trip each, one slot each on a cluster. An import with an Idempotency-Key is
one small script instead, which writes the record and its saved answer (in the record's slot)
in one atomic step, or neither.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import sent

_T = TypeVar("_T")

# KEYS[1] = the value's key, KEYS[2] = its saved answer's. ARGV: value, its TTL in ms, the
# answer, its TTL in ms. 1 when ours is written (a record is not sent back), else the value there.
_PUT_SAVED_SCRIPT: Final = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
  return 1
end
return redis.call('GET', KEYS[1])
"""


# KEYS[1] = a client's count. ARGV: the amount, the budget, the day in ms. Takes the amount and
# answers what is spent now, or, past the budget, takes nothing and answers minus the ms until
# the count ends (at least 1). The day starts with the first spending (PX only on a new count).
_SPEND_SCRIPT: Final = """
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  return -math.max(1, redis.call('PTTL', KEYS[1]))
end
local now = redis.call('INCRBY', KEYS[1], ARGV[1])
if now == tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return now
"""


class RedisRecordStore:
    """The ``RecordStore`` protocol on the games' Redis client, with its answer to an outage."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        ttl: float,
        key_prefix: str,
        idempotency_ttl: float = 86400,
    ) -> None:
        self.redis = client
        self.key_prefix = key_prefix
        self._ttl_ms = max(1, round(ttl * 1000))
        self._saved_ttl_ms = min(self._ttl_ms, max(1, round(idempotency_ttl * 1000)))
        self._put_saved = client.register_script(_PUT_SAVED_SCRIPT)
        self._spend = client.register_script(_SPEND_SCRIPT)

    def _key(self, key: str) -> str:
        kind, _, some_id = key.rpartition(":")
        return f"{self.key_prefix}:{kind}:{{{some_id}}}" if kind else f"{self.key_prefix}:{key}"

    async def put_new(
        self,
        key: str,
        value: bytes,
        *,
        expires: bool = True,
        idempotency: tuple[str, bytes] | None = None,
        until: float | None = None,
    ) -> bytes:
        name = self._key(key)
        if idempotency is not None:  # (a value saved with an answer always expires)
            if until is not None:
                raise ValueError("a value saved with an answer expires with the records")
            saved_key, answer = idempotency
            keys = [name, f"{name}:idem:{saved_key}"]
            args: list[bytes | int] = [value, self._ttl_ms, answer, self._saved_ttl_ms]
            kept = await self._call(
                lambda: cast("Awaitable[bytes | int | None]", self._put_saved(keys=keys, args=args))
            )
            # Written (1), or expired in between (None): ours is as good.
            return kept if isinstance(kept, bytes) else value
        px = self._ttl_ms if expires and until is None else None
        pxat = None if until is None else round(until * 1000)
        written = await self._call(lambda: self.redis.set(name, value, nx=True, px=px, pxat=pxat))
        if written:
            return value
        kept = await self.get(key)
        return value if kept is None else kept  # expired in between: ours is as good

    async def get(self, key: str) -> bytes | None:
        name = self._key(key)
        return await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))

    async def claim(self, key: str, seconds: float) -> bool:
        name = self._key(key)
        ttl = max(1, round(seconds * 1000))
        return bool(await self._call(lambda: self.redis.set(name, b"1", nx=True, px=ttl)))

    async def release(self, key: str) -> None:
        name = self._key(key)
        await self._call(lambda: self.redis.delete(name))

    async def spend(self, key: str, amount: int, budget: int, seconds: float) -> float | None:
        name = self._key(key)
        ms = max(1, round(seconds * 1000))
        spent = await self._call(
            lambda: cast("Awaitable[int]", self._spend(keys=[name], args=[amount, budget, ms]))
        )
        return None if spent >= 0 else -spent / 1000

    async def recall(self, key: str, saved_key: str) -> bytes | None:
        name = f"{self._key(key)}:idem:{saved_key}"
        return await self._call(lambda: cast("Awaitable[bytes | None]", self.redis.get(name)))

    async def _call(self, command: Callable[[], Awaitable[_T]]) -> _T:
        return await sent(self.redis, command)

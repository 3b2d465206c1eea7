"""Webhooks and their deliveries (``service.webhooks.store``) in Redis, for every instance.

Every key of one owner's webhooks (a player's, an app's) lives in one of ``SHARDS`` slots, chosen
by the owner's id
(``<prefix>:webhooks:{w<shard>}:…``), beside that shard's queue, so each script below touches
one slot and is atomic on one node, in Redis Cluster too:

| Key | What |
|---|---|
| `…:{w<k>}:hooks:<owner id>` | a hash: webhook id → the webhook (JSON) |
| `…:{w<k>}:deliveries` | a hash: delivery id → the delivery (JSON), the shard's every one |
| `…:{w<k>}:due` | the shard's queue: a sorted set of waiting delivery ids by next try |
| `…:{w<k>}:log:<webhook id>` | a webhook's deliveries by creation time |
| `…:{w<k>}:waiting:<webhook id>` | those of them still waiting |

A sender takes from every shard in turn, each take moving what it took on by a lease.
"""

from __future__ import annotations

import zlib
from functools import partial
from typing import Any, Final, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.storage.redis_connection import sent
from service.webhooks.records import (
    DELIVERIES_KEPT,
    HOOKS_PER_OWNER,
    WAITING_MOST,
    DeliveryRecord,
    WebhookRecord,
    decode_delivery,
    decode_hook,
    encode,
)
from service.webhooks.store import dropped_for_backlog

SHARDS: Final = 16

# KEYS: hooks. ARGV: webhook id, webhook, most.
_ADD_HOOK: Final = """
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# KEYS: hooks, deliveries, due, log, waiting. ARGV: webhook id.
_REMOVE_HOOK: Final = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
redis.call('DEL', KEYS[4], KEYS[5])
return 1
"""

# KEYS: hooks, deliveries, due, log, waiting.
# ARGV: webhook id, delivery id, created, waiting form, dropped form, next try, most waiting, kept.
_QUEUE: Final = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
local taken = redis.call('ZCARD', KEYS[5]) < tonumber(ARGV[7])
if taken then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
  redis.call('ZADD', KEYS[5], ARGV[3], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[2])
else
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[5])
end
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[8])
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, over + tonumber(ARGV[7]))) do
    if over <= 0 then break end
    if not redis.call('ZSCORE', KEYS[5], id) then
      redis.call('ZREM', KEYS[4], id)
      redis.call('HDEL', KEYS[2], id)
      over = over - 1
    end
  end
end
if taken then return 1 end
return 0
"""

# KEYS: due, deliveries. ARGV: now, now + lease, limit.
_TAKE: Final = """
local taken = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])) do
  local record = redis.call('HGET', KEYS[2], id)
  if record then
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    taken[#taken + 1] = record
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return taken
"""

# KEYS: deliveries, due, waiting. ARGV: delivery id, old, new, next try ('' for none), created.
_SETTLE: Final = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
end
return 1
"""


def shard_of(owner: str) -> int:
    return zlib.crc32(owner.encode()) % SHARDS


class RedisWebhookStore:
    """Webhooks and deliveries on the game store's Redis client and key prefix."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, key_prefix: str) -> None:
        self._redis = client
        self._prefix = key_prefix
        self._add_hook = client.register_script(_ADD_HOOK)
        self._remove_hook = client.register_script(_REMOVE_HOOK)
        self._queue = client.register_script(_QUEUE)
        self._take = client.register_script(_TAKE)
        self._settle = client.register_script(_SETTLE)
        self._next_shard = 0

    def _shard_key(self, shard: int, name: str) -> str:
        return f"{self._prefix}:webhooks:{{w{shard}}}:{name}"

    def _key(self, owner: str, name: str) -> str:
        return self._shard_key(shard_of(owner), name)

    def _hook_keys(self, owner: str, webhook_id: str) -> list[str]:
        return [
            self._key(owner, f"hooks:{owner}"),
            self._key(owner, "deliveries"),
            self._key(owner, "due"),
            self._key(owner, f"log:{webhook_id}"),
            self._key(owner, f"waiting:{webhook_id}"),
        ]

    async def add_hook(self, hook: WebhookRecord) -> bool:
        keys = [self._key(hook.owner, f"hooks:{hook.owner}")]
        args: list[str | bytes | int] = [hook.webhook_id, encode(hook), HOOKS_PER_OWNER]
        added = await sent(self._redis, lambda: self._add_hook(keys=keys, args=args))
        return bool(added)

    async def hooks(self, owner: str) -> list[WebhookRecord]:
        key = self._key(owner, f"hooks:{owner}")
        raw = await sent(self._redis, lambda: cast("Any", self._redis.hvals(key)))
        return sorted(
            (decode_hook(each) for each in cast("list[bytes]", raw)),
            key=lambda hook: (hook.created, hook.webhook_id),
        )

    async def remove_hook(self, owner: str, webhook_id: str) -> bool:
        keys = self._hook_keys(owner, webhook_id)
        removed = await sent(self._redis, lambda: self._remove_hook(keys=keys, args=[webhook_id]))
        return bool(removed)

    async def queue(self, delivery: DeliveryRecord) -> bool:
        keys = self._hook_keys(delivery.owner, delivery.webhook_id)
        args: list[str | bytes | float | int] = [
            delivery.webhook_id,
            delivery.delivery_id,
            delivery.created,
            encode(delivery),
            encode(dropped_for_backlog(delivery)),
            delivery.next_try if delivery.next_try is not None else delivery.created,
            WAITING_MOST,
            DELIVERIES_KEPT,
        ]
        taken = await sent(self._redis, lambda: self._queue(keys=keys, args=args))
        return bool(taken)

    async def take_due(self, now: float, lease: float, limit: int) -> list[DeliveryRecord]:
        """Each shard's due deliveries, the shards in turn from the one after the last this
        instance took from, so no shard waits behind another's backlog."""
        taken: list[DeliveryRecord] = []
        shards = [(self._next_shard + step) % SHARDS for step in range(SHARDS)]
        for shard in shards:
            if len(taken) >= limit:
                break
            keys = [self._shard_key(shard, "due"), self._shard_key(shard, "deliveries")]
            args: list[float] = [now, now + lease, limit - len(taken)]
            raw = await sent(self._redis, partial(self._take, keys=keys, args=args))
            records = [decode_delivery(each) for each in cast("list[bytes]", raw)]
            if records:
                self._next_shard = (shard + 1) % SHARDS
            taken += records
        return taken

    async def delivery(self, owner: str, delivery_id: str) -> DeliveryRecord | None:
        key = self._key(owner, "deliveries")
        raw = await sent(self._redis, lambda: cast("Any", self._redis.hget(key, delivery_id)))
        if raw is None:
            return None
        delivery = decode_delivery(cast("bytes", raw))
        return delivery if delivery.owner == owner else None

    async def deliveries(self, owner: str, webhook_id: str, limit: int) -> list[DeliveryRecord]:
        log = self._key(owner, f"log:{webhook_id}")
        ids = await sent(self._redis, lambda: cast("Any", self._redis.zrevrange(log, 0, limit - 1)))
        if not ids:
            return []
        key = self._key(owner, "deliveries")
        raw = await sent(self._redis, lambda: cast("Any", self._redis.hmget(key, ids)))
        found = [decode_delivery(each) for each in cast("list[bytes | None]", raw) if each]
        return [each for each in found if each.owner == owner]

    async def settle(self, old: DeliveryRecord, new: DeliveryRecord) -> bool:
        owner = old.owner
        keys = [
            self._key(owner, "deliveries"),
            self._key(owner, "due"),
            self._key(owner, f"waiting:{old.webhook_id}"),
        ]
        args: list[str | bytes | float] = [
            old.delivery_id,
            encode(old),
            encode(new),
            "" if new.next_try is None else new.next_try,
            old.created,
        ]
        settled = await sent(self._redis, lambda: self._settle(keys=keys, args=args))
        return bool(settled)

"""Where webhooks and their deliveries live: the protocol, and the store in this process's memory
(the default, one instance; ``service.webhooks.redis_store`` for many).

**The queue.** A delivery is queued in the same step as its record, as *waiting* with its next
try's time. ``take_due`` hands the due ones to one sender and, in the same atomic step, moves
each one's time on by a lease, so no other sender takes it unless the lease runs out (the
instance that took it died): at least once. The sender's outcome replaces the record by
compare-and-set (``settle``), which also sets or clears its place in the queue; a record that
changed meanwhile (a redelivery, a webhook deleted) is left as it is.

**Bounds.** At most ``HOOKS_PER_OWNER`` webhooks an owner (a player, an app); each webhook's
log keeps its newest ``DELIVERIES_KEPT`` deliveries, of which at most ``WAITING_MOST`` wait:
past that a new delivery is logged as dropped with its reason (the oldest finished ones leave
the log first).
"""

from __future__ import annotations

import heapq
from typing import Final, Protocol

import msgspec

from service.webhooks.records import (
    DELIVERIES_KEPT,
    HOOKS_PER_OWNER,
    WAITING_MOST,
    DeliveryRecord,
    WebhookRecord,
    decode_delivery,
    encode,
)

BACKLOG_REASON: Final = (
    f"{WAITING_MOST} deliveries were already waiting for this webhook (its receiver is down "
    "or slow): this one was never sent"
)


def dropped_for_backlog(delivery: DeliveryRecord) -> DeliveryRecord:
    """The form a delivery is logged in when its webhook's backlog is full."""
    return msgspec.structs.replace(delivery, state="dropped", next_try=None, reason=BACKLOG_REASON)


class WebhookStore(Protocol):
    async def add_hook(self, hook: WebhookRecord) -> bool:
        """Keep a new webhook of its owner's; False, keeping nothing, when the owner has
        ``HOOKS_PER_OWNER`` already."""

    async def hooks(self, owner: str) -> list[WebhookRecord]:
        """The owner's webhooks (a player's, or an app's: ``app:<name>``), oldest first."""

    async def remove_hook(self, owner: str, webhook_id: str) -> bool:
        """Forget the owner's webhook, its log and its waiting deliveries; False if the owner
        has no such webhook."""

    async def queue(self, delivery: DeliveryRecord) -> bool:
        """Log a new waiting delivery and queue it for its ``next_try``; False when its
        webhook's backlog is full, and it is logged dropped instead (``dropped_for_backlog``)."""

    async def take_due(self, now: float, lease: float, limit: int) -> list[DeliveryRecord]:
        """At most ``limit`` deliveries due by ``now``, each moved on to ``now + lease`` in the
        same atomic step."""

    async def delivery(self, owner: str, delivery_id: str) -> DeliveryRecord | None:
        """The owner's delivery, or None."""

    async def deliveries(self, owner: str, webhook_id: str, limit: int) -> list[DeliveryRecord]:
        """The webhook's newest ``limit`` deliveries, newest first."""

    async def settle(self, old: DeliveryRecord, new: DeliveryRecord) -> bool:
        """Replace ``old`` by ``new`` (its queue entry at ``new.next_try``, or none) if the
        stored record is still ``old``; False, changing nothing, if it is not."""


class MemoryWebhookStore:
    """Webhooks and deliveries in this process (lost on a restart). Safe under asyncio: nothing
    awaits between reading and writing. The queue is a dict of each waiting delivery's time and
    a heap of (time, id) with lazy deletion, rebuilt when stale entries outnumber live ones."""

    def __init__(self) -> None:
        self._hooks: dict[str, dict[str, WebhookRecord]] = {}
        self._records: dict[str, bytes] = {}
        self._logs: dict[str, dict[str, None]] = {}
        """Each webhook's deliveries, oldest first (a dict keeps insertion order)."""
        self._waiting: dict[str, set[str]] = {}
        self._due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    async def add_hook(self, hook: WebhookRecord) -> bool:
        hooks = self._hooks.setdefault(hook.owner, {})
        if len(hooks) >= HOOKS_PER_OWNER:
            return False
        hooks[hook.webhook_id] = hook
        self._logs[hook.webhook_id] = {}
        self._waiting[hook.webhook_id] = set()
        return True

    async def hooks(self, owner: str) -> list[WebhookRecord]:
        return list(self._hooks.get(owner, {}).values())

    async def remove_hook(self, owner: str, webhook_id: str) -> bool:
        if self._hooks.get(owner, {}).pop(webhook_id, None) is None:
            return False
        for delivery_id in self._logs.pop(webhook_id, {}):
            self._records.pop(delivery_id, None)
            self._due.pop(delivery_id, None)
        self._waiting.pop(webhook_id, None)
        return True

    async def queue(self, delivery: DeliveryRecord) -> bool:
        log = self._logs.get(delivery.webhook_id)
        waiting = self._waiting.get(delivery.webhook_id)
        if log is None or waiting is None:  # the webhook was deleted meanwhile
            return False
        taken = len(waiting) < WAITING_MOST and delivery.next_try is not None
        kept = delivery if taken else dropped_for_backlog(delivery)
        self._records[delivery.delivery_id] = encode(kept)
        log[delivery.delivery_id] = None
        if taken:
            waiting.add(delivery.delivery_id)
            assert delivery.next_try is not None
            self._put(delivery.delivery_id, delivery.next_try)
        self._trim(log, waiting)
        return taken

    def _trim(self, log: dict[str, None], waiting: set[str]) -> None:
        over = len(log) - DELIVERIES_KEPT
        if over <= 0:
            return
        for delivery_id in [d for d in log if d not in waiting][:over]:
            del log[delivery_id]
            self._records.pop(delivery_id, None)

    def _put(self, delivery_id: str, due: float | None) -> None:
        if due is None:
            self._due.pop(delivery_id, None)
            return
        self._due[delivery_id] = due
        heapq.heappush(self._heap, (due, delivery_id))
        if len(self._heap) > 2 * len(self._due) + 64:
            self._heap = [(time, d) for d, time in self._due.items()]
            heapq.heapify(self._heap)

    async def take_due(self, now: float, lease: float, limit: int) -> list[DeliveryRecord]:
        taken: list[DeliveryRecord] = []
        while self._heap and self._heap[0][0] <= now and len(taken) < limit:
            due, delivery_id = heapq.heappop(self._heap)
            if self._due.get(delivery_id) != due:  # replaced or settled since
                continue
            raw = self._records.get(delivery_id)
            if raw is None:
                del self._due[delivery_id]
                continue
            taken.append(decode_delivery(raw))
        for delivery in taken:
            self._put(delivery.delivery_id, now + lease)
        return taken

    async def delivery(self, owner: str, delivery_id: str) -> DeliveryRecord | None:
        raw = self._records.get(delivery_id)
        if raw is None:
            return None
        delivery = decode_delivery(raw)
        return delivery if delivery.owner == owner else None

    async def deliveries(self, owner: str, webhook_id: str, limit: int) -> list[DeliveryRecord]:
        if webhook_id not in self._hooks.get(owner, {}):
            return []
        newest = list(reversed(self._logs.get(webhook_id, {})))[:limit]
        return [decode_delivery(self._records[d]) for d in newest if d in self._records]

    async def settle(self, old: DeliveryRecord, new: DeliveryRecord) -> bool:
        stored = self._records.get(old.delivery_id)
        if stored is None or stored != encode(old):
            return False
        self._records[old.delivery_id] = encode(new)
        waiting = self._waiting.setdefault(old.webhook_id, set())
        if new.next_try is None:
            waiting.discard(old.delivery_id)
        else:
            waiting.add(old.delivery_id)
        self._put(old.delivery_id, new.next_try)
        return True

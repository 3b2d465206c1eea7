"""The webhooks' store on every kind of store (in memory, a single Redis, a three-master Redis
Cluster): at most five webhooks a player, the queue's lease and compare-and-set, a webhook's
backlog bounded (past it, logged dropped with the reason), its log trimmed oldest finished
first, and a deleted webhook taking its deliveries with it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec

from service.webhooks.deliveries import new_delivery, redelivered
from service.webhooks.records import (
    DELIVERIES_KEPT,
    HOOKS_PER_OWNER,
    WAITING_MOST,
    DeliveryRecord,
    WebhookRecord,
)
from service.webhooks.store import BACKLOG_REASON, WebhookStore
from tests.service.storage.test_store import StoreKind, beside, new_id, run, store_kind

__all__ = ["store_kind"]  # the fixture, shared with the store suite

NOW = 1_800_000_000.0
EVENT = b'{"type":"your_turn","game_id":"g1","seat":0,"version":3}'


def a_hook(owner: str, n: int = 0) -> WebhookRecord:
    return WebhookRecord(
        webhook_id=f"wh_{new_id()[:16]}",
        owner=owner,
        url=f"https://example.com/{n}",
        events=("your_turn",),
        secret="whsec_" + "A" * 43 + "=",
        created=NOW + n,
    )


def on_store(store_kind: StoreKind, check: Callable[[WebhookStore], Awaitable[None]]) -> None:
    async def go() -> None:
        store = store_kind.make()
        try:
            await check(beside(store).webhooks)
        finally:
            await store.close()

    run(go())


def test_a_player_has_at_most_five_webhooks_and_deletes_its_own(store_kind: StoreKind) -> None:
    async def check(webhooks: WebhookStore) -> None:
        ann, bob = new_id(), new_id()
        hooks = [a_hook(ann, n) for n in range(HOOKS_PER_OWNER)]
        for hook in hooks:
            assert await webhooks.add_hook(hook)
        assert not await webhooks.add_hook(a_hook(ann, 9))
        assert await webhooks.hooks(ann) == hooks
        assert await webhooks.hooks(bob) == []
        assert not await webhooks.remove_hook(bob, hooks[0].webhook_id)  # not Bob's
        assert await webhooks.remove_hook(ann, hooks[0].webhook_id)
        assert not await webhooks.remove_hook(ann, hooks[0].webhook_id)
        assert await webhooks.add_hook(a_hook(ann, 9))

    on_store(store_kind, check)


def test_a_taken_delivery_is_leased_and_settled_by_compare_and_set(store_kind: StoreKind) -> None:
    async def check(webhooks: WebhookStore) -> None:
        hook = a_hook(new_id())
        await webhooks.add_hook(hook)
        delivery = new_delivery(hook, "your_turn", hook.owner, EVENT, NOW)
        assert await webhooks.queue(delivery)
        assert await webhooks.take_due(NOW - 1, 30, 10) == []  # not due yet
        assert await webhooks.take_due(NOW, 30, 10) == [delivery]
        assert await webhooks.take_due(NOW + 29, 30, 10) == []  # leased
        assert await webhooks.take_due(NOW + 31, 30, 10) == [delivery]  # the lease ran out

        retry = msgspec.structs.replace(delivery, next_try=NOW + 60, tries=1)
        assert await webhooks.settle(delivery, retry)
        assert not await webhooks.settle(delivery, retry)  # no longer what is stored
        assert await webhooks.take_due(NOW + 59, 30, 10) == []
        assert await webhooks.take_due(NOW + 60, 30, 10) == [retry]
        done = msgspec.structs.replace(retry, state="delivered", next_try=None)
        assert await webhooks.settle(retry, done)
        assert await webhooks.take_due(NOW + 10_000, 30, 10) == []
        assert await webhooks.delivery(hook.owner, delivery.delivery_id) == done
        assert await webhooks.delivery(new_id(), delivery.delivery_id) is None  # not theirs

        again = redelivered(done, NOW + 20_000)
        assert await webhooks.settle(done, again)
        assert await webhooks.take_due(NOW + 20_000, 30, 10) == [again]

    on_store(store_kind, check)


def test_a_webhook_s_backlog_is_bounded_and_its_log_trimmed(store_kind: StoreKind) -> None:
    async def check(webhooks: WebhookStore) -> None:
        hook = a_hook(new_id())
        await webhooks.add_hook(hook)
        made: list[DeliveryRecord] = []
        for n in range(WAITING_MOST):
            made.append(new_delivery(hook, "your_turn", hook.owner, EVENT, NOW + n))
            assert await webhooks.queue(made[-1])
        over = new_delivery(hook, "your_turn", hook.owner, EVENT, NOW + WAITING_MOST)
        assert not await webhooks.queue(over)  # logged, dropped, never sent
        [newest] = await webhooks.deliveries(hook.owner, hook.webhook_id, 1)
        assert (newest.delivery_id, newest.state) == (over.delivery_id, "dropped")
        assert newest.reason == BACKLOG_REASON

        for delivery in made[:200]:  # the receiver is back for some of them
            done = msgspec.structs.replace(delivery, state="delivered", next_try=None)
            assert await webhooks.settle(delivery, done)
        later = [
            new_delivery(hook, "your_turn", hook.owner, EVENT, NOW + 1000 + n) for n in range(150)
        ]
        for delivery in later:
            assert await webhooks.queue(delivery)
        log = await webhooks.deliveries(hook.owner, hook.webhook_id, 1000)
        assert len(log) == DELIVERIES_KEPT
        kept = {each.delivery_id for each in log}
        gone = {each.delivery_id for each in made[:51]}  # the oldest finished ones left first
        assert not kept & gone
        assert {each.delivery_id for each in made[200:]} <= kept  # every waiting one stays
        assert await webhooks.delivery(hook.owner, made[0].delivery_id) is None

    on_store(store_kind, check)


def test_a_deleted_webhook_takes_its_deliveries_with_it(store_kind: StoreKind) -> None:
    async def check(webhooks: WebhookStore) -> None:
        player = new_id()
        hook, other = a_hook(player), a_hook(player, 1)
        await webhooks.add_hook(hook)
        await webhooks.add_hook(other)
        gone = new_delivery(hook, "your_turn", hook.owner, EVENT, NOW)
        stays = new_delivery(other, "your_turn", other.owner, EVENT, NOW)
        assert await webhooks.queue(gone)
        assert await webhooks.queue(stays)
        assert await webhooks.remove_hook(player, hook.webhook_id)
        assert await webhooks.take_due(NOW, 30, 10) == [stays]
        assert await webhooks.delivery(player, gone.delivery_id) is None
        assert await webhooks.deliveries(player, hook.webhook_id, 10) == []
        assert not await webhooks.queue(new_delivery(hook, "your_turn", hook.owner, EVENT, NOW))

    on_store(store_kind, check)

"""Deliveries: queued when a player's event is logged, sent by this instance's courier.

**Queueing** (``queue_event``): for each webhook subscribed to the event's type, of the player's
and of its app's (when the player belongs to one), one delivery, its body fixed then (``{"type",
"timestamp", "player_id", "data"}``, the data being the event as the player's stream has it),
waiting in the store's queue, due now.

**Sending** (``Courier``): a background task of each instance takes the due deliveries (each
moved on by a lease as it is taken: ``service.webhooks.store``) while it has room for them,
at most ``WEBHOOK_CONCURRENCY`` at once, each in a task of its own with ``WEBHOOK_TIMEOUT``; a
receiver's slowness holds one of those tasks, never a request, a game's commit or the loop.
Each outcome is settled in the store: delivered, or waiting for its next try, exponential
backoff from ``WEBHOOK_FIRST_RETRY`` doubling up to an hour, or, once a retry would come more
than ``WEBHOOK_RETRY_FOR`` after its first try, dropped with the reason. An instance that dies
while sending leaves the delivery to whichever instance takes it once its lease has run out:
delivered at least once, and a receiver de-duplicates by ``webhook-id``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

import msgspec
from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol

from service.http.wire import utc_time
from service.operations.metrics import WEBHOOK_ATTEMPTS
from service.settings import Settings
from service.storage.game_store import StoreUnavailable
from service.storage.redis_connection import being_cancelled
from service.webhooks.records import ATTEMPTS_KEPT, Attempt, DeliveryRecord, WebhookRecord
from service.webhooks.sending import Outcome, Sender
from service.webhooks.store import WebhookStore

LONGEST_WAIT: Final = 3600.0
"""The longest wait between two tries of a delivery."""
_log = logging.getLogger(__name__)


class _Typed(msgspec.Struct):
    type: str


class _Body(msgspec.Struct):
    type: str
    timestamp: str
    player_id: str
    """Whose event it is: an app's webhooks get the events of all its players."""
    data: msgspec.Raw


_type_of: Final = msgspec.json.Decoder(_Typed)
_encoder: Final = msgspec.json.Encoder()


def new_delivery(
    hook: WebhookRecord, event_type: str, player_id: str, event: bytes, now: float
) -> DeliveryRecord:
    body = _Body(
        type=event_type, timestamp=utc_time(now), player_id=player_id, data=msgspec.Raw(event)
    )
    return DeliveryRecord(
        delivery_id=f"msg_{secrets.token_urlsafe(16)}",
        owner=hook.owner,
        webhook_id=hook.webhook_id,
        event_type=event_type,
        body=_encoder.encode(body).decode(),
        created=now,
        since=now,
        state="waiting",
        next_try=now,
    )


def wait_after(first_retry: float, tries: int) -> float:
    """Seconds before the next try after ``tries`` failed ones: doubling, at most an hour."""
    doubled: float = first_retry * 2.0 ** min(tries - 1, 32)
    return min(doubled, LONGEST_WAIT)


def after_attempt(
    delivery: DeliveryRecord, attempt: Attempt, now: float, settings: Settings
) -> DeliveryRecord:
    """The delivery once ``attempt`` is made: delivered, waiting for its next try, or dropped."""
    attempts = (*delivery.attempts, attempt)[-ATTEMPTS_KEPT:]
    tries = delivery.tries + 1
    replace = msgspec.structs.replace
    if attempt.error is None:
        return replace(delivery, state="delivered", next_try=None, tries=tries, attempts=attempts)
    next_try = now + wait_after(settings.webhook_first_retry, tries)
    if next_try > delivery.since + settings.webhook_retry_for:
        reason = f"gave up after {tries} tries over {utc_time(delivery.since)} to {utc_time(now)}: "
        return replace(
            delivery,
            state="dropped",
            next_try=None,
            reason=reason + attempt.error,
            tries=tries,
            attempts=attempts,
        )
    return replace(delivery, next_try=next_try, tries=tries, attempts=attempts)


def redelivered(delivery: DeliveryRecord, now: float) -> DeliveryRecord:
    """The delivery sent again now, with a new day of retries (same body, same ``webhook-id``)."""
    return msgspec.structs.replace(
        delivery, state="waiting", next_try=now, since=now, reason=None, tries=0
    )


async def queue_event(
    store: WebhookStore, player_id: str, app: str | None, event: bytes, now: float
) -> list[DeliveryRecord]:
    """Queue the player's event for each webhook subscribed to its type, the player's own and
    its app's (``app``, the app's id: ``app:<name>``); the deliveries that wait (those over a
    webhook's backlog are logged dropped)."""
    hooks = await store.hooks(player_id)
    if app is not None:
        hooks += await store.hooks(app)
    if not hooks:
        return []
    event_type = _type_of.decode(event).type
    queued = []
    for hook in hooks:
        if event_type in hook.events:
            delivery = new_delivery(hook, event_type, player_id, event, now)
            if await store.queue(delivery):
                queued.append(delivery)
    return queued


class Courier:
    """This instance's sender of due deliveries, running from ``start`` to ``close``."""

    def __init__(
        self,
        store: WebhookStore,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self._settings = settings
        self._clock = clock
        self._wake = asyncio.Event()
        self._sending: set[asyncio.Task[None]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self._sender: Sender | None = None

    @property
    def lease(self) -> float:
        """How long a taken delivery is this instance's: an attempt's time, and a margin."""
        return 2 * self._settings.webhook_timeout + 5

    def wake(self) -> None:
        """Look for due deliveries now (one was just queued here)."""
        self._wake.set()

    def start(self) -> None:
        settings = self._settings
        self._sender = Sender(
            timeout=settings.webhook_timeout,
            connections=settings.webhook_concurrency,
            allow_private=settings.webhook_allow_private,
        )
        self._loop_task = asyncio.create_task(self._run(), name="webhook-courier")

    async def close(self) -> None:
        tasks = [*self._sending, *([self._loop_task] if self._loop_task else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._sender is not None:
            await self._sender.close()

    async def _run(self) -> None:
        while not being_cancelled():
            self._wake.clear()
            room = self._settings.webhook_concurrency - len(self._sending)
            taken = await self._take(room) if room > 0 else []
            for delivery in taken:
                task = asyncio.create_task(self._deliver(delivery))
                self._sending.add(task)
                task.add_done_callback(self._done)
            if room <= 0 or len(taken) < room:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._settings.webhook_poll_seconds):
                        await self._wake.wait()

    def _done(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        self._wake.set()  # room for another

    async def _take(self, room: int) -> list[DeliveryRecord]:
        try:
            return await self.store.take_due(self._clock(), self.lease, room)
        except StoreUnavailable:
            return []
        except Exception:  # the courier outlives anything one look meets; the next looks again
            _log.exception("webhook deliveries: taking the due ones failed")
            return []

    async def _deliver(self, delivery: DeliveryRecord) -> None:
        assert self._sender is not None
        try:
            hooks = await self.store.hooks(delivery.owner)
            hook = next((h for h in hooks if h.webhook_id == delivery.webhook_id), None)
            if hook is None:
                return  # deleted with its deliveries
            started = self._clock()
            outcome: Outcome = await self._sender.send(
                hook.url, hook.secret, delivery.delivery_id, delivery.body.encode()
            )
            attempt = Attempt(
                at=started,
                status=outcome.status,
                error=outcome.error,
                duration_ms=outcome.duration_ms,
            )
            after = after_attempt(delivery, attempt, self._clock(), self._settings)
            outcome_name = "retried" if after.state == "waiting" else after.state
            WEBHOOK_ATTEMPTS.labels(outcome=outcome_name).inc()
            await self.store.settle(delivery, after)
        except StoreUnavailable:
            _log.warning(
                "webhook delivery %s: the store is unavailable; retried after its lease",
                delivery.delivery_id,
            )
        except Exception:  # a task's error would go unseen: logged, and retried after its lease
            _log.exception("webhook delivery %s failed", delivery.delivery_id)


class CourierPlugin(InitPluginProtocol):
    """This instance's courier, for the app's lifespan."""

    def __init__(self, courier: Courier) -> None:
        self._courier = courier

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.lifespan.append(self._lifespan)
        return app_config

    @asynccontextmanager
    async def _lifespan(self, _app: Litestar) -> AsyncIterator[None]:
        self._courier.start()
        try:
            yield
        finally:
            await self._courier.close()

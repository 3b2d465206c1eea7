"""Webhooks and deliveries as the API shows them."""

from __future__ import annotations

from service.http.wire import utc_time
from service.webhooks.records import DeliveryRecord, WebhookRecord
from service.webhooks.wire import Delivery, DeliveryAttempt, EventType, Webhook, WebhookCreated


def webhook_of(hook: WebhookRecord) -> Webhook:
    return Webhook(
        webhook_id=hook.webhook_id,
        url=hook.url,
        events=_events(hook),
        created=utc_time(hook.created),
    )


def created_of(hook: WebhookRecord) -> WebhookCreated:
    return WebhookCreated(
        webhook_id=hook.webhook_id,
        url=hook.url,
        events=_events(hook),
        created=utc_time(hook.created),
        secret=hook.secret,
    )


def _events(hook: WebhookRecord) -> list[EventType]:
    return list(hook.events)  # type: ignore[arg-type]  # only EventType values are kept


def delivery_of(delivery: DeliveryRecord) -> Delivery:
    return Delivery(
        delivery_id=delivery.delivery_id,
        webhook_id=delivery.webhook_id,
        event=delivery.event_type,  # type: ignore[arg-type]  # queued from a PlayerEvent's type
        state=delivery.state,
        created=utc_time(delivery.created),
        next_try=None if delivery.next_try is None else utc_time(delivery.next_try),
        reason=delivery.reason,
        tries=delivery.tries,
        attempts=[
            DeliveryAttempt(
                at=utc_time(attempt.at),
                status=attempt.status,
                error=attempt.error,
                duration_ms=attempt.duration_ms,
            )
            for attempt in delivery.attempts
        ],
    )

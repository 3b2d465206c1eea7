"""What the webhooks' store keeps: each owner's webhooks (a player's, or an app's: its id is
``app:<name>``, ``service.identity.apps``), and each delivery of an event to one of them with
its attempts. Stored as JSON (``encode``/``decode_*``); a delivery's JSON is also
what a store's compare-and-set compares, so a record is never re-encoded differently."""

from __future__ import annotations

from typing import Final, Literal

import msgspec

HOOKS_PER_OWNER: Final = 5
"""The most webhooks one owner (a player, an app) may have."""
DELIVERIES_KEPT: Final = 500
"""The newest deliveries kept in each webhook's log (waiting ones among them)."""
WAITING_MOST: Final = 400
"""The most deliveries that may wait for one webhook (a receiver down for a while): past it, a
new event's delivery is logged as dropped, with the reason, and never sent."""
ATTEMPTS_KEPT: Final = 20
"""The newest attempts kept in a delivery's record (a day of retries makes about 30)."""

DeliveryState = Literal["waiting", "delivered", "dropped"]


class WebhookRecord(msgspec.Struct, frozen=True):
    webhook_id: str
    owner: str = msgspec.field(name="player_id")
    """The player's id, or the app's (``app:<name>``); stored under its first name."""
    url: str
    events: tuple[str, ...]
    secret: str
    """The signing secret, ``whsec_`` and base64 (Standard Webhooks): the service must keep it
    to sign, so it is kept as it is, and shown to its owner only when the webhook is made."""
    created: float


class Attempt(msgspec.Struct, frozen=True):
    at: float
    """Unix time the attempt started."""
    status: int | None
    """The receiver's HTTP status; None when no answer came (``error`` says why)."""
    error: str | None
    duration_ms: int


class DeliveryRecord(msgspec.Struct, frozen=True):
    delivery_id: str
    """Also the message's ``webhook-id``: the same on every attempt, so a receiver
    de-duplicates by it."""
    owner: str = msgspec.field(name="player_id")
    """The webhook's owner (``WebhookRecord.owner``)."""
    webhook_id: str
    event_type: str
    body: str
    """The JSON sent, fixed when the event is queued: every attempt signs the same bytes."""
    created: float
    since: float
    """When the current run of tries began (its creation, or a redelivery): it is dropped
    ``WEBHOOK_RETRY_FOR`` after."""
    state: DeliveryState
    next_try: float | None
    """Unix time of the next try, None once delivered or dropped."""
    reason: str | None = None
    """Why a dropped delivery was dropped."""
    tries: int = 0
    """Attempts made since ``since``: the next retry waits twice as long as the last."""
    attempts: tuple[Attempt, ...] = ()
    """The newest ``ATTEMPTS_KEPT`` attempts, oldest first."""


_encoder: Final = msgspec.json.Encoder()
_hook_decoder: Final = msgspec.json.Decoder(WebhookRecord)
_delivery_decoder: Final = msgspec.json.Decoder(DeliveryRecord)


def encode(record: WebhookRecord | DeliveryRecord) -> bytes:
    return _encoder.encode(record)


def decode_hook(raw: bytes) -> WebhookRecord:
    return _hook_decoder.decode(raw)


def decode_delivery(raw: bytes) -> DeliveryRecord:
    return _delivery_decoder.decode(raw)

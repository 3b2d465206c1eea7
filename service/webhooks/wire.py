"""The JSON shapes of ``/v1/players/me/webhooks``."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from msgspec import Meta

from service.http.wire import Out, Strict
from service.webhooks.addresses import MAX_URL
from service.webhooks.records import DELIVERIES_KEPT, HOOKS_PER_OWNER

EventType = Literal[
    "game_start",
    "your_turn",
    "game_finish",
    "challenge",
    "challenge_canceled",
    "challenge_declined",
    "tournament_round",
    "tournament_finish",
]
"""The types of ``PlayerEvent`` (``service.players.event_wire``; a test keeps them equal)."""
EVENT_TYPES: Final[tuple[str, ...]] = EventType.__args__  # type: ignore[attr-defined]
DELIVERIES_PAGE_MAX: Final = 100

WebhookId = Annotated[
    str,
    Meta(
        pattern=r"^wh_[A-Za-z0-9_-]{16}$",
        description="A webhook's id (`wh_` and 16 characters).",
        examples=["wh_Q3vYkT0aXw2nR8sd"],
    ),
]
DeliveryId = Annotated[
    str,
    Meta(
        pattern=r"^msg_[A-Za-z0-9_-]{22}$",
        description=(
            "A delivery's id, sent as its `webhook-id` header on every attempt: a receiver "
            "de-duplicates by it."
        ),
        examples=["msg_2LcN0dYw8sF1qkR3tZx9aB"],
    ),
]
WebhookUrl = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_URL,
        description=(
            "Where deliveries are POSTed: `https://` (`http://` only where the deployment "
            "allows it), no user name or password, no fragment, a public address (names are "
            "resolved and checked on every delivery). Redirects are not followed."
        ),
        examples=["https://example.com/hooks/three-thirteen"],
    ),
]
Events = Annotated[
    list[EventType],
    Meta(
        min_length=1,
        max_length=len(EVENT_TYPES),
        description="The types of the player's events delivered (as its stream's `type`).",
    ),
]
Moment = Annotated[str, Meta(description="ISO 8601, UTC.")]


class CreateWebhookRequest(Strict, frozen=True):
    url: WebhookUrl
    events: Events


class Webhook(Out, frozen=True):
    """One of the player's webhooks."""

    webhook_id: WebhookId
    url: WebhookUrl
    events: list[EventType]
    created: Moment


class WebhookCreated(Webhook, frozen=True):
    """The new webhook, with its signing secret: shown only in this answer."""

    secret: Annotated[
        str,
        Meta(
            description=(
                "The signing secret (Standard Webhooks: `whsec_` and base64 of 32 random "
                "bytes), shown only here: verify each delivery's `webhook-signature` with it."
            ),
            examples=["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
        ),
    ]


class Webhooks(Out, frozen=True):
    webhooks: Annotated[
        list[Webhook],
        Meta(description=f"Oldest first; at most {HOOKS_PER_OWNER}. No secrets."),
    ]


class DeliveryAttempt(Out, frozen=True):
    at: Moment
    status: Annotated[
        int | None, Meta(description="The receiver's HTTP status; null when none came.")
    ]
    error: Annotated[
        str | None,
        Meta(description="Why the attempt failed (a status not 2xx, a timeout, an address)."),
    ]
    duration_ms: int


class Delivery(Out, frozen=True):
    """One event sent (or to be sent) to one webhook, with its attempts."""

    delivery_id: DeliveryId
    webhook_id: WebhookId
    event: EventType
    state: Annotated[
        Literal["waiting", "delivered", "dropped"],
        Meta(
            description=(
                "`waiting`: a try is due at `next_try`. `delivered`: a try had a 2xx answer. "
                "`dropped`: never delivered, `reason` says why (retried for a day; too many "
                "waiting)."
            )
        ),
    ]
    created: Moment
    next_try: Annotated[str | None, Meta(description="ISO 8601, UTC; null unless waiting.")]
    reason: Annotated[str | None, Meta(description="Why it was dropped.")]
    tries: Annotated[int, Meta(description="Tries since it was queued or redelivered.")]
    attempts: Annotated[
        list[DeliveryAttempt], Meta(description="The newest attempts (at most 20), oldest first.")
    ]


class Deliveries(Out, frozen=True):
    deliveries: Annotated[
        list[Delivery],
        Meta(description=f"Newest first; each webhook keeps its newest {DELIVERIES_KEPT}."),
    ]

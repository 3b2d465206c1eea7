"""What the webhook routes do: make, list and delete an owner's webhooks, show a webhook's
deliveries and send one again. The owner (``me``) is a player's id, or an app's
(``app:<name>``): the same routes serve both (``service.webhooks.routes``)."""

from __future__ import annotations

import base64
import secrets
import time

from service.identity.apps import APP_OWNER_PREFIX
from service.webhooks.addresses import checked_url
from service.webhooks.deliveries import redelivered
from service.webhooks.deps import WebhookServices
from service.webhooks.problems import (
    DeliveryChanged,
    DeliveryNotFound,
    WebhookNotFound,
    WebhookQuotaReached,
)
from service.webhooks.records import HOOKS_PER_OWNER, WebhookRecord
from service.webhooks.to_wire import created_of, delivery_of, webhook_of
from service.webhooks.wire import (
    CreateWebhookRequest,
    Deliveries,
    Delivery,
    WebhookCreated,
    Webhooks,
)

SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


async def create(services: WebhookServices, me: str, data: CreateWebhookRequest) -> WebhookCreated:
    settings = services.settings
    url = checked_url(
        data.url,
        allow_http=settings.webhook_allow_http,
        allow_private=settings.webhook_allow_private,
    )
    hook = WebhookRecord(
        webhook_id=f"wh_{secrets.token_urlsafe(12)}",
        owner=me,
        url=url,
        events=tuple(dict.fromkeys(data.events)),
        secret=new_secret(),
        created=time.time(),
    )
    if not await services.webhooks.store.add_hook(hook):
        raise WebhookQuotaReached(
            f"{_whose(me)} has at most {HOOKS_PER_OWNER} webhooks: delete one first"
        )
    return created_of(hook)


async def listed(services: WebhookServices, me: str) -> Webhooks:
    return Webhooks(webhooks=[webhook_of(hook) for hook in await services.webhooks.store.hooks(me)])


async def remove(services: WebhookServices, me: str, webhook_id: str) -> None:
    if not await services.webhooks.store.remove_hook(me, webhook_id):
        raise WebhookNotFound(f"{_whose(me)} has no webhook {webhook_id}")


async def deliveries(services: WebhookServices, me: str, webhook_id: str, limit: int) -> Deliveries:
    await _check_hook(services, me, webhook_id)
    found = await services.webhooks.store.deliveries(me, webhook_id, limit)
    return Deliveries(deliveries=[delivery_of(each) for each in found])


async def redeliver(
    services: WebhookServices, me: str, webhook_id: str, delivery_id: str
) -> Delivery:
    await _check_hook(services, me, webhook_id)
    delivery = await services.webhooks.store.delivery(me, delivery_id)
    if delivery is None or delivery.webhook_id != webhook_id:
        raise DeliveryNotFound(f"webhook {webhook_id} has no delivery {delivery_id}")
    again = redelivered(delivery, time.time())
    if not await services.webhooks.store.settle(delivery, again):
        raise DeliveryChanged(f"delivery {delivery_id} changed meanwhile (an attempt ended)")
    services.webhooks.wake()
    return delivery_of(again)


async def _check_hook(services: WebhookServices, me: str, webhook_id: str) -> None:
    hooks = await services.webhooks.store.hooks(me)
    if not any(hook.webhook_id == webhook_id for hook in hooks):
        raise WebhookNotFound(f"{_whose(me)} has no webhook {webhook_id}")


def _whose(owner: str) -> str:
    return "the app" if owner.startswith(APP_OWNER_PREFIX) else "the player"

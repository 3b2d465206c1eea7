"""``/v1/players/me/webhooks``: a player's webhooks, their deliveries, and a redelivery; and
``/v1/apps/me/webhooks``, the same routes for an app's webhooks, which get the events of all
its players (``AppWebhooksController``: the same handlers, under names of their own)."""

from __future__ import annotations

from typing import Annotated, Final

from litestar import Controller, delete, get, post
from litestar.di import Provide
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.params import JSONBody, Parameter, QueryParameter

from service.http.allowed_methods import allowed_methods
from service.http.openapi_declarations import APP, PLAYER, problems
from service.http.route_policy import (
    SAME_AUTHORIZATION,
    Limit,
    RouteLink,
    from_answer,
    policy,
    relinked,
)
from service.players.deps import Me, me
from service.webhooks import lifecycle
from service.webhooks.deps import AppWebhookServices, app_me
from service.webhooks.wire import (
    DELIVERIES_PAGE_MAX,
    CreateWebhookRequest,
    Deliveries,
    Delivery,
    WebhookCreated,
    Webhooks,
)

HookId = Annotated[
    str,
    Parameter(
        pattern=r"^wh_[A-Za-z0-9_-]{16}$", description="The webhook's id (`wh_…`).", max_length=19
    ),
]
MessageId = Annotated[
    str,
    Parameter(
        pattern=r"^msg_[A-Za-z0-9_-]{22}$",
        description="The delivery's id, its `webhook-id` (`msg_…`).",
        max_length=26,
    ),
]
DeliveriesLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=DELIVERIES_PAGE_MAX,
        description=f"At most this many, newest first. Default 20, maximum {DELIVERIES_PAGE_MAX}.",
    ),
]

_MY_HOOK: Final = {
    "webhook_id": from_answer("/webhook_id"),
    "header.Authorization": SAME_AUTHORIZATION,
}
"""What a made webhook leads to, with the key that made it."""


class WebhooksController(Controller):
    path = "/v1/players/me/webhooks"
    tags = ("players",)
    dependencies = {"me": Provide(me)}  # noqa: RUF012  # Litestar's declaration
    security = PLAYER
    options = allowed_methods("/", "GET", "POST")

    @post(
        operation_id="createWebhook",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
            links={
                "201": {
                    "ListDeliveries": RouteLink("listWebhookDeliveries", _MY_HOOK),
                    "DeleteWebhook": RouteLink("deleteWebhook", _MY_HOOK),
                }
            },
        ),
        summary="Have the player's events POSTed to a URL, signed (Standard Webhooks)",
        description=(
            "Each event of the player's of the listed types (those of `GET "
            '/v1/players/me/events`) is POSTed to `url` as `{"type", "timestamp", '
            '"player_id", "data"}` (`data`: the event as the stream has it), signed as the '
            "Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, "
            "`webhook-signature`: HMAC-SHA256 with the `secret`, shown only in this answer). A "
            "2xx answer within `WEBHOOK_TIMEOUT` (10 s by default) delivers it; otherwise it is "
            "retried with exponential backoff for a day (`WEBHOOK_RETRY_FOR`), at least once in "
            "all: de-duplicate by `webhook-id`. At most 5 webhooks a player. "
            "docs/webhooks.md shows a receiver."
        ),
        status_code=201,
        responses=problems(400, 401, 409, 413, 422, 503),
    )
    async def create(
        self, services: AppWebhookServices, me: Me, data: JSONBody[CreateWebhookRequest]
    ) -> WebhookCreated:
        return await lifecycle.create(services, me, data)

    @get(
        operation_id="listWebhooks",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The player's webhooks (without their secrets)",
        responses=problems(401, 503),
    )
    async def list_hooks(self, services: AppWebhookServices, me: Me) -> Webhooks:
        return await lifecycle.listed(services, me)

    @delete(
        "/{webhook_id:str}",
        operation_id="deleteWebhook",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="Delete a webhook: nothing more is sent to it, its deliveries are forgotten",
        responses=problems(401, 404, 422, 503),
    )
    async def remove(self, services: AppWebhookServices, me: Me, webhook_id: HookId) -> None:
        await lifecycle.remove(services, me, webhook_id)

    @get(
        "/{webhook_id:str}/deliveries",
        operation_id="listWebhookDeliveries",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
            links={
                "200": {
                    "RedeliverNewest": RouteLink(
                        "redeliverWebhookDelivery",
                        {
                            "webhook_id": "$request.path.webhook_id",
                            "delivery_id": from_answer("/deliveries/0/delivery_id"),
                            "header.Authorization": SAME_AUTHORIZATION,
                        },
                    )
                }
            },
        ),
        summary="A webhook's deliveries, newest first, each with its attempts",
        description=(
            "Each delivery's state (`waiting`, `delivered`, `dropped` with its `reason`), when "
            "it is tried next, and its attempts: when, the receiver's status or the error, how "
            "long it took. The newest 500 deliveries of each webhook are kept."
        ),
        responses=problems(401, 404, 422, 503),
    )
    async def deliveries(
        self,
        services: AppWebhookServices,
        me: Me,
        webhook_id: HookId,
        limit: DeliveriesLimit = 20,
    ) -> Deliveries:
        return await lifecycle.deliveries(services, me, webhook_id, limit)

    @post(
        "/{webhook_id:str}/deliveries/{delivery_id:str}/redeliver",
        operation_id="redeliverWebhookDelivery",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="Send a delivery again, now, with a new day of retries",
        description=(
            "The same body and the same `webhook-id` (a receiver that de-duplicates ignores it "
            "if it had it), signed afresh; a delivered or dropped delivery waits again, a "
            "waiting one is tried at once. Answers the delivery as it now stands."
        ),
        status_code=202,
        responses=problems(401, 404, 409, 422, 503),
    )
    async def redeliver(
        self,
        services: AppWebhookServices,
        me: Me,
        webhook_id: HookId,
        delivery_id: MessageId,
    ) -> Delivery:
        return await lifecycle.redeliver(services, me, webhook_id, delivery_id)


_APP_TEXTS: Final = {
    "createWebhook": (
        "Have every event of the app's players POSTed to a URL, signed (Standard Webhooks)",
        "As `createWebhook` does for a player, for every player made with the app's key (`POST "
        "/v1/players`): each event of the listed types of any of them, its `player_id` naming "
        "the player. At most 5 webhooks an app. docs/webhooks.md.",
    ),
    "listWebhooks": ("The app's webhooks (without their secrets)", None),
}
"""What the app's routes say where the player's would not fit."""


class AppWebhooksController(WebhooksController):
    """The app's webhooks: the handlers above, on the app's own path, with the app's key."""

    path = "/v1/apps/me/webhooks"
    tags = ("apps",)
    dependencies = {"me": Provide(app_me)}  # noqa: RUF012  # Litestar's declaration
    security = APP

    def get_route_handlers(self) -> list[BaseRouteHandler]:
        handlers = super().get_route_handlers()  # copies: the player's routes keep theirs
        for handler in handlers:
            if isinstance(handler, HTTPRouteHandler) and isinstance(handler.operation_id, str):
                summary, description = _APP_TEXTS.get(handler.operation_id, (None, None))
                handler.summary = summary or handler.summary
                handler.description = description or handler.description
                handler.operation_id = _app_named(handler.operation_id)
                handler.opt = relinked(handler, _app_named)
        return handlers


def _app_named(operation_id: str) -> str:
    """The app's name of one of the player's webhook operations (``createAppWebhook``)."""
    return operation_id.replace("Webhook", "AppWebhook", 1)

"""What webhooks need of the app: what players need (the player a route speaks for is its ``me``
parameter, ``service.players.deps``; an app's routes have ``app_me`` instead), and this
instance's courier, on the webhooks' store."""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from service.http.auth import AuthorizationHeader, viewer_token
from service.identity.apps import app_named, app_owner
from service.players.deps import PlayerServices
from service.webhooks.deliveries import Courier


class WebhookServices(PlayerServices):
    # An interface by inheritance, as every feature's (``service.games.deps``).
    __slots__ = ()
    webhooks: Courier
    """This instance's sender of due deliveries (``service.webhooks.deliveries``), and its
    ``store`` of the webhooks and their deliveries, beside the players."""


AppWebhookServices: TypeAlias = NamedDependency[WebhookServices]
"""A handler's ``services`` parameter."""


async def app_me(services: AppWebhookServices, authorization: AuthorizationHeader = None) -> str:
    """An app's routes' ``me``: the id of the app whose key was sent (``app:<name>``); 401
    naming what is wrong otherwise."""
    return app_owner(app_named(services.settings.app_keys, viewer_token(authorization)))

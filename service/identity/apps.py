"""Apps: the deployment's ``APP_KEYS``, each an app's name and its key (a secret the operator
gives the app's server). A player created with an app's key belongs to the app (its
``PlayerRecord.app``), and the app's own routes (``/v1/apps/me/…``) take its key. The key is
compared in constant time, as ``METRICS_TOKEN`` is (``service.health.deps``)."""

from __future__ import annotations

import hmac
from typing import Final

from service.http.problems import ServiceProblem
from service.identity.keys import is_player_key

APP_OWNER_PREFIX: Final = "app:"
"""What an app's id starts with where a player's id could stand (a webhook's owner): no
player's id does."""

AppKeys = tuple[tuple[str, str], ...]
"""``Settings.app_keys``: (name, key) pairs."""


class AppKeyRequired(ServiceProblem):
    status, kind, title = 401, "app-key-required", "This needs an app's key"


class UnknownAppKey(ServiceProblem):
    status, kind, title = 401, "unknown-app-key", "No app of this deployment has this key"


def app_owner(app: str) -> str:
    """The app's id where a player's could stand (``app:<name>``)."""
    return APP_OWNER_PREFIX + app


def app_of_key(apps: AppKeys, token: str) -> str | None:
    """The name of the app whose key ``token`` is, or None. Every key is compared, each in
    constant time, so the time taken tells nothing of which came close."""
    found = None
    for name, key in apps:
        if hmac.compare_digest(token.encode(), key.encode()):
            found = name
    return found


def app_named(apps: AppKeys, token: str | None) -> str:
    """The name of the app whose key ``token`` is; 401 naming what is wrong for none, a
    player's key, or a key no app of this deployment holds."""
    if token is None:
        raise AppKeyRequired("send the app's key (APP_KEYS) as 'Authorization: Bearer <key>'")
    app = app_of_key(apps, token)
    if app is not None:
        return app
    if not apps:
        raise UnknownAppKey("this deployment serves no app: its operator sets none in APP_KEYS")
    if is_player_key(token):
        raise UnknownAppKey("this is a player's key (ttp_…): an app's routes take the app's key")
    raise UnknownAppKey("no app of this deployment has this key (APP_KEYS)")

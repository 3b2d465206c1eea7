"""What the health routes need of the app (the store, which kind it is, the settings), and the
one check ``/metrics`` makes: ``metrics_scraper``, the deployment's ``METRICS_TOKEN`` when it
sets one."""

from __future__ import annotations

import hmac
from typing import Literal, TypeAlias

from litestar.di import NamedDependency

from service.http.auth import AuthorizationHeader, viewer_token
from service.http.problems import MissingToken, ServiceProblem
from service.settings import Settings
from service.storage.game_store import Store


class HealthServices:
    # An interface by inheritance (the composition root's ``Services`` derives from every
    # feature's), not a Protocol: Litestar checks an injected value against its parameter's type
    # on every request, and a runtime-checkable protocol's check walks all its members each time
    # where a class's is one lookup in the value's type.
    __slots__ = ()
    settings: Settings
    store: Store
    store_kind: Literal["memory", "redis"]


class MetricsTokenRequired(ServiceProblem):
    status, kind, title = 401, "metrics-token-required", "The metrics token is required"


AppHealthServices: TypeAlias = NamedDependency[HealthServices]
"""A handler's ``services`` parameter."""
MetricsScraper: TypeAlias = NamedDependency[None]
"""A handler's ``metrics_scraper`` parameter: nothing, once the request may read the metrics."""


def metrics_scraper(services: AppHealthServices, authorization: AuthorizationHeader = None) -> None:
    """401 unless the request sends ``Authorization: Bearer <METRICS_TOKEN>``, when the
    deployment sets one (compared in constant time); without one, anyone may read them."""
    expected = services.settings.metrics_token
    if not expected:
        return
    try:
        sent = viewer_token(authorization)
    except MissingToken:  # not a bearer token at all: as wrong as any other
        sent = ""
    if sent is None:
        raise MetricsTokenRequired(
            "send this deployment's METRICS_TOKEN as 'Authorization: Bearer <token>'"
        )
    if not hmac.compare_digest(sent.encode(), expected.encode()):
        raise MetricsTokenRequired("the token is not this deployment's METRICS_TOKEN")

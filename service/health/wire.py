"""The JSON shapes of ``/healthz`` and ``/readyz``."""

from __future__ import annotations

from typing import Literal

from service.http.wire import Out


class Health(Out, frozen=True):
    status: Literal["ok"]


class Readiness(Out, frozen=True):
    status: Literal["ready"]
    store: Literal["memory", "redis"]

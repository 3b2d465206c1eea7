"""``/healthz``, ``/readyz`` and ``/metrics``: what an orchestrator and a scraper call."""

from __future__ import annotations

from litestar import Controller, get
from prometheus_client import REGISTRY, generate_latest

from service.health.deps import AppHealthServices
from service.health.wire import Health, Readiness
from service.http.openapi_declarations import problems
from service.http.route_policy import policy


class OperationsController(Controller):
    tags = ("operations",)

    @get(
        "/healthz",
        operation_id="healthz",
        opt=policy(limits=()),
        summary="The process is up",
        sync_to_thread=False,
    )
    def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="readyz",
        opt=policy(limits=()),
        summary="The game store answers",
        description="503 while the store (Redis) cannot be reached.",
        responses=problems(503),
    )
    async def readyz(self, services: AppHealthServices) -> Readiness:
        await services.store.ping()
        return Readiness(status="ready", store=services.store_kind)

    @get(
        "/metrics",
        operation_id="metrics",
        opt=policy(limits=()),
        summary="Prometheus metrics",
        description=(
            "Request counts and latencies per route, games created, actions applied, retried "
            "actions answered from their Idempotency-Key, and hands analysed."
        ),
        # Litestar appends the charset to text/ types itself.
        media_type="text/plain; version=0.0.4",
        sync_to_thread=False,
    )
    def metrics(self) -> bytes:
        return generate_latest(REGISTRY)

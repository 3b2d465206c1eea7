"""``/healthz``, ``/readyz`` and ``/metrics``: what an orchestrator and a scraper call."""

from __future__ import annotations

from litestar import Controller, get
from litestar.di import Provide
from prometheus_client import REGISTRY, generate_latest

from service.health.deps import AppHealthServices, MetricsScraper, metrics_scraper
from service.health.wire import Health, Readiness
from service.http.openapi_declarations import METRICS_SCRAPER, problems
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
            "actions answered from their Idempotency-Key, hands analysed, and more: every "
            "metric is listed in docs/operations.md. A deployment that sets `METRICS_TOKEN` "
            "answers only a request that sends it (`metricsToken`, `Authorization: Bearer "
            "<token>`), any other with 401; one that sets none answers anyone, and keeps "
            "`/metrics` off its public path."
        ),
        # Litestar appends the charset to text/ types itself.
        media_type="text/plain; version=0.0.4",
        dependencies={"metrics_scraper": Provide(metrics_scraper, sync_to_thread=False)},
        security=METRICS_SCRAPER,
        responses=problems(
            401, descriptions={401: "The deployment sets METRICS_TOKEN, and it was not sent"}
        ),
        sync_to_thread=False,
    )
    def metrics(self, metrics_scraper: MetricsScraper) -> bytes:
        return generate_latest(REGISTRY)

"""The problems of webhooks (each a ``ServiceProblem``: ``service.http.problems`` turns it into
its answer)."""

from __future__ import annotations

from service.http.problems import ServiceProblem


class InvalidWebhookUrl(ServiceProblem):
    status, kind, title = 422, "invalid-webhook-url", "This URL cannot receive webhooks"

    def __init__(self, detail: str) -> None:
        super().__init__(detail, field="url")


class WebhookQuotaReached(ServiceProblem):
    status, kind, title = 409, "webhook-quota-reached", "As many webhooks as allowed already"


class WebhookNotFound(ServiceProblem):
    status, kind, title = 404, "webhook-not-found", "No such webhook"


class DeliveryNotFound(ServiceProblem):
    status, kind, title = 404, "delivery-not-found", "The webhook has no such delivery"


class DeliveryChanged(ServiceProblem):
    status, kind, title = 409, "delivery-changed", "The delivery changed meanwhile; try again"

"""The composition root: the app factory, the backends it picks once from the settings, the
services it hands the features, and the finishing touches of the OpenAPI document. Only this
package, and the entry points above it (``python -m service``, ``python -m service.openapi``),
import every feature."""

from service.app.factory import create_app, create_served_app

__all__ = ["create_app", "create_served_app"]

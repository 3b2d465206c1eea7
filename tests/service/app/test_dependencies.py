"""Every route's dependencies form a chain: one dependency a depth.

Litestar resolves the dependencies of one depth (those whose own dependencies are resolved) in
an anyio task group whenever there are two or more (litestar-org/litestar#4563). For the
service's dependencies, which are sync or one store read, that task group cost a request more
than the work it did: a seat's view, 231 µs in process with ``services`` and ``viewer_token``
side by side, took 142 µs as a chain. So a request's reads (its token, its Idempotency-Key) are
parameters that the dependencies and handlers read themselves (``service.http.auth``,
``service.http.idempotency``), and only what needs the app's services is a dependency."""

from __future__ import annotations

from litestar import Litestar
from litestar.routes import HTTPRoute

from service.app import create_app
from service.settings import Settings


def dependency_depths(app: Litestar) -> dict[str, list[list[str]]]:
    """Each operation's dependencies, depth by depth, as Litestar will resolve them."""
    depths: dict[str, list[list[str]]] = {}
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for method, (handler, kwargs_model) in route.route_handler_map.items():
            name = handler.operation_id or f"{method} {route.path}"
            depths[str(name)] = [
                sorted(dependency.key for dependency in depth)
                for depth in kwargs_model.dependency_batches
            ]
    return depths


def test_every_route_resolves_one_dependency_at_a_time() -> None:
    depths = dependency_depths(create_app(Settings()))
    assert len(depths) >= 52  # every operation of the document, and the pages
    side_by_side = {name: d for name, d in depths.items() if any(len(n) > 1 for n in d)}
    assert side_by_side == {}
    # The routes a person's turn takes, as they are chained today.
    assert depths["getGame"] == [["services"], ["viewer"]]
    assert depths["applyAction"] == [["services"], ["caller"]]
    assert depths["getHint"] == [["services"], ["caller"], ["acting_seat"]]

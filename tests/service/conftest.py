"""Every service test talks HTTP to a real app built by ``create_app`` (in memory, in process)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
import uvicorn
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.waiting import WAIT_SECONDS, eventually


@pytest.fixture(autouse=True)
def _quiet_http_client_log() -> None:
    # One INFO line per request drowns a failure's report.
    logging.getLogger("httpx").setLevel(logging.WARNING)


@pytest.fixture
def app() -> Litestar:
    return create_app(Settings())


def _serve(app: Litestar) -> tuple[uvicorn.Server, threading.Thread, str]:
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    eventually(lambda: server.started, "uvicorn to start")
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, thread, f"http://127.0.0.1:{port}"


@pytest.fixture
def live_server_for() -> Iterator[Callable[[Litestar], str]]:
    """Serve an app behind a real uvicorn on a free loopback port, for what the in-process test
    client cannot do (it runs one request at a time, so a stream would block every other)."""
    running: list[tuple[uvicorn.Server, threading.Thread]] = []

    def serve(app: Litestar) -> str:
        server, thread, url = _serve(app)
        running.append((server, thread))
        return url

    yield serve
    for server, thread in running:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def live_server(app: Litestar, live_server_for: Callable[[Litestar], str]) -> str:
    return live_server_for(app)


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    """One HTTP client for a test's requests to real instances: a call of ``httpx.get`` builds
    a client, and its TLS context costs tens of milliseconds of CPU, at every poll."""
    with httpx.Client(timeout=WAIT_SECONDS) as client:
        yield client


@pytest.fixture
def client(app: Litestar) -> Iterator[TestClient[Litestar]]:
    with TestClient(app) as test_client:
        yield test_client

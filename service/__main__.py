"""``python -m service`` (``make run``): the production server on $HOST:$PORT.

granian (Rust HTTP, one worker process, uvloop), chosen by measurement over uvicorn with uvloop
and httptools: see docs/performance.md and ``tests/benchmarks/bench_http.py``. The
access log is off because every request is already counted and timed in ``/metrics``.
"""

from __future__ import annotations

from granian.constants import Interfaces, Loops
from granian.log import LogLevels
from granian.server import Server

from service.settings import Settings

APP_FACTORY = "service.app:create_served_app"
"""The app factory the worker process imports: the app, its startup heap frozen (``gc.freeze``)."""


def main() -> None:
    # Read here first so a bad variable stops the server with its message, before any worker.
    settings = Settings.from_env()
    Server(
        APP_FACTORY,
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        loop=Loops.uvloop,
        workers=1,
        websockets=False,
        log_level=LogLevels(settings.log_level.lower()),
        log_access=False,
    ).serve()


if __name__ == "__main__":
    main()

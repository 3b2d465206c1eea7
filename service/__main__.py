"""``python -m service`` (``make run``): the production server on $HOST:$PORT.

granian (Rust HTTP, uvloop; ``WORKERS`` processes, one by default), chosen by measurement over
uvicorn with uvloop and httptools: see docs/performance.md and ``tests/benchmarks/bench_http.py``.
granian's access log is off: the app writes its own (``service.http.access_log``), one JSON line
per request with its route template and request id, and no token. Every other line, granian's
own among them, is a JSON object too (``service.operations.log_lines``).

Connections: granian serves at most ``MAX_CONNECTIONS`` per worker at once, idle keep-alive ones
included (its default, the listen backlog of 1,024, let a thousand idle clients take an instance
offline); a client gets ``READ_TIMEOUT`` seconds for a request's headers (granian's HTTP/1
setting) and as long again for its body (``service.http.read_timeout``).
"""

from __future__ import annotations

import errno
import logging
import logging.config
import socket

from granian.constants import Interfaces, Loops
from granian.http import HTTP1Settings
from granian.log import LogLevels
from granian.server import Server

from service.operations.log_lines import capture_python_output, process_logging
from service.settings import Settings, SettingsError

SHUTDOWN_SECONDS = 5
"""On SIGTERM, how long a worker may take to finish its open requests before it is killed. An
event stream is a request that ends only when its client leaves or after ``idle_timeout``
(300 s): without this bound a stop (a deploy, a rolling restart) waited for every open stream
for up to five minutes. Streams cut off reconnect (EventSource does, with ``Last-Event-ID``) to
another instance; a bot's move cut off is made by another instance once its lease runs out."""

APP_FACTORY = "service.app:create_served_app"
"""The app factory the worker process imports: the app, its startup heap frozen (``gc.freeze``)."""


class PortInUse(OSError):
    """Another process listens on the address: granian would share it silently."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(
            f"{host}:{port} is already in use by another process (another instance?): "
            "refusing to start beside it. Stop it, or set PORT to a free port."
        )


def check_port_free(host: str, port: int) -> None:
    """PortInUse if something listens on ``host:port``.

    granian binds with SO_REUSEPORT, so a second instance on a busy port would start without a
    word and the kernel would hand it half of the connections (in memory mode, half of the
    games would answer 404). A plain bind finds out first: SO_REUSEADDR lets it ignore the
    TIME_WAIT connections of an instance that just stopped, and on Linux it still fails on a
    port another socket listens on. (A process that binds between this check and granian's is
    not seen: the check is for the common mistake, not a lock.)
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(host, port) from None
            raise


_log = logging.getLogger("service")


def main() -> None:
    capture_python_output()
    logging.config.dictConfig(process_logging("INFO"))  # until granian configures its own
    # Read here first so a bad variable stops the server with its message, before any worker.
    try:
        settings = Settings.from_env()
        check_port_free(settings.host, settings.port)
    except (SettingsError, PortInUse) as error:
        _log.critical("cannot start: %s", error)
        raise SystemExit(2) from None
    Server(
        APP_FACTORY,
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        loop=Loops.uvloop,
        workers=settings.workers,
        backlog=settings.backlog,
        backpressure=settings.max_connections,
        http1_settings=HTTP1Settings(header_read_timeout=round(settings.read_timeout * 1000)),
        websockets=False,
        workers_kill_timeout=SHUTDOWN_SECONDS,
        log_level=LogLevels(settings.log_level.lower()),
        log_dictconfig=process_logging(settings.log_level),
        log_access=False,
    ).serve()


if __name__ == "__main__":
    main()

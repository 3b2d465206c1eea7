"""``python -m service`` (``make run``): the production server on $HOST:$PORT.

uvicorn with uvloop and httptools, one process: chosen by measurement (see the README's "Server"
section and ``tests/benchmarks/bench_http.py``). The access log is off because every request is
already counted and timed in ``/metrics``; LOG_LEVEL still governs the rest.
"""

from __future__ import annotations

import uvicorn

from service.app import create_app
from service.settings import Settings


def main() -> None:
    settings = Settings.from_env()
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        log_level=settings.log_level.lower(),
        access_log=False,
        proxy_headers=True,
        server_header=False,
    )


if __name__ == "__main__":
    main()

"""A served instance stops promptly on SIGTERM, even with an event stream open (issue 32: it
waited for the stream's ``idle_timeout``, five minutes, before it exited)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import httpx

from service.__main__ import SHUTDOWN_SECONDS
from tests.redis_servers import ServiceInstance
from tests.waiting import WAIT_SECONDS


def test_sigterm_with_an_open_stream_exits_within_the_shutdown_bound(tmp_path: Path) -> None:
    server = ServiceInstance(tmp_path / "service.log", env={}).start()
    assert server.process is not None
    try:
        game = httpx.post(
            f"{server.url}/v1/games",
            json={"players": [{"name": "a"}, {"name": "b"}]},
            timeout=WAIT_SECONDS,
        )
        game_id = game.json()["game_id"]
        opened, ended = threading.Event(), threading.Event()

        def follow() -> None:
            try:
                with httpx.stream(
                    "GET", f"{server.url}/v1/games/{game_id}/events", timeout=None
                ) as events:
                    for _ in events.iter_lines():
                        opened.set()
            except httpx.HTTPError:
                pass  # the connection cut off by the stopping server
            ended.set()

        threading.Thread(target=follow, daemon=True).start()
        assert opened.wait(WAIT_SECONDS), "the stream sent its snapshot"

        os.kill(server.process.pid, signal.SIGTERM)  # as `kill -TERM <pid>` does
        # Generous beside the bound (a busy machine), and far below the stream's 300 s.
        server.process.wait(timeout=SHUTDOWN_SECONDS + WAIT_SECONDS)
        assert ended.wait(WAIT_SECONDS), "the stream ended with the server"
    finally:
        server.kill()

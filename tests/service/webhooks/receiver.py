"""A webhook receiver for the tests: a real HTTP server on a loopback port, in a thread, that
keeps every request it gets (headers and body, as received). It can be stopped and started
again on the same port (a receiver that is down), or told to hold each request until released
(a slow one)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes


class Receiver:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status = 204
        self.released = threading.Event()
        self.released.set()
        self.holding = 0
        """Requests waiting for ``released`` now."""
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with receiver._lock:
                    receiver.holding += 1
                receiver.released.wait()
                with receiver._lock:
                    receiver.holding -= 1
                    receiver.received.append(
                        Received({k.lower(): v for k, v in self.headers.items()}, body)
                    )
                self.send_response(receiver.status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening: connections are refused until ``start`` again (same port)."""
        assert self._server is not None
        assert self._thread is not None
        self.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
        self._server = None

    def ids(self) -> list[str]:
        with self._lock:
            return [each.headers["webhook-id"] for each in self.received]

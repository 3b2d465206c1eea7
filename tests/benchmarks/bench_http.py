"""HTTP throughput of the production server, measured from a second process over loopback.

``main()`` starts ``python -m service`` (what ``make run`` runs: granian) on a free port, then
runs a load client in another process: 32 keep-alive connections, each sending its next request
as soon as the last answer arrived. In one run, alternating so that machine noise hits both alike:

- ``GET /healthz``: the framework's floor (routing, middleware, metrics, JSON);
- ``POST /v1/analyse`` with random 14-card hands (a hand of round 11 that has just drawn):
  the exact analysis on top of the same framework. Target: at least 70% of the healthz rate;
- game actions: one game per connection, each drawing from the stock and discarding, as the seat
  on turn (load, token check, apply, store commit, event publication).

The client is a few lines of asyncio over raw sockets (HTTP/1.1, Content-Length bodies), so that
it costs the shared CPUs far less than the server it measures.

It measures granian (``make run``) and then uvicorn with uvloop and httptools, the runner-up, for
the server choice in the README; ``--server NAME...`` picks which.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

CONNECTIONS = 32
ROUND_SECONDS = 3.0
ROUNDS = 2
"""Each scenario runs this many times, alternating with the others; the figures add them up."""

HOST = "127.0.0.1"


# -- the load client (runs in its own process) ----------------------------------------------------


@dataclass
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer)

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await self.reader.readexactly(length) if length else b""
        return status, body


def build_request(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> bytes:
    payload = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", f"Content-Length: {len(payload)}"]
    if body is not None:
        lines.append("Content-Type: application/json")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def random_hands(count: int, seed: int = 13) -> list[bytes]:
    rng = random.Random(seed)
    deck = [r + s for r in "A23456789TJQK" for s in "CDHS"] * 2
    return [
        build_request(
            "POST",
            "/v1/analyse",
            {"hand": rng.sample(deck, 14), "wild": rng.choice("3456789TJQK"), "rules": "classic"},
        )
        for _ in range(count)
    ]


async def timed_loop(
    connections: list[Connection],
    seconds: float,
    step: Callable[[int, Connection], Awaitable[bool]],
) -> tuple[int, int, list[float]]:
    """Run ``step`` on every connection until time is up: (ok count, errors, latencies in s)."""
    latencies: list[float] = []
    counts = [0, 0]
    stop = time.perf_counter() + seconds

    async def worker(index: int, connection: Connection) -> None:
        while time.perf_counter() < stop:
            started = time.perf_counter()
            ok = await step(index, connection)
            latencies.append(time.perf_counter() - started)
            counts[0 if ok else 1] += 1

    await asyncio.gather(*(worker(i, c) for i, c in enumerate(connections)))
    return counts[0], counts[1], latencies


@dataclass
class GameSeat:
    game_id: str
    tokens: list[str]
    turn: int
    hand: list[str] | None = None


async def run_client(port: int) -> dict[str, dict[str, Any]]:
    connections = [await Connection.open(port) for _ in range(CONNECTIONS)]
    health = build_request("GET", "/healthz")
    hands = random_hands(256)
    games: list[GameSeat] = []
    for connection in connections:
        status, body = await connection.request(
            build_request("POST", "/v1/games", {"players": [{"name": "a"}, {"name": "b"}]})
        )
        assert status == 201, body
        created = json.loads(body)
        games.append(
            GameSeat(
                created["game_id"], [s["token"] for s in created["seats"]], created["view"]["turn"]
            )
        )

    async def healthz(_: int, connection: Connection) -> bool:
        return (await connection.request(health))[0] == 200

    async def analyse(index: int, connection: Connection) -> bool:
        return (await connection.request(hands[random.randrange(len(hands))]))[0] == 200

    async def act(index: int, connection: Connection) -> bool:
        game = games[index]
        auth = {"Authorization": f"Bearer {game.tokens[game.turn]}"}
        if game.hand is None:
            action: dict[str, Any] = {"type": "draw", "source": "stock"}
        else:
            action = {"type": "discard", "card": game.hand[0]}
        status, body = await connection.request(
            build_request("POST", f"/v1/games/{game.game_id}/actions", action, auth)
        )
        if status != 200:
            return False
        view = json.loads(body)
        if view["status"] != "playing":
            return True
        game.hand = (
            view["hand"] if view["phase"] == "discard" and view["turn"] == game.turn else None
        )
        game.turn = view["turn"]
        return True

    scenarios = {"GET /healthz": healthz, "POST /v1/analyse": analyse, "game actions": act}
    results: dict[str, dict[str, Any]] = {
        name: {"ok": 0, "errors": 0, "lat": [], "secs": 0.0} for name in scenarios
    }
    for _ in range(ROUNDS):
        for name, step in scenarios.items():
            ok, errors, latencies = await timed_loop(connections, ROUND_SECONDS, step)
            results[name]["ok"] += ok
            results[name]["errors"] += errors
            results[name]["lat"] += latencies
            results[name]["secs"] += ROUND_SECONDS
    for connection in connections:
        connection.writer.close()
    summary = {}
    for name, r in results.items():
        latencies = sorted(r["lat"])
        summary[name] = {
            "rate": r["ok"] / r["secs"],
            "errors": r["errors"],
            "p50_ms": 1000 * latencies[len(latencies) // 2],
            "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
        }
    return summary


# -- the server and the table ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def start_server(kind: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOST": HOST, "PORT": str(port), "REDIS_URL": "", "LOG_LEVEL": "WARNING"}
    if kind == "granian":  # the production server: what `make run` starts
        command = [sys.executable, "-m", "service"]
    elif kind == "uvicorn":
        command = [
            sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app",
            "--host", HOST, "--port", str(port), "--loop", "uvloop", "--http", "httptools",
            "--no-access-log", "--log-level", "warning",
        ]  # fmt: skip
    else:
        raise ValueError(f"unknown server {kind!r}: granian or uvicorn")
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(
                    f"{kind} exited: {process.stderr.read().decode() if process.stderr else ''}"
                ) from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{kind} did not start on port {port}")


def measure(kind: str) -> dict[str, dict[str, Any]]:
    port = free_port()
    server = start_server(kind, port)
    try:
        client = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.bench_http", "--client", str(port)],
            capture_output=True,
            check=True,
            timeout=300,
        )
        results: dict[str, dict[str, Any]] = json.loads(client.stdout)
        return results
    finally:
        server.terminate()
        server.wait(timeout=10)


def print_table(kind: str, results: dict[str, dict[str, Any]]) -> None:
    health = results["GET /healthz"]["rate"]
    print(
        f"HTTP on {kind}: {CONNECTIONS} connections, {ROUNDS}x{ROUND_SECONDS:.0f}s per row, "
        "load client in another process"
    )
    name, rate, ratio, p50, p99, errors = (
        "scenario",
        "req/s",
        "vs healthz",
        "p50 ms",
        "p99 ms",
        "errors",
    )
    print(f"{name:<20} {rate:>9} {ratio:>11} {p50:>8} {p99:>8} {errors:>7}")
    for name, r in results.items():
        print(
            f"{name:<20} {r['rate']:>9.0f} {r['rate'] / health:>10.0%} "
            f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['errors']:>7}"
        )


def main() -> None:
    # The production server first, then the runner-up, for the README's server choice.
    kinds = (
        sys.argv[2:] if len(sys.argv) > 2 and sys.argv[1] == "--server" else ["granian", "uvicorn"]
    )
    for kind in kinds:
        print_table(kind, measure(kind))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--client":
        print(json.dumps(asyncio.run(run_client(int(sys.argv[2])))))
    else:
        main()

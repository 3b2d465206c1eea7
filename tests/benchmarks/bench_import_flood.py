"""A person's game beside one client that imports the largest legal record in a loop (issue 44,
finding 1: imports replayed on the event loop let a person make 2 actions in 15 s, p99 6.5 s).

One production server (``python -m service``, in memory) whose limits are off (one load
generator). One client posts the largest record the import takes (``MAX_IMPORT_VERSIONS``
actions, just under ``MAX_RECORD_BYTES``), again and again, on ``IMPORTERS`` connections, while
a person plays against a ``normal`` bot and two connections time ``/healthz``. Figures: the
person's actions and ``/healthz`` (p50, p99, how many), and the imports answered. Target: a
person's action p99 under 50 ms, as beside anything else.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from engine.records import MAX_RECORD_BYTES
from service.records.imports import MAX_IMPORT_VERSIONS
from tests.benchmarks.bench_costly import percentile
from tests.benchmarks.bench_http import (
    HOST,
    Connection,
    build_request,
    free_port,
    start_server,
)
from tests.service.records.long_records import long_record_text

SECONDS = 20.0
IMPORTERS = 2
STALLS_PER_VERSIONS = 2
"""Each stall of ``long_finished_game`` is two actions (a draw and a discard)."""
TARGET_P99_MS = 50.0


@dataclass
class Figures:
    health_ms: list[float] = field(default_factory=list)
    action_ms: list[float] = field(default_factory=list)
    imports: dict[int, int] = field(default_factory=dict)


def largest_record() -> bytes:
    """The longest record under both limits (the stalls leave room for the game's own end)."""
    stalls = MAX_IMPORT_VERSIONS // STALLS_PER_VERSIONS - 2_000
    text = long_record_text(stalls).encode()
    while len(text) > MAX_RECORD_BYTES:
        stalls -= 1_000
        text = long_record_text(stalls).encode()
    return text


async def import_in_a_loop(port: int, stop: float, record: bytes, figures: Figures) -> None:
    connection = await Connection.open(port)
    head = (
        f"POST /v1/records HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(record)}\r\n"
        "Content-Type: text/plain\r\n\r\n"
    )
    post = head.encode() + record
    while time.perf_counter() < stop:
        status, _ = await connection.request(post)
        figures.imports[status] = figures.imports.get(status, 0) + 1


async def play(port: int, stop: float, figures: Figures) -> None:
    connection = await Connection.open(port)
    body = {"players": [{"name": "person"}, {"bot": "normal"}]}
    status, answer = await connection.request(build_request("POST", "/v1/games", body))
    assert status == HTTPStatus.CREATED, answer
    created = json.loads(answer)
    seat, token = created["seats"][0]["seat"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{created['game_id']}"
    while time.perf_counter() < stop:
        status, answer = await connection.request(build_request("GET", path, None, auth))
        view = json.loads(answer)
        if view["status"] != "playing":
            return
        if view["turn"] != seat:
            await asyncio.sleep(0.01)
            continue
        action: dict[str, Any] = (
            {"type": "draw", "source": "stock"}
            if view["phase"] == "draw"
            else {"type": "discard", "card": view["hand"][0]}
        )
        started = time.perf_counter()
        status, answer = await connection.request(
            build_request("POST", f"{path}/actions", action, auth)
        )
        figures.action_ms.append(1000 * (time.perf_counter() - started))
        assert status == HTTPStatus.OK, answer


async def probe_health(port: int, stop: float, figures: Figures) -> None:
    connection = await Connection.open(port)
    health = build_request("GET", "/healthz")
    while time.perf_counter() < stop:
        started = time.perf_counter()
        assert (await connection.request(health))[0] == HTTPStatus.OK
        figures.health_ms.append(1000 * (time.perf_counter() - started))
        await asyncio.sleep(0.002)


async def measure(port: int, record: bytes, importers: int) -> Figures:
    figures = Figures()
    stop = time.perf_counter() + SECONDS
    await asyncio.gather(
        *(import_in_a_loop(port, stop, record, figures) for _ in range(importers)),
        *(probe_health(port, stop, figures) for _ in range(2)),
        play(port, stop, figures),
    )
    return figures


def run(record: bytes, importers: int) -> Figures:
    port = free_port()
    server = start_server("granian", port)
    try:
        return asyncio.run(measure(port, record, importers))
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    record = largest_record()
    rows = {"alone": run(record, 0), f"{IMPORTERS} importers": run(record, IMPORTERS)}
    print(
        f"a person against a normal bot, 2 connections timing /healthz, {SECONDS:.0f} s a row; "
        f"the record: {len(record):,} bytes; target action p99 < {TARGET_P99_MS:.0f} ms"
    )
    print(
        f"{'beside':<14} {'healthz p50':>12} {'p99':>8} {'action p50':>11} {'p99':>8} "
        f"{'actions':>8}  imports answered"
    )
    for name, f in rows.items():
        print(
            f"{name:<14} {percentile(f.health_ms, 0.5):>9.2f} ms "
            f"{percentile(f.health_ms, 0.99):>5.1f} ms {percentile(f.action_ms, 0.5):>8.2f} ms "
            f"{percentile(f.action_ms, 0.99):>5.1f} ms {len(f.action_ms):>8}  {f.imports}"
        )


if __name__ == "__main__":
    main()

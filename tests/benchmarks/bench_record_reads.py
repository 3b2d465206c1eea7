"""``GET /v1/games/{id}/record`` of games of some 20,000 actions, as every read built it before
(a replay of the whole game) and as it is built now (``service.records.finished``: a page from
the game's state at the page's cost, a long read in a worker process), with ``/healthz`` timed
beside each, side by side in one run (``python -m tests.benchmarks record_reads``).

Two server processes (uvicorn, in memory, limits off) hold the same two games, stored as a game
is: one still in play (two deals played, then 10,000 upcards drawn and discarded again), one
finished (``long_finished_game``). The "before" server answers the route as it did before this
change, on its event loop: the game loaded, its record built by replaying it
(``engine.records.record.replayed_record``), the page cut from it and formatted; so did a
finished game's first page read in each process. The "after" server is the route as it is. One
client process reads the same record ``READS`` times on one connection while another connection
asks ``/healthz`` again and again; the servers take turns, one at a time. Figures: the read's
median wall time, and ``/healthz``'s p50 and max during the reads.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from tests.benchmarks.bench_costly import percentile
from tests.benchmarks.bench_http import HOST, Connection, build_request, free_port
from tests.redis_servers import LIMITS_OFF

STALLS: Final = 10_000
"""Upcards drawn and discarded again: some 20,000 actions."""
READS: Final = 9
LIVE, FINISHED = "live-game", "finished-game"
ROWS: Final[tuple[tuple[str, str, str, dict[str, str]], ...]] = (
    ("page of 10, in play", LIVE, "?since=10000&limit=10", {}),
    ("page of 10, finished", FINISHED, "?since=10000&limit=10", {}),
    ("whole, in play", LIVE, "", {}),
    ("whole text, in play", LIVE, "", {"Accept": "text/plain"}),
)
"""Each read: its name, the game, the query, the headers. A finished game's whole record was
kept before as it is now (one store read), so it is not among them."""


# -- the servers (each runs in its own process) ---------------------------------------------


def serve(port: int, before: bool) -> None:
    """Serve the two games on ``port``; ``before``: with the route's work as it was."""
    import uvicorn  # noqa: PLC0415  # the server process only

    from engine import game  # noqa: PLC0415
    from service.app import create_app  # noqa: PLC0415
    from service.games import records as game_records  # noqa: PLC0415
    from service.records import finished  # noqa: PLC0415
    from service.settings import Settings  # noqa: PLC0415
    from tests.service.records.long_records import (  # noqa: PLC0415
        long_finished_game,
        long_game_in_play,
    )

    app = create_app(Settings.from_env())
    services = app.state["services"]
    states = {LIVE: long_game_in_play(STALLS), FINISHED: long_finished_game(STALLS)}

    async def store_games() -> None:
        for game_id, state in states.items():
            parts = game.dumps_parts(state, game.Sealed(0, 0, 0))
            record = game_records.GameRecord(
                state=parts.head, token_hashes=(b"",) * len(state.players), created=0.0
            )
            encoded = game_records.encode_record(record)
            segments = game_records.segments_of(parts)
            await services.store.create(game_id, encoded, segments=segments)

    app.on_startup.append(store_games)
    if before:
        finished.record_answer = replayed_answer
    uvicorn.run(app, host=HOST, port=port, log_level="warning", loop="uvloop", http="httptools")


async def replayed_answer(
    services: Any, game_id: str, *, text: bool, since: int, limit: int | None
) -> bytes:
    """The route's work before: the record built by a replay at every read, on the loop."""
    from engine.records import record_page  # noqa: PLC0415
    from engine.records.record import replayed_record  # noqa: PLC0415
    from service.games import lifecycle  # noqa: PLC0415
    from service.records import logic  # noqa: PLC0415

    loaded = await lifecycle.load_game(services, game_id)
    record = replayed_record(loaded.state, **logic.record_headers(loaded))
    page, next_since = (
        (record, None) if since == 0 and limit is None else (record_page(record, since, limit))
    )
    if text:
        return logic.record_text(page, next_since).encode()
    return msgspec.json.encode(logic.record_body(page, next_since))


def start(before: bool) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, **LIMITS_OFF, "REDIS_URL": "", "LOG_LEVEL": "WARNING"}
    command = [sys.executable, "-m", "tests.benchmarks.bench_record_reads", "serve", str(port)]
    process = subprocess.Popen([*command, "before" if before else "after"], env=env)
    return process, port


# -- the client ---------------------------------------------------------------------------------


@dataclass
class Timed:
    read_ms: list[float] = field(default_factory=list)
    health_ms: list[float] = field(default_factory=list)
    body_bytes: int = 0


async def ready(port: int) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            connection = await Connection.open(port)
            status, _ = await connection.request(build_request("GET", f"/v1/games/{FINISHED}"))
            connection.writer.close()
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.5)
    raise RuntimeError(f"the server on port {port} did not start")


async def timed(port: int, path: str, headers: dict[str, str]) -> Timed:
    figures = Timed()
    reader, health = await Connection.open(port), await Connection.open(port)
    read = build_request("GET", path, None, headers)
    status, body = await reader.request(read)  # decoded caches filled
    assert status == 200, body
    figures.body_bytes = len(body)
    done = asyncio.Event()

    async def poll() -> None:
        ask = build_request("GET", "/healthz")
        while not done.is_set():
            start = time.perf_counter()
            await health.request(ask)
            figures.health_ms.append((time.perf_counter() - start) * 1000)

    poller = asyncio.create_task(poll())
    for _ in range(READS):
        start = time.perf_counter()
        status, body = await reader.request(read)
        figures.read_ms.append((time.perf_counter() - start) * 1000)
        assert status == 200, body
    done.set()
    await poller
    return figures


async def measure() -> None:
    servers = {before: start(before) for before in (True, False)}
    try:
        for _, port in servers.values():
            await ready(port)
        print(f"games of {STALLS * 2:,}+ actions; {READS} reads each, /healthz asked beside")
        print(
            f"{'read':<22}{'bytes':>10}{'before ms':>11}{'after ms':>10}{'ratio':>9}"
            f"{'/healthz p50 / max, before':>30}{'after':>18}"
        )
        for name, game_id, query, headers in ROWS:
            path = f"/v1/games/{game_id}/record{query}"
            before = await timed(servers[True][1], path, headers)
            after = await timed(servers[False][1], path, headers)
            old, new = statistics.median(before.read_ms), statistics.median(after.read_ms)
            print(
                f"{name:<22}{after.body_bytes:>10,}{old:>11.1f}{new:>10.2f}{old / new:>8.0f}x"
                f"{_health(before):>30}{_health(after):>18}"
            )
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=30)


def _health(figures: Timed) -> str:
    values = figures.health_ms
    return f"{percentile(values, 0.5):.1f} / {max(values):.0f} ms"


def main() -> None:
    asyncio.run(measure())


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(int(sys.argv[2]), sys.argv[3] == "before")
    else:
        main()

"""What an open player's stream costs an idle instance (``python -m tests.benchmarks
player_streams``; ``--quick`` for fewer streams), side by side with a seat's game stream:

A real server (``python -m service``, memory) with 1,000 players, each in a game. The server's
resident memory (its process group, from /proc) is read with no stream open, then with one
stream open per player (or, on a second fresh server, one game stream per seat). Each figure is
the growth divided by the streams open: the memory per open stream. ``/healthz`` latency is
sampled beside the open streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

import httpx

from tests.redis_servers import LIMITS_OFF, ServiceInstance

STREAMS: Final = 200 if "--quick" in sys.argv else 1000
_PAGE: Final = os.sysconf("SC_PAGE_SIZE")


def group_rss(group: int) -> int:
    """Resident bytes of the live processes of a process group, from /proc."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group:  # state, ppid, pgrp, ...; rss (pages) at 21
                total += int(fields[21]) * _PAGE
    return total


async def players_in_games(client: httpx.AsyncClient, count: int) -> list[tuple[str, str, str]]:
    """``count`` players, each with a game against a bot: (key, game id, seat token)."""
    made = []
    for n in range(count):
        player = (await client.post("/v1/players", json={"name": f"P{n}"})).json()
        auth = {"Authorization": f"Bearer {player['key']}"}
        game = await client.post(
            "/v1/games", json={"players": [{"me": True}, {"name": "Guest"}]}, headers=auth
        )
        created = game.json()
        made.append((player["key"], created["game_id"], created["seats"][0]["token"]))
    return made


async def held_open(
    client: httpx.AsyncClient, urls: list[tuple[str, str]], group: int
) -> tuple[float, float]:
    """Open one stream per (path, secret), wait until each has answered, and measure the
    server's memory and ``/healthz`` with them all open; the streams are closed on the way
    out."""
    opened = 0
    all_open = asyncio.Event()

    async def follow(path: str, secret: str) -> None:
        nonlocal opened
        headers = {"Authorization": f"Bearer {secret}"}
        async with client.stream("GET", path, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            opened += 1
            if opened == len(urls):
                all_open.set()
            async for _ in response.aiter_bytes():
                pass

    tasks = [asyncio.create_task(follow(path, secret)) for path, secret in urls]
    try:
        await asyncio.wait_for(all_open.wait(), timeout=120)
        await asyncio.sleep(1.0)  # let the server settle: what it holds, not what it builds
        return float(group_rss(group)), await healthz_p50(client)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def healthz_p50(client: httpx.AsyncClient) -> float:
    times = []
    for _ in range(50):
        started = time.perf_counter()
        await client.get("/healthz")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def per_stream(server: ServiceInstance, kind: str) -> tuple[float, float, float]:
    """The server's idle memory, then the KiB each open stream of ``kind`` adds to it, and
    ``/healthz`` p50 with them open."""
    assert server.process is not None
    group = server.process.pid
    limits = httpx.Limits(max_connections=STREAMS + 20, max_keepalive_connections=STREAMS + 20)
    async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as client:
        made = await players_in_games(client, STREAMS)
        await asyncio.sleep(1.0)
        idle = group_rss(group)
        if kind == "player":
            urls = [("/v1/players/me/events", key) for key, _, _ in made]
        else:
            urls = [(f"/v1/games/{game}/events", token) for _, game, token in made]
        opened, health = await held_open(client, urls, group)
    return idle, (opened - idle) / STREAMS / 1024, health


def main() -> None:
    env = {
        **LIMITS_OFF,
        "MAX_STREAMS": str(4 * STREAMS),
        "MAX_STREAMS_PER_CLIENT": str(4 * STREAMS),
        "STREAM_LIFETIME": "3600",
    }
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("game", "player"):  # each on a fresh server: no heap left by the other
            server = ServiceInstance(Path(folder) / f"{kind}.log", env).start()
            try:
                rows.append((kind, *asyncio.run(per_stream(server, kind))))
            finally:
                server.stop()
    print(f"{STREAMS} streams open on one idle server (memory), each kind on a fresh one")
    print(f"{'stream':<26}{'idle MiB':>10}{'KiB per stream':>16}{'/healthz p50 ms':>17}")
    for kind, idle, kib, health in rows:
        name = "a player's stream" if kind == "player" else "a seat's game stream"
        print(f"{name:<26}{idle / 2**20:>10.1f}{kib:>16.1f}{health:>17.2f}")
    print(f"ratio, player / game: {rows[1][2] / rows[0][2]:.2f}")


if __name__ == "__main__":
    main()

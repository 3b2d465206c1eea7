"""What an open player's stream costs an idle instance (``python -m tests.benchmarks
player_streams``; ``--quick`` for fewer streams), side by side with a seat's game stream:

One real server (``python -m service``, memory) with 1,000 players, each in a game. The
server's resident memory (its process group, from /proc) is read with no stream open, then with
one stream open per player, then with one game stream open per seat instead. Each figure is the
growth divided by the streams open: the memory per open stream. ``/healthz`` latency is sampled
beside the open streams.
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


async def held_open(client: httpx.AsyncClient, urls: list[tuple[str, str]], group: int) -> float:
    """Open one stream per (path, secret), wait until each has answered, and measure the
    server's memory with them all open; the streams are closed on the way out."""
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
        return float(group_rss(group))
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


async def measure(server: ServiceInstance) -> None:
    assert server.process is not None
    group = server.process.pid
    limits = httpx.Limits(max_connections=STREAMS + 20, max_keepalive_connections=STREAMS + 20)
    async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as client:
        made = await players_in_games(client, STREAMS)
        await asyncio.sleep(1.0)
        idle = group_rss(group)
        quiet_health = await healthz_p50(client)
        players = await held_open(
            client, [("/v1/players/me/events", key) for key, _, _ in made], group
        )
        await asyncio.sleep(1.0)
        between = group_rss(group)
        games = await held_open(
            client, [(f"/v1/games/{game}/events", token) for _, game, token in made], group
        )
    per_player = (players - idle) / STREAMS / 1024
    per_game = (games - between) / STREAMS / 1024
    print(
        f"{STREAMS} streams; the server idle: {idle / 2**20:.1f} MiB, /healthz p50 "
        f"{quiet_health:.2f} ms"
    )
    print(f"{'stream':<28}{'KiB per open stream':>22}")
    print(f"{'a player stream':<28}{per_player:>22.1f}")
    print(f"{'a game stream (a seat)':<28}{per_game:>22.1f}")
    print(f"ratio, player / game: {per_player / per_game:.2f}" if per_game > 0 else "")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **LIMITS_OFF,
            "MAX_STREAMS": str(4 * STREAMS),
            "MAX_STREAMS_PER_CLIENT": str(4 * STREAMS),
            "STREAM_LIFETIME": "3600",
        }
        server = ServiceInstance(Path(folder) / "service.log", env).start()
        try:
            asyncio.run(measure(server))
        finally:
            server.stop()


if __name__ == "__main__":
    main()

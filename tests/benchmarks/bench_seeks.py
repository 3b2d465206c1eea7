"""Quick play across two instances (``python -m tests.benchmarks seeks``; ``--quick`` for fewer
seekers, ``--rated`` for rated seeks, matched by rating: every seeker a newcomer): the time
from a seek to its game's start, as each seeker's own stream hears it.

Two real servers (``python -m service``) on one private redis-server. Each of 200 players opens
its NDJSON stream on one instance (alternately), then the players seek, 40 a second in random
order, each on the other instance: half of them a table of two, half a table of four, classic.
A seeker waits for its table's last seeker, so two figures: from each table's last seek sent
(the one that completed it) to ``game_start`` on each of its seats' streams, which is what the
service takes; and from each seek sent to its start, the wait for the other seekers included.
Every seeker must be in exactly one game.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Final

import httpx

from tests.redis_servers import LIMITS_OFF, RedisServer, ServiceInstance

SEEKERS: Final = 40 if "--quick" in sys.argv else 200
RATED: Final = "--rated" in sys.argv
ARRIVALS_PER_SECOND: Final = 40


class Seeker:
    def __init__(self, key: str, follows: str, seeks_on: str, players: int) -> None:
        self.key, self.follows, self.seeks_on, self.players = key, follows, seeks_on, players
        self.sent = 0.0
        self.matched_at: float | None = None
        self.started = asyncio.get_running_loop().create_future()
        self.game_id: str | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


async def follow(client: httpx.AsyncClient, seeker: Seeker, open_streams: list[int]) -> None:
    """Read the seeker's stream until ``game_start``, noting when it came."""
    headers = {**seeker.auth, "Accept": "application/x-ndjson"}
    url = f"{seeker.follows}/v1/players/me/events"
    async with client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        open_streams[0] += 1
        async for line in response.aiter_lines():
            if line and json.loads(line)["type"] == "game_start":
                seeker.game_id = json.loads(line)["game_id"]
                seeker.started.set_result(time.perf_counter())
                return


async def arriving(client: httpx.AsyncClient, seeker: Seeker, after: float) -> None:
    await asyncio.sleep(after)  # the arrivals' schedule, not a wait for a condition
    await seek(client, seeker)


async def seek(client: httpx.AsyncClient, seeker: Seeker) -> None:
    seeker.sent = time.perf_counter()
    response = await client.post(
        f"{seeker.seeks_on}/v1/seeks",
        json={"players": seeker.players, "rules": "classic", "rated": RATED},
        headers=seeker.auth,
    )
    assert response.status_code == 201, response.text
    if response.json()["status"] == "matched":
        seeker.matched_at = seeker.sent


async def run(urls: list[str]) -> list[Seeker]:
    limits = httpx.Limits(max_connections=2 * SEEKERS + 20)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        seekers = []
        for n in range(SEEKERS):
            made = await client.post(f"{urls[n % 2]}/v1/players", json={"name": f"P{n}"})
            players = 2 if n % 2 == 0 else 4
            seekers.append(Seeker(made.json()["key"], urls[n % 2], urls[(n + 1) % 2], players))
        open_streams = [0]
        streams = [asyncio.create_task(follow(client, s, open_streams)) for s in seekers]
        while open_streams[0] < SEEKERS:  # every stream answered: it hears what comes after
            await asyncio.sleep(0.01)
        order = random.Random(13).sample(seekers, len(seekers))
        await asyncio.gather(
            *(arriving(client, s, n / ARRIVALS_PER_SECOND) for n, s in enumerate(order))
        )
        await asyncio.wait_for(asyncio.gather(*streams), timeout=120)
        return seekers


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        redis = RedisServer(Path(folder) / "redis").start()
        env = {**LIMITS_OFF, "REDIS_URL": redis.url, "MAX_STREAMS_PER_CLIENT": "1000"}
        servers = [ServiceInstance(Path(folder) / f"s{n}.log", env).start() for n in range(2)]
        try:
            seekers = asyncio.run(run([s.url for s in servers]))
        finally:
            for server in servers:
                server.stop()
            redis.stop()
    games = Counter(s.game_id for s in seekers)
    sizes = {s.game_id: s.players for s in seekers}
    assert all(count == sizes[game] for game, count in games.items()), "a seeker in two games"
    match_of = {s.game_id: s.matched_at for s in seekers if s.matched_at is not None}
    to_start = [(s.started.result() - s.sent) * 1000 for s in seekers]
    from_match = [(s.started.result() - match_of[s.game_id]) * 1000 for s in seekers]
    print(
        f"{SEEKERS} {'rated' if RATED else 'unrated'} seekers, {ARRIVALS_PER_SECOND} a second, "
        "streams and seeks spread over 2 instances on one Redis"
    )
    print(f"games made: {len(games)} (each seeker in exactly one)")
    print(f"{'time to game_start on each stream (ms)':<40}{'p50':>8}{'p99':>8}")
    for name, values in (
        ("from the table's last seek sent", from_match),
        ("from each seek sent (waits included)", to_start),
    ):
        p50, p99 = percentiles(values)
        print(f"{name:<40}{p50:>8.1f}{p99:>8.1f}")


if __name__ == "__main__":
    main()

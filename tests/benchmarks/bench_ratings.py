"""Ratings (``python -m tests.benchmarks ratings``; ``--quick`` for fewer repetitions): the CPU a
rated game's update costs, and a leaderboard's pages at 100,000 players on Redis.

- **Update CPU**: ``model.rated`` (openskill's Plackett-Luce over the seats' entries) and the
  encoding of the new entries and the result, what ``updates.apply_result`` computes per game
  before its one script, for tables of 2, 4 and 8; CPU time (``time.process_time``) per game.
- **Pages on Redis**: a redis-server of its own holds one rating key's board of 100,000
  established players; ``RedisRatingStore.page`` (one script: the rank, the range, the
  entries) around a random player, from the top, deep in the board, and a game applied (its
  script, reading the entries first), each timed from this process, p50 and p99 over
  ``REQUESTS`` requests, and Redis's own time per script call (``INFO commandstats``), which
  the load of a shared machine does not inflate as it does the client's p99.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

import redis.asyncio as aioredis

from service.ratings import model
from service.ratings.model import Entry, GameResult, Seated
from service.ratings.redis_store import RedisRatingStore
from service.ratings.updates import apply_result
from tests.redis_servers import RedisServer

QUICK: Final = "--quick" in sys.argv
GAMES: Final = 500 if QUICK else 5000
PLAYERS: Final = 100_000
REQUESTS: Final = 300 if QUICK else 2000
PAGE: Final = 20
KEY: Final = "classic"


def a_result(rng: random.Random, seats: int, game: int) -> tuple[GameResult, list[Entry]]:
    players = [f"p{n}" for n in rng.sample(range(PLAYERS), seats)]
    result = GameResult(
        f"g{game}",
        KEY,
        tuple(Seated(p, p, False) for p in players),
        tuple(rng.randrange(seats) for _ in players),
        float(game),
    )
    entries = [
        Entry(rng.uniform(15, 35), rng.uniform(1, 8), rng.randrange(100), p, False) for p in players
    ]
    return result, entries


def update_cpu_us(seats: int) -> float:
    """CPU microseconds per game of ``seats``: the new entries and their encoding."""
    rng = random.Random(seats)
    games = [a_result(rng, seats, n) for n in range(GAMES)]
    started = time.process_time()
    for result, before in games:
        after = model.rated(result, before)
        [model.encode(entry) for entry in after]
        model.encode(result)
    return (time.process_time() - started) / GAMES * 1e6


async def seeded(store: RedisRatingStore, client: aioredis.Redis) -> None:
    """``PLAYERS`` established entries on one board, written in batches."""
    rng = random.Random(1)
    entries, board = store.name(KEY, "entries"), store.name(KEY, "board")
    batch = 10_000
    for first in range(0, PLAYERS, batch):
        made = {
            f"p{n}": Entry(rng.uniform(10, 40), rng.uniform(1, 3), 10 + n % 90, f"P{n}", False)
            for n in range(first, first + batch)
        }
        async with client.pipeline(transaction=False) as pipe:
            pipe.hset(entries, mapping={p: model.encode(e) for p, e in made.items()})
            pipe.zadd(board, {p: e.rating for p, e in made.items()})
            await pipe.execute()


async def pages(url: str) -> tuple[dict[str, list[float]], dict[str, float]]:
    client = aioredis.Redis.from_url(url)
    store = RedisRatingStore(client, key_prefix="bench")
    await seeded(store, client)
    rng = random.Random(2)
    found: dict[str, list[float]] = {}
    scripts: dict[str, float] = {}
    for name, start in (
        ("around a random player", lambda: f"p{rng.randrange(PLAYERS)}"),
        ("the top", lambda: 0),
        ("from rank 50,000 (a cursor)", lambda: 50_000),
    ):
        times = []
        await client.config_resetstat()
        for _ in range(REQUESTS):
            begun = time.perf_counter()
            page = await store.page(KEY, False, start(), PAGE)
            times.append((time.perf_counter() - begun) * 1000)
            assert page is not None
            assert len(page.entries) == PAGE
        found[name] = times
        scripts[name] = await script_us(client)
    applied = []
    await client.config_resetstat()
    for game in range(REQUESTS):
        result, _ = a_result(rng, 4, game)
        begun = time.perf_counter()
        assert await apply_result(store, result) == "applied"
        applied.append((time.perf_counter() - begun) * 1000)
    name = "a 4-player game applied (read, compute, script)"
    found[name] = applied
    scripts[name] = await script_us(client)
    await client.aclose()
    return found, scripts


async def script_us(client: aioredis.Redis) -> float:
    """Redis's own time per script call since the last reset (``INFO commandstats``)."""
    stats = await client.info("commandstats")
    return float(stats["cmdstat_evalsha"]["usec_per_call"])


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    print(f"rating update CPU per game ({GAMES} games each; openskill Plackett-Luce)")
    print(f"{'seats':<10}{'CPU per game (us)':>20}")
    for seats in (2, 4, 8):
        print(f"{seats:<10}{update_cpu_us(seats):>20.1f}")
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(Path(folder) / "redis").start()
        try:
            found, scripts = asyncio.run(pages(server.url))
        finally:
            server.stop()
    print(
        f"\nleaderboard on Redis: {PLAYERS:,} established players, pages of {PAGE}, "
        f"{REQUESTS} requests each, one client"
    )
    print(f"{'request':<52}{'p50 ms':>8}{'p99 ms':>8}{'in Redis us':>13}")
    for name, times in found.items():
        p50, p99 = percentiles(times)
        print(f"{name:<52}{p50:>8.2f}{p99:>8.2f}{scripts[name]:>13.1f}")


if __name__ == "__main__":
    main()

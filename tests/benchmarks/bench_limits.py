"""Hardening targets, side by side in one run (``make bench`` or ``python -m tests.benchmarks
limits``; ``--quick`` for fewer samples):

1. A long game: an action (draw the upcard, discard it again) in a fresh game and in one of
   40,000 actions, on memory and on Redis (in process, through the app), and the bytes Redis
   takes in per action; next to them, the size of the whole record each write used to be.
2. The same long game's stream resumed from version 0 on a real server (Redis, so the game can
   be put there without 40,000 requests), by one client and by 32 at once: events per second,
   and ``/healthz`` latency meanwhile.
3. ``/healthz`` latency on a real server (memory) idle, beside 2,000 idle connections and slow
   bodies, and beside 1,100 event streams opened by one client (and how they were answered).
4. Creating a game with an empty memory store and with 100,000 games in it; beside it, the scan
   of 100,000 games that every create used to make.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import re
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Final

import httpx
import msgspec
from litestar import Litestar

from engine import game
from engine.game import Discard, Draw, GameState
from service.app import create_app
from service.games import records as game_records
from service.games.records import GameRecord
from service.settings import Settings
from service.storage.game_store import MemoryStore, Store
from service.storage.redis_game_store import RedisStore
from tests.redis_servers import (
    LIMITS_OFF,
    LeanHttpClient,
    RedisServer,
    ServiceInstance,
    redis_cli,
)

UNLIMITED: Final = Settings(
    rate_limit_per_minute=0,
    creations_per_day=0,
    claims_per_day=0,
    bot_games_per_client=0,
    log_level="WARNING",
)
"""The per-client limits off: one load generator, one address; no line per request in the
tables."""

LONG = 40_000
QUICK = "--quick" in sys.argv
PAIRS = 60 if QUICK else 200
HEALTH_SAMPLES = 100 if QUICK else 300
FILLED = 100_000


def long_state(actions: int) -> GameState:
    state = game.new_game(["a", "b"], "classic", 11)
    while state.version < actions:
        seat = state.turn
        state = game.apply(state, seat, Draw("discard", None))
        state = game.apply(state, seat, Discard(state.upcard, False))  # type: ignore[arg-type]
    return state


async def put_game(store: Store, game_id: str, state: GameState) -> list[str]:
    """Store ``state`` as the service would have; the seats' tokens."""
    tokens = [game_records.new_token() for _ in state.players]
    hashes = tuple(game_records.token_hash(token) for token in tokens)
    parts = game.dumps_parts(state, game.Sealed(0, 0))
    record = GameRecord(state=parts.head, token_hashes=hashes, created=game_records.now())
    encoded = game_records.encode_record(record)
    await store.create(game_id, encoded, segments=game_records.segments_of(parts))
    return tokens


async def put_on_redis(url: str, game_id: str, state: GameState) -> list[str]:
    """``put_game`` through a store of its own (a client is bound to its event loop)."""
    store = RedisStore.from_url(url, game_ttl=3600, idempotency_ttl=3600)
    try:
        return await put_game(store, game_id, state)
    finally:
        await store.close()


def p(values: list[float], quantile: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f}"


# -- 1. an action's cost ------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def in_process(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """The app started in this event loop, and a client that calls it through ASGI: no thread
    between them (Litestar's test clients hop to a thread per request, several ms on a busy
    machine, which would drown what is measured)."""
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # an ASGI app all the same
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://x") as client,
    ):
        yield client


async def two_seat_game(client: httpx.AsyncClient) -> tuple[str, list[str], int]:
    body = {"players": [{"name": "a"}, {"name": "b"}]}
    created = (await client.post("/v1/games", json=body)).json()
    return created["game_id"], [s["token"] for s in created["seats"]], created["view"]["turn"]


async def action_pairs(
    client: httpx.AsyncClient, game_id: str, tokens: list[str], turn: int
) -> list[float]:
    """Each pair by the seat on turn: draw the upcard, discard it again (the turn passes)."""
    url = f"/v1/games/{game_id}/actions"
    times = []
    for _ in range(PAIRS):
        headers = {"Authorization": f"Bearer {tokens[turn]}"}
        started = time.perf_counter()
        drawn = await client.post(url, json={"type": "draw", "source": "discard"}, headers=headers)
        card = drawn.json()["upcard"]
        done = await client.post(url, json={"type": "discard", "card": card}, headers=headers)
        times.append(time.perf_counter() - started)
        assert done.status_code == 200, done.text
        turn = done.json()["turn"]
    return times


async def pair_costs(kind: str, redis: RedisServer, long: GameState) -> tuple[float, float, float]:
    """p50 of a pair in a fresh game and in the long one; Redis's bytes in per action."""
    app = create_app(
        msgspec.structs.replace(UNLIMITED, redis_url=redis.url if kind == "redis" else "")
    )
    store = app.state["services"].store
    async with in_process(app) as client:
        fresh_id, tokens, turn = await two_seat_game(client)
        fresh = await action_pairs(client, fresh_id, tokens, turn)
        long_id = game_records.new_game_id()
        if kind == "redis":
            long_tokens = await put_on_redis(redis.url, long_id, long)
        else:
            long_tokens = await put_game(store, long_id, long)
        await client.get(f"/v1/games/{long_id}")  # decoded once, as any instance does first
        before = net_input(redis)
        long_times = await action_pairs(client, long_id, long_tokens, long.turn)
        taken = (net_input(redis) - before) / (2 * PAIRS)
    return statistics.median(fresh), statistics.median(long_times), taken


def bench_actions(redis: RedisServer, long: GameState) -> None:
    print(f"\n1. an action pair (upcard drawn, discarded again), p50 of {PAIRS}, in process")
    print(f"   {'store':8} {'fresh ms':>9} {'40k ms':>8} {'ratio':>6} {'Redis in B/action':>18}")
    for kind in ("memory", "redis"):
        fresh, longer, taken = asyncio.run(pair_costs(kind, redis, long))
        written = f"{taken:18.0f}" if kind == "redis" else f"{'-':>18}"
        print(f"   {kind:8} {ms(fresh):>9} {ms(longer):>8} {longer / fresh:6.2f} {written}")
    print(
        f"   before: each write was the whole record, {len(game.dumps(long)):,} B at "
        f"{long.version:,} actions; now its head, "
        f"{len(game.dumps_parts(long, game.sealed_of(long)).head):,} B, and a 64-record chunk "
        "every 64 actions"
    )


def net_input(redis: RedisServer) -> int:
    for line in redis_cli(redis.port, "INFO", "stats").splitlines():
        if line.startswith("total_net_input_bytes:"):
            return int(line.split(":")[1])
    raise AssertionError("no total_net_input_bytes in INFO stats")


# -- 2. a long game's stream resumed from 0 ------------------------------------------------------


async def health_latencies(
    url: str, samples: int, stop: Callable[[], bool] | None = None
) -> list[float]:
    client = LeanHttpClient(url)
    times: list[float] = []
    try:
        for _ in range(samples):
            if stop is not None and stop():
                break
            started = time.perf_counter()
            response = await client.get("/healthz")
            times.append(time.perf_counter() - started)
            assert response.status == 200
            await asyncio.sleep(0.01)
    finally:
        await client.close()
    return times


ACTION_LINE: Final = re.compile(rb"\nevent: action\r?\n")
"""An action event's type line, ended as the server ends its lines (``\r\n``) or by ``\n``."""


async def read_stream(port: int, game_id: str) -> tuple[int, float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /v1/games/{game_id}/events?idle_timeout=0 HTTP/1.1\r\nHost: x\r\n"
        "Last-Event-ID: 0\r\n\r\n".encode()
    )
    started = time.perf_counter()
    events = 0
    buffer = b""
    while chunk := await reader.read(1 << 16):
        buffer += chunk
        # Whole lines only: the tail kept from the last newline holds no whole event line, so
        # none is counted twice when a write ends inside one.
        events += len(ACTION_LINE.findall(buffer))
        buffer = buffer[buffer.rfind(b"\n") :]
        if b"0\r\n\r\n" in chunk[-7:]:
            break
    writer.close()
    return events, time.perf_counter() - started


def read_streams(port: int, game_id: str, clients: int) -> list[tuple[int, float]]:
    """``clients`` streams of the game read at once: the events each took, and its seconds."""

    async def read_all() -> list[tuple[int, float]]:
        return await asyncio.gather(*(read_stream(port, game_id) for _ in range(clients)))

    return asyncio.run(read_all())


RESUMES: Final = (1, 32)
"""Clients resuming the long game's stream at once: one, and a crowd (every phone of a tour
coming back from a tunnel)."""


def bench_stream(workdir: Path, redis: RedisServer, long: GameState) -> None:
    server = ServiceInstance(
        workdir / "stream.log", env={"REDIS_URL": redis.url, **LIMITS_OFF}
    ).start()
    rows: list[tuple[int, list[tuple[int, float]], float, list[float]]] = []
    try:
        game_id = game_records.new_game_id()
        asyncio.run(put_on_redis(redis.url, game_id, long))

        # The readers take in up to 1.7 GB: in a process of their own, so that their work does
        # not delay the /healthz answers this process times.
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as readers:
            readers.submit(read_streams, server.port, game_id, 0).result()  # started beforehand
            for clients in RESUMES:
                started = time.perf_counter()
                streaming = readers.submit(read_streams, server.port, game_id, clients)
                health = asyncio.run(health_latencies(server.url, 10**6, stop=streaming.done))
                rows.append((clients, streaming.result(), time.perf_counter() - started, health))
    finally:
        server.stop()
    print(f"\n2. the {long.version:,}-action game's stream resumed from version 0 (Redis)")
    print(
        f"   {'streams':>7} {'events each':>11} {'s':>6} {'events/s':>9} "
        f"{'/healthz p50 ms':>15} {'p99 ms':>8} {'max ms':>8} {'samples':>7}"
    )
    for clients, read, seconds, health in rows:
        each = {events for events, _ in read}
        shown = f"{min(each):,}" if len(each) == 1 else f"{min(each):,}-{max(each):,}"
        rate = sum(events for events, _ in read) / seconds
        print(
            f"   {clients:>7} {shown:>11} {seconds:6.1f} {rate:9,.0f} "
            f"{ms(p(health, 0.5)):>15} {ms(p(health, 0.99)):>8} {ms(max(health)):>8} "
            f"{len(health):>7}"
        )


# -- 3. idle connections, slow bodies, many streams ----------------------------------------------


async def open_idle(port: int, count: int) -> list[asyncio.StreamWriter]:
    writers = []
    for _ in range(count):
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writers.append(writer)
    return writers


async def open_slow_bodies(port: int, count: int) -> list[asyncio.StreamWriter]:
    writers = []
    for _ in range(count):
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
        writers.append(writer)
    return writers


async def open_streams(url: str, game_id: str, count: int) -> tuple[dict[int, int], list[Any]]:
    port = int(url.rsplit(":", 1)[1])
    statuses: dict[int, int] = {}
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /v1/games/{game_id}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        statuses[status] = statuses.get(status, 0) + 1
        held.append(writer)
    return statuses, held


def bench_connections(workdir: Path) -> None:
    server = ServiceInstance(
        workdir / "connections.log", env={"READ_TIMEOUT": "30", **LIMITS_OFF}
    ).start()
    rows: list[tuple[str, list[float]]] = []
    try:

        async def scenario() -> dict[int, int]:
            rows.append(("idle server", await health_latencies(server.url, HEALTH_SAMPLES)))
            idle = await open_idle(server.port, 2000)
            slow = await open_slow_bodies(server.port, 100)
            rows.append(
                ("2,000 idle + 100 slow bodies", await health_latencies(server.url, HEALTH_SAMPLES))
            )
            for writer in idle + slow:
                writer.close()
            client = LeanHttpClient(server.url)
            created = await client.post("/v1/games", {"players": [{"name": "a"}, {"name": "b"}]})
            await client.close()
            statuses, streams = await open_streams(server.url, created.json()["game_id"], 1100)
            rows.append(
                ("1,100 streams, one client", await health_latencies(server.url, HEALTH_SAMPLES))
            )
            for writer in streams:
                writer.close()
            return statuses

        statuses = asyncio.run(scenario())
    finally:
        server.stop()
    print("\n3. /healthz on a real server (memory), one request every 10 ms")
    print(f"   {'beside':30} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, times in rows:
        print(f"   {name:30} {ms(p(times, 0.5)):>8} {ms(p(times, 0.99)):>8} {ms(max(times)):>8}")
    answered = ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
    print(f"   the 1,100 streams were answered: {answered}")


# -- 4. create with a full memory store -----------------------------------------------------------


async def create_p50(filled: int) -> float:
    app = create_app(msgspec.structs.replace(UNLIMITED, max_games=FILLED + 10 * PAIRS))
    store: MemoryStore = app.state["services"].store
    body = {"players": [{"name": "a"}, {"name": "b"}]}
    async with in_process(app) as client:
        created = await client.post("/v1/games", json=body)
        stored = await store.load(created.json()["game_id"])  # a real game's record
        assert stored is not None
        for number in range(filled):
            await store.create(f"filler-{number}", stored.record, segments=stored.segments)
        gc.collect()
        times = []
        for _ in range(PAIRS):
            started = time.perf_counter()
            response = await client.post("/v1/games", json=body)
            times.append(time.perf_counter() - started)
            assert response.status_code == 201
    return statistics.median(times)


async def store_create_seconds(filled: int, creates: int = 20_000) -> float:
    """The store's own create (expiry included), best of 5 runs of ``creates``: less noise
    than a request's on a busy machine."""
    store = MemoryStore(max_games=FILLED + 10 * creates)
    for number in range(filled):
        await store.create(f"filler-{number}", b"record")
    best = float("inf")
    for run in range(5):
        started = time.perf_counter()
        for number in range(creates):
            await store.create(f"new-{run}-{number}", b"record")
        best = min(best, (time.perf_counter() - started) / creates)
    return best


def bench_creates() -> None:
    alone = [asyncio.run(store_create_seconds(n)) for n in (0, FILLED)]
    empty, full = asyncio.run(create_p50(0)), asyncio.run(create_p50(FILLED))
    games = {f"g{n}": (None, float(n)) for n in range(FILLED)}
    started = time.perf_counter()
    _ = [g for g, (_, until) in games.items() if until < -1.0]
    scan = time.perf_counter() - started
    print(f"\n4. POST /v1/games on the memory store, p50 of {PAIRS}, in process")
    print(f"   empty {ms(empty)} ms; {FILLED:,} games {ms(full)} ms; ratio {full / empty:.2f}")
    print(
        f"   MemoryStore.create alone: empty {alone[0] * 1e6:.2f} us; {FILLED:,} games "
        f"{alone[1] * 1e6:.2f} us; ratio {alone[1] / alone[0]:.2f}"
    )
    print(f"   before: each create also scanned every game, {ms(scan)} ms at {FILLED:,} games")


def main() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    workdir = Path(tempfile.mkdtemp(prefix="bench-limits-"))
    redis = RedisServer(workdir / "redis").start()
    try:
        long = long_state(LONG)
        bench_actions(redis, long)
        bench_stream(workdir, redis, long)
        bench_connections(workdir)
        bench_creates()
    finally:
        redis.stop()


if __name__ == "__main__":
    main()

"""``POST /v1/analyse/batch`` against the engine's own rate, side by side in one run.

10,000 random 14-card hands (a hand of round 11 that has just drawn: two packs, classic rules, a
random wild rank), the same hands in every row:

- the engine: ``engine.analyse`` on each hand in this process, CPU time of one core;
- the batch as a JSON array, and as NDJSON: one request to the production server
  (``python -m service``, what ``make run`` runs: granian, in memory, limits off), timed from the
  request's first byte to the answer's last line, over loopback. Every hand of a deal is cheap,
  so the whole batch is analysed on the server's event loop: one core.

Each row runs ``ROUNDS`` times, alternating, so that machine noise hits them alike; the table
gives each row's median, the ratio to the engine's median, and each round's ratio (the engine's
and the batch's runs seconds apart). Target: the batch at 50% of the engine's rate or more.
Beside it, CPU time per hand: the engine's in this process, a batch's on the server's busiest
thread, its event loop (Linux's /proc, in clock ticks: ±0.01 s a batch); on a shared machine
the steadier figure.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx

from engine import Rules, analyse
from engine.cards import parse_cards, parse_rank
from tests.benchmarks.bench_http import HOST, free_port, start_server, thread_cpu

HANDS = 10_000
ROUNDS = 3
TARGET = 0.5
SEED = 13
NDJSON = "application/x-ndjson"


def batch_entries(count: int, seed: int = SEED) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    deck = [r + s for r in "A23456789TJQK" for s in "CDHS"] * 2
    return [
        {"hand": rng.sample(deck, 14), "wild": rng.choice("3456789TJQK"), "rules": "classic"}
        for _ in range(count)
    ]


def engine_seconds(entries: list[dict[str, Any]]) -> float:
    """CPU seconds of ``engine.analyse`` on every entry's hand (parsed beforehand)."""
    rules = Rules.preset_named("classic")
    hands = [(parse_cards(entry["hand"]), parse_rank(entry["wild"])) for entry in entries]
    start = time.process_time()
    for hand, wild in hands:
        analyse(hand, wild, rules)
    return time.process_time() - start


def batch_run(
    client: httpx.Client, url: str, body: bytes, content_type: str, server_pid: int
) -> tuple[float, float, int]:
    """Seconds from the request to the answer's last line, the server's busiest thread's CPU
    seconds meanwhile, and the lines answered."""
    before = thread_cpu(server_pid)
    lines = 0
    start = time.perf_counter()
    with client.stream(
        "POST", f"{url}/v1/analyse/batch", content=body, headers={"content-type": content_type}
    ) as response:
        assert response.status_code == 200, response.read()
        for chunk in response.iter_bytes():
            lines += chunk.count(b"\n")
    seconds = time.perf_counter() - start
    after = thread_cpu(server_pid)
    busiest = max((after[t] - before.get(t, 0.0) for t in after), default=float("nan"))
    return seconds, busiest, lines


def main() -> None:
    entries = batch_entries(HANDS)
    as_array = json.dumps(entries).encode()
    as_ndjson = "\n".join(json.dumps(entry) for entry in entries).encode()
    port = free_port()
    server = start_server("granian", port)
    url = f"http://{HOST}:{port}"
    rows: dict[str, list[float]] = {"engine": [], "batch, JSON array": [], "batch, NDJSON": []}
    loop_cpu: dict[str, list[float]] = {name: [] for name in rows}
    try:
        with httpx.Client(timeout=120) as client:
            warm_up = json.dumps(entries[:100]).encode()
            batch_run(client, url, warm_up, "application/json", server.pid)
            runs: dict[str, Callable[[], tuple[float, float]]] = {
                "engine": lambda: (seconds := engine_seconds(entries), seconds),
                "batch, JSON array": lambda: _checked(
                    batch_run(client, url, as_array, "application/json", server.pid)
                ),
                "batch, NDJSON": lambda: _checked(
                    batch_run(client, url, as_ndjson, NDJSON, server.pid)
                ),
            }
            for _ in range(ROUNDS):
                for name, run in runs.items():
                    seconds, cpu = run()
                    rows[name].append(seconds)
                    loop_cpu[name].append(cpu)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print_table(rows, loop_cpu, len(as_array), len(as_ndjson))


def _checked(run: tuple[float, float, int]) -> tuple[float, float]:
    seconds, cpu, lines = run
    assert lines == HANDS, lines
    return seconds, cpu


def print_table(
    rows: dict[str, list[float]], loop_cpu: dict[str, list[float]], array: int, ndjson: int
) -> None:
    engine = statistics.median(rows["engine"])
    print(
        f"{HANDS:,} random 14-card hands (classic, two packs, random wild), {ROUNDS} rounds "
        f"alternating; bodies {array:,} bytes (array), {ndjson:,} (NDJSON); target "
        f"{TARGET:.0%} of the engine's rate"
    )
    engine_cpu = statistics.median(loop_cpu["engine"])
    print(
        "| row | median s | hands/s | of the engine's rate | each round | "
        "CPU µs/hand (a batch: the server's loop) | of the engine's, by CPU |"
    )
    print("|---|---:|---:|---:|---|---:|---:|")
    for name, times in rows.items():
        median = statistics.median(times)
        rounds = ", ".join(
            f"{engine_time / t:.0%}" for engine_time, t in zip(rows["engine"], times, strict=True)
        )
        cpu = statistics.median(loop_cpu[name])
        print(
            f"| {name} | {median:.3f} | {HANDS / median:,.0f} | {engine / median:.0%} | "
            f"{rounds} | {1e6 * cpu / HANDS:.1f} | {engine_cpu / cpu:.0%} |"
        )

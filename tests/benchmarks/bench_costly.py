"""Costly analyses beside everything else: does one instance stay responsive?

Issue 20's slowest known 30-card hand (eight jokers, sevens wild, at most one wild per meld)
takes a tenth of a second or more, holding the interpreter's lock all the while. Here 16 clients
loop it (or, in the last row, a costly ``POST /v1/advise``: draw-phase advice for 15 cards and an
upcard) against the production server (``python -m service``) while two connections time
``GET /healthz`` and two play game actions (a draw or a discard each), all from this process over
loopback. An analysis client answered 503 waits the Retry-After it was given, as a client should.

Side by side in one run, each configuration twice, alternating:

- no analyses: the floor of the probes' latency on this machine;
- costly analyses in worker processes: the service's default (``service.workers.pool``);
- every analysis on the event loop (``ANALYSIS_INLINE_CARDS=30``, ``ANALYSIS_INLINE_WILDS=30``):
  what a thread amounts to, since the analysis never lets go of the lock.

Target: with the analyses, ``/healthz`` and game actions p99 under 50 ms.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from http import HTTPStatus

from tests.benchmarks.bench_http import (
    Connection,
    build_request,
    free_port,
    new_game,
    play_turn,
    start_server,
)
from tests.service.costly_hands import COSTLY_ADVICE, SLOWEST_KNOWN

ANALYSIS_CLIENTS = 16
PROBES = 2
"""Connections timing /healthz, and as many playing game actions."""
SECONDS = 6.0
ROUNDS = 2
TARGET_P99_MS = 50.0

SLOW_REQUEST = build_request("POST", "/v1/analyse", SLOWEST_KNOWN)
ADVICE_REQUEST = build_request("POST", "/v1/advise", COSTLY_ADVICE)
CONFIGURATIONS: dict[str, tuple[bytes | None, dict[str, str]]] = {
    "no analyses": (None, {}),
    "costly ones in processes": (SLOW_REQUEST, {}),
    "all on the event loop": (
        SLOW_REQUEST,
        {"ANALYSIS_INLINE_CARDS": "30", "ANALYSIS_INLINE_WILDS": "30"},
    ),
    "costly advice (16 cards)": (ADVICE_REQUEST, {}),
}


@dataclass
class Figures:
    health_ms: list[float] = field(default_factory=list)
    action_ms: list[float] = field(default_factory=list)
    analyses: int = 0
    refused: int = 0
    seconds: float = 0.0


async def measure(port: int, load: bytes | None, figures: Figures) -> None:
    stop = time.perf_counter() + SECONDS
    health = build_request("GET", "/healthz")

    async def analysing() -> None:
        connection = await Connection.open(port)
        while time.perf_counter() < stop:
            assert load is not None
            status, _ = await connection.request(load)
            if status == HTTPStatus.OK:
                figures.analyses += 1
            elif status == HTTPStatus.SERVICE_UNAVAILABLE:
                figures.refused += 1
                await asyncio.sleep(1)  # the Retry-After of the 503
            else:
                # With every analysis on the event loop, the loop stalls past READ_TIMEOUT
                # before it reads a waiting request's body: 408, and the client tries again.
                assert status == HTTPStatus.REQUEST_TIMEOUT, status
                figures.refused += 1

    async def probing_health() -> None:
        connection = await Connection.open(port)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            assert (await connection.request(health))[0] == HTTPStatus.OK
            figures.health_ms.append(1000 * (time.perf_counter() - started))

    async def playing() -> None:
        connection = await Connection.open(port)
        game = await new_game(connection)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            assert await play_turn(connection, game)
            figures.action_ms.append(1000 * (time.perf_counter() - started))

    began = time.perf_counter()
    tasks = [probing_health() for _ in range(PROBES)] + [playing() for _ in range(PROBES)]
    if load is not None:
        tasks += [analysing() for _ in range(ANALYSIS_CLIENTS)]
    await asyncio.gather(*tasks)
    figures.seconds += time.perf_counter() - began


def run(name: str, figures: Figures) -> None:
    load, settings = CONFIGURATIONS[name]
    port = free_port()
    server = start_server("granian", port, settings)
    try:
        # The first costly analysis starts the worker process: not part of the figures.
        asyncio.run(analyse_once(port))
        asyncio.run(measure(port, load, figures))
    finally:
        server.terminate()
        server.wait(timeout=10)


async def analyse_once(port: int) -> None:
    connection = await Connection.open(port)
    status, body = await connection.request(SLOW_REQUEST)
    assert status == HTTPStatus.OK, body
    connection.writer.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


def main() -> None:
    results = {name: Figures() for name in CONFIGURATIONS}
    for _ in range(ROUNDS):
        for name, figures in results.items():
            run(name, figures)
    print(
        f"{ANALYSIS_CLIENTS} clients looping the slowest known 30-card hand, {PROBES} timing "
        f"/healthz and {PROBES} playing; {ROUNDS}x{SECONDS:.0f}s per row, target p99 < "
        f"{TARGET_P99_MS:.0f} ms"
    )
    print(
        f"{'configuration':<26} {'healthz p50':>12} {'p99':>8} {'actions p50':>12} {'p99':>8} "
        f"{'analyses/s':>11} {'503s/s':>7}"
    )
    for name, f in results.items():
        print(
            f"{name:<26} {percentile(f.health_ms, 0.5):>9.2f} ms "
            f"{percentile(f.health_ms, 0.99):>5.1f} ms {percentile(f.action_ms, 0.5):>9.2f} ms "
            f"{percentile(f.action_ms, 0.99):>5.1f} ms {f.analyses / f.seconds:>11.1f} "
            f"{f.refused / f.seconds:>7.1f}"
        )


if __name__ == "__main__":
    main()

"""People beside a flood of bot-only games: does a person's game still get its share?

One production server (``python -m service``, in memory, one bot process) runs
``BOT_GAMES`` two-seat games of ``expert`` bots only, all in flight, while two connections time
``GET /healthz`` and ``PEOPLE`` people each play a game against an ``expert`` bot: draw from the
stock, discard the first card, then poll their view until it is their turn again. Figures:

- ``/healthz`` and a person's own action (the time until its answer): p50 and p99;
- the bot's reply in the person's game: from the person's discard until their view shows their
  turn again (the bot's draw and discard, each decided in the worker process), p50 and p99;
- bot moves a second in all (``three_thirteen_bot_moves``), what the one bot process carries.

Targets: ``/healthz`` and a person's action p99 under 50 ms. The bot-only games' decisions wait
in a lane of their own behind the people's (``service.workers.pool``).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from tests.benchmarks.bench_costly import percentile
from tests.benchmarks.bench_http import Connection, build_request, free_port, start_server

BOT_GAMES = 50
PEOPLE = 2
SECONDS = 30.0
POLL_SECONDS = 0.01
TARGET_P99_MS = 50.0
BOTS_ONLY = {"players": [{"bot": "expert"}, {"bot": "expert"}]}
PERSON_AND_BOT = {"players": [{"name": "person"}, {"bot": "expert"}]}


@dataclass
class Figures:
    health_ms: list[float] = field(default_factory=list)
    action_ms: list[float] = field(default_factory=list)
    reply_ms: list[float] = field(default_factory=list)
    bot_moves: float = 0.0
    seconds: float = 0.0


async def create(connection: Connection, body: dict[str, Any]) -> dict[str, Any]:
    status, answer = await connection.request(build_request("POST", "/v1/games", body))
    assert status == HTTPStatus.CREATED, answer
    created: dict[str, Any] = json.loads(answer)
    return created


async def bot_moves(connection: Connection) -> float:
    status, body = await connection.request(build_request("GET", "/metrics"))
    assert status == HTTPStatus.OK
    found = re.findall(rb"^three_thirteen_bot_moves_total\{[^}]*\} ([0-9.e+]+)$", body, re.M)
    return sum(float(value) for value in found)


async def play(port: int, stop: float, figures: Figures) -> None:
    """A person against an expert bot, game after game, until ``stop``."""
    connection = await Connection.open(port)
    while time.perf_counter() < stop:
        created = await create(connection, PERSON_AND_BOT)
        seat, token = created["seats"][0]["seat"], created["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        path = f"/v1/games/{created['game_id']}"
        look = build_request("GET", path, None, auth)
        waited_since: float | None = None
        while time.perf_counter() < stop:
            status, body = await connection.request(look)
            assert status == HTTPStatus.OK, body
            view = json.loads(body)
            if view["status"] != "playing":
                break
            if view["turn"] != seat:
                await asyncio.sleep(POLL_SECONDS)
                continue
            if waited_since is not None:
                figures.reply_ms.append(1000 * (time.perf_counter() - waited_since))
                waited_since = None
            if view["phase"] == "draw":
                action: dict[str, Any] = {"type": "draw", "source": "stock"}
            else:
                action = {"type": "discard", "card": view["hand"][0]}
            started = time.perf_counter()
            status, body = await connection.request(
                build_request("POST", f"{path}/actions", action, auth)
            )
            figures.action_ms.append(1000 * (time.perf_counter() - started))
            assert status == HTTPStatus.OK, body
            if action["type"] == "discard":
                waited_since = time.perf_counter()


async def probe_health(port: int, stop: float, figures: Figures) -> None:
    connection = await Connection.open(port)
    health = build_request("GET", "/healthz")
    while time.perf_counter() < stop:
        started = time.perf_counter()
        assert (await connection.request(health))[0] == HTTPStatus.OK
        figures.health_ms.append(1000 * (time.perf_counter() - started))
        await asyncio.sleep(0.002)


async def measure(port: int, bot_games: int) -> Figures:
    figures = Figures()
    connection = await Connection.open(port)
    for _ in range(bot_games):
        await create(connection, BOTS_ONLY)
    await asyncio.sleep(2)  # the bot process started, the bot-only games under way
    moves_before = await bot_moves(connection)
    began = time.perf_counter()
    stop = began + SECONDS
    await asyncio.gather(
        *(probe_health(port, stop, figures) for _ in range(2)),
        *(play(port, stop, figures) for _ in range(PEOPLE)),
    )
    figures.seconds = time.perf_counter() - began
    # A connection of its own: the server closed the first one, idle since.
    figures.bot_moves = await bot_moves(await Connection.open(port)) - moves_before
    return figures


def run(bot_games: int) -> Figures:
    port = free_port()
    server = start_server("granian", port, {"BOT_PROCESSES": "1"})
    try:
        return asyncio.run(measure(port, bot_games))
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    rows = {f"{n} bot-only expert games": run(n) for n in (0, BOT_GAMES)}
    print(
        f"{PEOPLE} people each against an expert bot, 2 connections timing /healthz, "
        f"{SECONDS:.0f} s per row, one bot process; target p99 < {TARGET_P99_MS:.0f} ms"
    )
    print(
        f"{'beside':<26} {'healthz p50':>12} {'p99':>8} {'action p50':>11} {'p99':>8} "
        f"{'bot reply p50':>14} {'p99':>9} {'replies':>8} {'bot moves/s':>12}"
    )
    for name, f in rows.items():
        print(
            f"{name:<26} {percentile(f.health_ms, 0.5):>9.2f} ms "
            f"{percentile(f.health_ms, 0.99):>5.1f} ms {percentile(f.action_ms, 0.5):>8.2f} ms "
            f"{percentile(f.action_ms, 0.99):>5.1f} ms {percentile(f.reply_ms, 0.5):>11.0f} ms "
            f"{percentile(f.reply_ms, 0.99):>6.0f} ms {len(f.reply_ms):>8} "
            f"{f.bot_moves / f.seconds:>12.1f}"
        )


if __name__ == "__main__":
    main()

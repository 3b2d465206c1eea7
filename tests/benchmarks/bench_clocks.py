"""Another client's clock beside one client's flood of clock games (issue 44, finding 9).

One production server (``python -m service``, in memory) behind which every client is told
apart by ``X-Forwarded-For`` (``TRUSTED_PROXIES``: the load generator). The flooding client asks
for ``FLOOD`` two-person games with a 3 s turn clock that nobody plays, so each clock runs out
and a ``normal`` bot plays the turn, again and again. Beside it, another client:

- lets the clock of a 3 s game of its own run out, game after game: the lateness of the first
  takeover (the time from the game's creation until its view shows version 1);
- plays a game against a ``normal`` bot: the bot's reply, from the person's discard until their
  view shows their turn again.

Two rows, side by side: the flood unbounded (``CLOCK_GAMES_PER_CLIENT=0``, the service before
the bound) and bounded (the default, ``CLOCK_GAMES_PER_CLIENT`` games a client, the rest refused
with 429). Targets: the other client's 3 s clock fires within 4 s, its bot replies at p99
under 1 s.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from service.settings import Settings
from tests.benchmarks.bench_costly import percentile
from tests.benchmarks.bench_http import Connection, build_request, free_port, start_server

FLOOD = 1150
CLOCK = 3
SECONDS = 30.0
POLL_SECONDS = 0.05
FLOODER = {"X-Forwarded-For": "198.51.100.7"}
"""Documentation addresses (RFC 5737), only ever a header: every request goes to loopback."""
OTHER = {"X-Forwarded-For": "203.0.113.9"}
PEOPLE = [{"name": "Ann"}, {"name": "Bob"}]


@dataclass
class Figures:
    refused: int = 0
    takeover_s: list[float] = field(default_factory=list)
    reply_ms: list[float] = field(default_factory=list)


async def create(connection: Connection, body: dict[str, Any], headers: dict[str, str]) -> Any:
    status, answer = await connection.request(build_request("POST", "/v1/games", body, headers))
    return status, json.loads(answer)


async def flood(port: int, figures: Figures) -> None:
    connection = await Connection.open(port)
    for _ in range(FLOOD):
        status, _ = await create(connection, {"players": PEOPLE, "turn_seconds": CLOCK}, FLOODER)
        if status == HTTPStatus.TOO_MANY_REQUESTS:
            figures.refused += 1
        else:
            assert status == HTTPStatus.CREATED


async def clocks_run_out(port: int, stop: float, figures: Figures) -> None:
    """The other client's 3 s clocks, one game at a time: how long until the first takeover."""
    connection = await Connection.open(port)
    while time.perf_counter() < stop:
        created_at = time.perf_counter()
        status, game = await create(connection, {"players": PEOPLE, "turn_seconds": CLOCK}, OTHER)
        assert status == HTTPStatus.CREATED, game
        look = build_request("GET", f"/v1/games/{game['game_id']}", None, OTHER)
        while time.perf_counter() < stop + 4 * CLOCK:
            status, body = await connection.request(look)
            assert status == HTTPStatus.OK, body
            if json.loads(body)["version"] > 0:
                figures.takeover_s.append(time.perf_counter() - created_at)
                break
            await asyncio.sleep(POLL_SECONDS)


async def play(port: int, stop: float, figures: Figures) -> None:
    """The other client against a normal bot (no clock): the bot's replies."""
    connection = await Connection.open(port)
    status, created = await create(
        connection, {"players": [{"name": "person"}, {"bot": "normal"}]}, OTHER
    )
    assert status == HTTPStatus.CREATED, created
    seat, token = created["seats"][0]["seat"], created["seats"][0]["token"]
    auth = {**OTHER, "Authorization": f"Bearer {token}"}
    path = f"/v1/games/{created['game_id']}"
    waited_since: float | None = None
    while time.perf_counter() < stop:
        status, body = await connection.request(build_request("GET", path, None, auth))
        view = json.loads(body)
        if view["status"] != "playing":
            return
        if view["turn"] != seat:
            await asyncio.sleep(0.01)
            continue
        if waited_since is not None:
            figures.reply_ms.append(1000 * (time.perf_counter() - waited_since))
            waited_since = None
        if view["phase"] == "draw":
            action: dict[str, Any] = {"type": "draw", "source": "stock"}
        else:
            action = {"type": "discard", "card": view["hand"][0]}
        status, body = await connection.request(
            build_request("POST", f"{path}/actions", action, auth)
        )
        assert status == HTTPStatus.OK, body
        if action["type"] == "discard":
            waited_since = time.perf_counter()


async def measure(port: int) -> Figures:
    figures = Figures()
    await flood(port, figures)
    stop = time.perf_counter() + SECONDS
    await asyncio.gather(clocks_run_out(port, stop, figures), play(port, stop, figures))
    return figures


def run(bound: int) -> Figures:
    port = free_port()
    server = start_server(
        "granian",
        port,
        {
            "TRUSTED_PROXIES": "127.0.0.1",
            "CLOCK_GAMES_PER_CLIENT": str(bound),
            "BOT_PROCESSES": "1",
        },
    )
    try:
        return asyncio.run(measure(port))
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    bounded = Settings().clock_games_per_client
    rows = {"unbounded": run(0), f"bounded at {bounded}": run(bounded)}
    print(
        f"one client asks for {FLOOD} games with a {CLOCK} s clock nobody plays; another "
        f"client's {CLOCK} s clocks and its bot's replies, {SECONDS:.0f} s a row; targets: "
        f"takeover within {CLOCK + 1} s, bot reply p99 < 1,000 ms"
    )
    print(
        f"{'flood':<16} {'refused':>8} {'takeover p50':>13} {'max':>8} {'n':>4} "
        f"{'bot reply p50':>14} {'p99':>9} {'n':>5}"
    )
    for name, f in rows.items():
        print(
            f"{name:<16} {f.refused:>8} {percentile(f.takeover_s, 0.5):>11.2f} s "
            f"{max(f.takeover_s, default=float('nan')):>6.2f} s {len(f.takeover_s):>4} "
            f"{percentile(f.reply_ms, 0.5):>11.0f} ms {percentile(f.reply_ms, 0.99):>6.0f} ms "
            f"{len(f.reply_ms):>5}"
        )


if __name__ == "__main__":
    main()

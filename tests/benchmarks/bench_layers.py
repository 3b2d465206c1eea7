"""What the rate limits cost a request, side by side in one process (``python -m tests.benchmarks
layers``).

Two apps, one with every limit on (set too high to refuse: the counting is what is measured) and
one with every limit off, each called straight through its ASGI interface (no server, no socket:
only the app's own work), taking turns round by round. For each route, the CPU time per request
of both, and the difference: what counting the route's limits costs. ``/healthz`` declares no
limit, the lobby and a seat's view the rate per minute, a game's creation the rate and the
day's quota of creations. The requests come from 50 addresses in turn.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Final

import msgspec
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.settings import Settings
from tests.benchmarks.bench_routes import asgi_call as request_call

ROUNDS: Final = 7
CALLS: Final = 400
HIGH: Final = 10**9
LIMITS = ("rate_limit_per_minute", "creations_per_day", "claims_per_day", "invitations_per_hour")
CLIENTS: Final = [f"10.0.{n // 250}.{n % 250 + 1}" for n in range(50)]
"""The addresses the requests come from in turn: each makes a few hundred requests in the
minute the run takes, a busy client's count (the cost of Litestar's count grew with it)."""
TWO: Final = msgspec.json.encode({"players": [{"name": "a"}, {"name": "b"}]})

Call = Callable[[], Awaitable[int]]


def asgi_call(
    app: Litestar, method: str, path: str, body: bytes = b"", token: str | None = None
) -> Call:
    """A request to ``app`` as a server would make it, from the next of ``CLIENTS``; the call
    answers the status."""
    call = request_call(app, method, path, body, token=token, clients=itertools.cycle(CLIENTS))

    async def status() -> int:
        return (await call())[0]

    return status


async def cpu_per_call(call: Call) -> float:
    """Microseconds of CPU a call, over ``CALLS`` calls; every answer must be a success."""
    started = time.process_time()
    for _ in range(CALLS):
        status = await call()
        if status >= 300:
            raise RuntimeError(f"answered {status}")
    return 1e6 * (time.process_time() - started) / CALLS


async def routes(app: Litestar, client: AsyncTestClient[Litestar]) -> dict[str, Call]:
    game = (await client.post("/v1/games", content=TWO)).raise_for_status().json()
    token = game["seats"][0]["token"]
    return {
        "GET /healthz": asgi_call(app, "GET", "/healthz"),
        "GET /v1/tables": asgi_call(app, "GET", "/v1/tables"),
        "a seat's view": asgi_call(app, "GET", f"/v1/games/{game['game_id']}", token=token),
        "POST /v1/games": asgi_call(app, "POST", "/v1/games", TWO),
    }


async def measure() -> dict[str, dict[str, list[float]]]:
    quiet = Settings(log_level="WARNING")  # no access log line per request on the terminal
    on = create_app(
        msgspec.structs.replace(
            quiet, **dict.fromkeys(LIMITS, HIGH), analysed_hands_per_minute=HIGH
        )
    )
    off = create_app(
        msgspec.structs.replace(quiet, **dict.fromkeys(LIMITS, 0), analysed_hands_per_minute=0)
    )
    times: dict[str, dict[str, list[float]]] = {}
    async with AsyncTestClient(on) as on_client, AsyncTestClient(off) as off_client:
        calls = {"on": await routes(on, on_client), "off": await routes(off, off_client)}
        for _ in range(ROUNDS):
            for name in calls["on"]:
                for limits in ("on", "off"):
                    spent = await cpu_per_call(calls[limits][name])
                    times.setdefault(name, {}).setdefault(limits, []).append(spent)
    return times


def main() -> None:
    times = asyncio.run(measure())
    print(f"CPU per request in process, limits off and on, median of {ROUNDS} rounds of {CALLS}")
    print(f"{'route':<16} {'limits off':>11} {'limits on':>10} {'the limits':>11}")
    for name, by in times.items():
        off, on = statistics.median(by["off"]), statistics.median(by["on"])
        print(f"{name:<16} {off:>8.0f} us {on:>7.0f} us {on - off:>8.0f} us")


if __name__ == "__main__":
    main()

"""CPU per request of the routes ``bench_http`` measures, in process (``python -m tests.benchmarks
routes``).

The app is called straight through its ASGI interface (no server, no socket: the app's own work,
with the limits off and the access lines off, as ``bench_http`` runs it), the routes taking turns
round by round: a health check, an analysis of a random 14-card hand, a seat's view, and a
seat's action (a draw, then a discard that goes out when it can, in a game of two seats both
played here; a finished game is replaced, and reading each answer to choose the next action
is counted too, a few µs). For each, the CPU time per request and its ratio to the health
check's. ``bench_http``'s figures on granian add granian's own part of each request
on the event loop's thread.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Final

import msgspec
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.settings import Settings

ROUNDS: Final = 7
CALLS: Final = 1000
LIMITS_OFF: Final = dict.fromkeys(
    (
        "rate_limit_per_minute",
        "creations_per_day",
        "claims_per_day",
        "invitations_per_hour",
        "analysed_hands_per_minute",
        "bot_games_per_client",
        "clock_games_per_client",
    ),
    0,
)
TWO: Final = msgspec.json.encode({"players": [{"name": "a"}, {"name": "b"}]})

Call = Callable[[], Awaitable[tuple[int, bytes]]]


def asgi_call(  # noqa: PLR0913 - a request's parts, the last ones keywords with defaults
    app: Litestar,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    token: str | None = None,
    clients: Iterator[str] | None = None,
) -> Call:
    """A request to ``app`` as a server would make it, each call from the next of ``clients``;
    the call answers status and body."""
    headers = request_headers(body, token)
    addresses = itertools.repeat("127.0.0.1") if clients is None else clients

    async def call() -> tuple[int, bytes]:
        status, chunks = 0, []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        scope = http_scope(method, path, headers, next(addresses))
        await app(scope, receive, send)  # type: ignore[arg-type]
        return status, b"".join(chunks)

    return call


def request_headers(body: bytes, token: str | None) -> list[tuple[bytes, bytes]]:
    """The headers of a request with ``body`` (JSON when there is one) and a bearer ``token``."""
    headers = [(b"host", b"bench"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return headers


def http_scope(
    method: str, path: str, headers: list[tuple[bytes, bytes]], client: str = "127.0.0.1"
) -> dict[str, Any]:
    """An HTTP request's ASGI scope, as a server gives it, from the address ``client``."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": (client, 40000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


class Seats:
    """A game of two seats, both played here as ``bench_http``'s actions row plays them."""

    def __init__(self, app: Litestar) -> None:
        self.app = app
        self.game: dict[str, Any] = {}
        self.legal: list[dict[str, Any]] | None = None

    async def new_game(self) -> dict[str, Any]:
        status, body = await asgi_call(self.app, "POST", "/v1/games", TWO)()
        assert status == 201, body
        created = msgspec.json.decode(body)
        self.game = {
            "id": created["game_id"],
            "tokens": [seat["token"] for seat in created["seats"]],
            "turn": created["view"]["turn"],
            "finished": False,
        }
        self.legal = None
        return self.game

    async def act(self) -> tuple[int, bytes]:
        if self.game["finished"]:
            await self.new_game()
        game = self.game
        if self.legal is None:
            action: dict[str, Any] = {"type": "draw", "source": "stock"}
        else:
            action = next((a for a in self.legal if a.get("go_out")), self.legal[0])
        path = f"/v1/games/{game['id']}/actions"
        token = game["tokens"][game["turn"]]
        status, body = await asgi_call(
            self.app, "POST", path, msgspec.json.encode(action), token=token
        )()
        view = msgspec.json.decode(body)
        game["finished"] = view["status"] != "playing"
        mine = view["status"] == "playing" and view["phase"] == "discard"
        mine = mine and view["turn"] == game["turn"]
        self.legal = [a for a in view["legal"] if a["type"] == "discard"] if mine else None
        game["turn"] = view["turn"]
        return status, body


async def routes(app: Litestar) -> dict[str, Call]:
    rng = random.Random(13)
    deck = [rank + suit for rank in "A23456789TJQK" for suit in "CDHS"] * 2
    hands = [
        asgi_call(
            app,
            "POST",
            "/v1/analyse",
            msgspec.json.encode(
                {
                    "hand": rng.sample(deck, 14),
                    "wild": rng.choice("3456789TJQK"),
                    "rules": "classic",
                }
            ),
        )
        for _ in range(256)
    ]
    seats = Seats(app)
    viewed = await Seats(app).new_game()
    await seats.new_game()

    async def analyse() -> tuple[int, bytes]:
        return await hands[rng.randrange(len(hands))]()

    return {
        "GET /healthz": asgi_call(app, "GET", "/healthz"),
        "POST /v1/analyse": analyse,
        "a seat's view": asgi_call(
            app, "GET", f"/v1/games/{viewed['id']}", token=viewed["tokens"][0]
        ),
        "a seat's action": seats.act,
    }


async def cpu_per_call(call: Call) -> float:
    """Microseconds of CPU a call, over ``CALLS`` calls; every answer must be a success."""
    started = time.process_time()
    for _ in range(CALLS):
        status, body = await call()
        if status >= 300:
            raise RuntimeError(f"answered {status}: {body[:200]!r}")
    return 1e6 * (time.process_time() - started) / CALLS


async def measure() -> dict[str, list[float]]:
    app = create_app(msgspec.structs.replace(Settings(log_level="WARNING"), **LIMITS_OFF))
    times: dict[str, list[float]] = {}
    async with AsyncTestClient(app):
        calls = await routes(app)
        for call in calls.values():  # warm up: caches, the first analyses' tables
            for _ in range(CALLS // 5):
                await call()
        for _ in range(ROUNDS):
            for name, call in calls.items():
                times.setdefault(name, []).append(await cpu_per_call(call))
    return times


def main() -> None:
    times = asyncio.run(measure())
    print(f"CPU per request in process (ASGI, no server), median of {ROUNDS} rounds of {CALLS}")
    health = statistics.median(times["GET /healthz"])
    print(f"{'route':<18} {'CPU':>9} {'vs /healthz':>12} {'rounds':>8}")
    for name, rounds in times.items():
        median = statistics.median(rounds)
        spread = f"{min(rounds):.0f}-{max(rounds):.0f}"
        print(f"{name:<18} {median:>6.0f} us {health / median:>12.2f} {spread:>10} us")


if __name__ == "__main__":
    main()

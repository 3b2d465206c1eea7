"""HTTP throughput of the production server, measured from a second process over loopback.

``main()`` starts ``python -m service`` (what ``make run`` runs: granian) on a free port, then
runs a load client in another process: 32 keep-alive connections, each sending its next request
as soon as the last answer arrived. In one run, alternating so that machine noise hits both alike:

- ``GET /healthz``: the framework's floor (routing, middleware, metrics, JSON);
- ``POST /v1/analyse`` with random 14-card hands (a hand of round 11 that has just drawn):
  the exact analysis on top of the same framework. Target: at least 50% of the healthz rate;
- game actions: one game per connection, each drawing from the stock and discarding, as the seat
  on turn (load, token check, apply, store commit, event publication).

The client is a few lines of asyncio over raw sockets (HTTP/1.1, Content-Length bodies), so that
it costs the shared CPUs far less than the server it measures. Besides requests per second (over
the time each scenario really took, last answers included), the table shows the CPU time the
server's processes and the client spent per request: on a shared machine the server's CPU per
request is the steadier figure, and the client's shows that it is not the bottleneck. Of the
server's, the event loop's thread (its busiest) has a column of its own: it runs all of the app's
Python, holding the interpreter's lock, so an answer's time there is what limits the rate.

It measures granian (``make run``) and then uvicorn with uvloop and httptools, the runner-up, for
the server choice in docs/performance.md; ``--server NAME...`` picks which.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from tests.redis_servers import LIMITS_OFF

CONNECTIONS = 32
ROUND_SECONDS = 3.0
ROUNDS = 3
"""Each scenario runs this many times, alternating with the others; the figures add them up, and
the table also gives each round's analyse/healthz ratio (the two ran seconds apart)."""

HOST = "127.0.0.1"


# -- the load client (runs in its own process) ----------------------------------------------------


@dataclass
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer)

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await self.reader.readexactly(length) if length else b""
        return status, body


def build_request(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> bytes:
    payload = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", f"Content-Length: {len(payload)}"]
    if body is not None:
        lines.append("Content-Type: application/json")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def random_hands(count: int, seed: int = 13) -> list[bytes]:
    rng = random.Random(seed)
    deck = [r + s for r in "A23456789TJQK" for s in "CDHS"] * 2
    return [
        build_request(
            "POST",
            "/v1/analyse",
            {"hand": rng.sample(deck, 14), "wild": rng.choice("3456789TJQK"), "rules": "classic"},
        )
        for _ in range(count)
    ]


def advice_requests(count: int, seed: int = 17) -> list[bytes]:
    """Advice on random hands of round 11 that have just drawn (14 cards, kings wild)."""
    rng = random.Random(seed)
    deck = [r + s for r in "A23456789TJQK" for s in "CDHS"]
    return [
        build_request("POST", "/v1/advise", {"hand": rng.sample(deck, 14), "round": 11})
        for _ in range(count)
    ]


def thread_cpu(root: int) -> dict[int, float]:
    """CPU seconds (user + system) used so far by each thread of ``root`` and of every process
    below it (granian serves from a worker process), by thread id. Linux's /proc; empty where
    there is none."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            fields = _stat_fields(f"/proc/{entry}/stat")
            if fields:
                children.setdefault(int(fields[1]), []).append(int(entry))  # [1]: the parent
    seconds: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:  # the process ended meanwhile
            continue
        for tid in threads:
            fields = _stat_fields(f"/proc/{pid}/task/{tid}/stat")
            if fields:  # [11], [12]: utime, stime
                seconds[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return seconds


def _stat_fields(path: str) -> list[str]:
    """The fields of a /proc stat file after the command's name; empty if it is gone."""
    try:
        with open(path, encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()
    except OSError:
        return []


@dataclass
class Tally:
    ok: int = 0
    errors: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0
    loop_cpu: float = 0.0
    """Of the server's CPU time, its busiest thread's: the event loop's, which runs all of the
    app's Python and holds the interpreter's lock while it does (granian's Rust threads do the
    rest)."""
    client_cpu: float = 0.0
    latencies: list[float] = field(default_factory=list)
    round_rates: list[float] = field(default_factory=list)


async def timed_loop(
    connections: list[Connection],
    seconds: float,
    step: Callable[[int, Connection], Awaitable[bool]],
    server_pid: int,
    tally: Tally,
) -> None:
    """Run ``step`` on every connection until time is up, adding to ``tally``: answers, errors,
    latencies, the time taken (until the last answer) and the CPU time of server and client."""
    latencies = tally.latencies
    counts = [0, 0]
    started_cpu = (thread_cpu(server_pid), time.process_time())
    began = time.perf_counter()
    stop = began + seconds

    async def worker(index: int, connection: Connection) -> None:
        while time.perf_counter() < stop:
            started = time.perf_counter()
            ok = await step(index, connection)
            latencies.append(time.perf_counter() - started)
            counts[0 if ok else 1] += 1

    await asyncio.gather(*(worker(i, c) for i, c in enumerate(connections)))
    took = time.perf_counter() - began
    tally.seconds += took
    tally.round_rates.append(counts[0] / took)
    spent = thread_cpu(server_pid)
    spent = {tid: cpu - started_cpu[0].get(tid, 0.0) for tid, cpu in spent.items()}
    tally.server_cpu += sum(spent.values())
    tally.loop_cpu += max(spent.values(), default=0.0)
    tally.client_cpu += time.process_time() - started_cpu[1]
    tally.ok += counts[0]
    tally.errors += counts[1]


@dataclass
class GameSeat:
    game_id: str
    tokens: list[str]
    turn: int
    legal: list[dict[str, Any]] | None = None
    """The seat on turn's legal discards once it has drawn; None before its draw."""
    finished: bool = False


async def new_game(connection: Connection) -> GameSeat:
    """A two-seat game, created over ``connection``."""
    status, body = await connection.request(
        build_request("POST", "/v1/games", {"players": [{"name": "a"}, {"name": "b"}]})
    )
    assert status == HTTPStatus.CREATED, body
    created = json.loads(body)
    return GameSeat(
        created["game_id"], [s["token"] for s in created["seats"]], created["view"]["turn"]
    )


async def play_turn(connection: Connection, game: GameSeat) -> bool:
    """The next action of ``game`` as its seat on turn: a draw from the stock, or a discard that
    goes out when one can, else of the first card of the hand. Rounds end, so every action
    costs what one of a real game does (a round that never ended would make each action carry
    a longer round). False if it was not answered 200."""
    auth = {"Authorization": f"Bearer {game.tokens[game.turn]}"}
    if game.legal is None:
        action: dict[str, Any] = {"type": "draw", "source": "stock"}
    else:
        action = next((a for a in game.legal if a.get("go_out")), game.legal[0])
    status, body = await connection.request(
        build_request("POST", f"/v1/games/{game.game_id}/actions", action, auth)
    )
    if status != HTTPStatus.OK:
        return False
    view = json.loads(body)
    game.finished = view["status"] != "playing"
    mine = view["status"] == "playing" and view["phase"] == "discard" and view["turn"] == game.turn
    game.legal = [a for a in view["legal"] if a["type"] == "discard"] if mine else None
    game.turn = view["turn"]
    return True


async def created(connection: Connection, path: str, body: Any, key: str | None = None) -> Any:
    """The JSON answer of a POST that must create (201)."""
    headers = None if key is None else {"Authorization": f"Bearer {key}"}
    status, answer = await connection.request(build_request("POST", path, body, headers))
    assert status == HTTPStatus.CREATED, answer
    return json.loads(answer)


LISTED = 20
"""Tables waiting in the lobby, and games in the player's list: one page of each."""


def repeating(raw: bytes) -> Callable[[int, Connection], Awaitable[bool]]:
    """A scenario that sends the same request every time."""

    async def step(_: int, connection: Connection) -> bool:
        return (await connection.request(raw))[0] == HTTPStatus.OK

    return step


async def run_client(port: int, server_pid: int) -> dict[str, dict[str, Any]]:
    connections = [await Connection.open(port) for _ in range(CONNECTIONS)]
    first = connections[0]
    hands = random_hands(256)
    advice = advice_requests(256)
    games = [await new_game(connection) for connection in connections]
    # Requests that read: a seat's view and its game's log (whose games move on in the actions'
    # rows), the lobby's first page, and a player's list of games.
    views = [
        build_request("GET", f"/v1/games/{g.game_id}", None, {"Authorization": f"Bearer {t}"})
        for g in games
        for t in g.tokens[:1]
    ]
    logs = [build_request("GET", f"/v1/games/{g.game_id}/log") for g in games]
    for _ in range(LISTED):
        await created(
            first, "/v1/games", {"players": [{"name": "a"}, {"open": True}], "listed": True}
        )
    key = (await created(first, "/v1/players", {"name": "Ann"}))["key"]
    for _ in range(LISTED):
        await created(first, "/v1/games", {"players": [{"me": True}, {"name": "b"}]}, key)
    my_games = build_request(
        "GET", "/v1/players/me/games", None, {"Authorization": f"Bearer {key}"}
    )

    async def analyse(index: int, connection: Connection) -> bool:
        request = hands[random.randrange(len(hands))]
        return (await connection.request(request))[0] == HTTPStatus.OK

    async def advise(index: int, connection: Connection) -> bool:
        request = advice[random.randrange(len(advice))]
        return (await connection.request(request))[0] == HTTPStatus.OK

    async def act(index: int, connection: Connection) -> bool:
        if games[index].finished:  # eleven rounds played: a new game on this connection
            games[index] = await new_game(connection)
        return await play_turn(connection, games[index])

    async def view(index: int, connection: Connection) -> bool:
        return (await connection.request(views[index]))[0] == HTTPStatus.OK

    async def log(index: int, connection: Connection) -> bool:
        return (await connection.request(logs[index]))[0] == HTTPStatus.OK

    scenarios = {
        "GET /healthz": repeating(build_request("GET", "/healthz")),
        "POST /v1/analyse": analyse,
        "POST /v1/advise": advise,
        "a seat's view": view,
        "game actions": act,
        "the game's log": log,
        "the lobby": repeating(build_request("GET", "/v1/tables")),
        "my games": repeating(my_games),
    }
    tallies = {name: Tally() for name in scenarios}
    for _ in range(ROUNDS):
        for name, step in scenarios.items():
            await timed_loop(connections, ROUND_SECONDS, step, server_pid, tallies[name])
    for connection in connections:
        connection.writer.close()
    summary = {}
    for name, tally in tallies.items():
        latencies = sorted(tally.latencies)
        answered = tally.ok + tally.errors
        summary[name] = {
            "rate": tally.ok / tally.seconds,
            "errors": tally.errors,
            "p50_ms": 1000 * latencies[len(latencies) // 2],
            "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
            "server_us": 1e6 * tally.server_cpu / answered,
            "loop_us": 1e6 * tally.loop_cpu / answered,
            "client_us": 1e6 * tally.client_cpu / answered,
            "round_rates": tally.round_rates,
        }
    return summary


# -- the server and the table ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    kind: str, port: int, settings: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """The server on ``port``, in memory, with ``settings`` (environment variables) on top."""
    env = {
        **os.environ,
        **LIMITS_OFF,  # one load generator: every request comes from one address
        "HOST": HOST,
        "PORT": str(port),
        "REDIS_URL": "",
        "LOG_LEVEL": "WARNING",
    }
    env.update(settings or {})
    if kind == "granian":  # the production server: what `make run` starts
        command = [sys.executable, "-m", "service"]
    elif kind == "uvicorn":
        command = [
            sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app",
            "--host", HOST, "--port", str(port), "--loop", "uvloop", "--http", "httptools",
            "--no-access-log", "--log-level", "warning",
        ]  # fmt: skip
    else:
        raise ValueError(f"unknown server {kind!r}: granian or uvicorn")
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(
                    f"{kind} exited: {process.stderr.read().decode() if process.stderr else ''}"
                ) from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{kind} did not start on port {port}")


def measure(kind: str) -> dict[str, dict[str, Any]]:
    port = free_port()
    server = start_server(kind, port)
    try:
        client = subprocess.run(
            [
                *(sys.executable, "-m", "tests.benchmarks.bench_http"),
                *("--client", str(port), str(server.pid)),
            ],
            capture_output=True,
            check=True,
            timeout=300,
        )
        results: dict[str, dict[str, Any]] = json.loads(client.stdout)
        return results
    finally:
        server.terminate()
        server.wait(timeout=10)


def print_table(kind: str, results: dict[str, dict[str, Any]]) -> None:
    print(
        f"HTTP on {kind}: {CONNECTIONS} connections, {ROUNDS}x{ROUND_SECONDS:.0f}s per row, "
        "load client in another process"
    )
    health = results["GET /healthz"]
    print(
        f"{'scenario':<20} {'req/s':>9} {'vs healthz':>11} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>7} {'server CPU/req':>15} {'event loop/req':>15} {'client CPU/req':>15}"
    )
    for name, r in results.items():
        # The CPU ratios are healthz's CPU per request over this scenario's: comparable to the
        # rate ratio when the server is the bottleneck, and far less sensitive to a busy machine.
        # The event loop's is the one to watch on granian: its thread is the bottleneck.
        print(
            f"{name:<20} {r['rate']:>9.0f} {r['rate'] / health['rate']:>10.0%} "
            f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['errors']:>7} "
            f"{_cpu(r['server_us'], health['server_us'])} {_cpu(r['loop_us'], health['loop_us'])} "
            f"{r['client_us']:>12.0f} us"
        )
    # On a shared machine the load varies from one scenario's seconds to the next: each round's
    # ratio compares two runs seconds apart, and their median is the steadier figure.
    shares = [
        a / h
        for a, h in zip(
            results["POST /v1/analyse"]["round_rates"],
            results["GET /healthz"]["round_rates"],
            strict=True,
        )
    ]
    print(
        "analyse vs healthz, round by round: "
        + ", ".join(f"{share:.0%}" for share in shares)
        + f" (median {statistics.median(shares):.0%})"
    )


def _cpu(spent: float, health: float) -> str:
    """A CPU time per request and healthz's over it; dashes where /proc told nothing."""
    return f"{spent:>6.0f} us {health / spent:>5.0%}" if spent else f"{'-':>15}"


def main() -> None:
    # The production server first, then the runner-up, for the server choice in docs/performance.md.
    # `--server NAME...` anywhere, so that `python -m tests.benchmarks http --server granian` works.
    args = sys.argv[1:]
    kinds = args[args.index("--server") + 1 :] if "--server" in args else ["granian", "uvicorn"]
    for kind in kinds:
        print_table(kind, measure(kind))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--client"]:
        print(json.dumps(asyncio.run(run_client(int(sys.argv[2]), int(sys.argv[3])))))
    else:
        main()

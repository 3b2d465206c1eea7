"""One action to a thousand followers of a game: an SSE fan-out on the production server
(``python -m tests.benchmarks fanout``).

``python -m service`` (granian, memory store) on a free port; a load client in another process
opens ``FOLLOWERS`` public event streams of one game (``GET /v1/games/{id}/events``, as the
watchers of a game on the play page do), waits until each has its snapshot, then plays the
game's seats in turn, one action at a time: each action is sent, then every follower reads until
its event (the action's version as the event's ``id``) arrives. Per action: the time until the
first, the median and the last follower had it, and the event loop's CPU from the action sent
to its last delivery, per follower. Beside it, in the same run, ``/healthz`` on 32 connections
(as in ``bench_http``): its event-loop CPU per request, and the ratio of a health check's to a
follower's delivery.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from http import HTTPStatus
from typing import Any, Final

from tests.benchmarks.bench_http import (
    HOST,
    Connection,
    GameSeat,
    Tally,
    build_request,
    free_port,
    new_game,
    play_turn,
    repeating,
    start_server,
    thread_cpu,
    timed_loop,
)

FOLLOWERS: Final = 1000
ACTIONS: Final = 40
HEALTH_CONNECTIONS: Final = 32
HEALTH_SECONDS: Final = 3.0
SETTINGS: Final = {
    "MAX_STREAMS_PER_CLIENT": str(FOLLOWERS + 10),  # every follower is on this one address
    "MAX_STREAMS": str(FOLLOWERS + 100),
    "STREAM_LIFETIME": "3600",
}


class Follower:
    """One event stream, read into a buffer until a wanted event id is in it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.seen = b""

    @classmethod
    async def open(cls, port: int, game_id: str) -> Follower:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(build_request("GET", f"/v1/games/{game_id}/events"))
        head = await reader.readuntil(b"\r\n\r\n")
        if int(head[9:12]) != HTTPStatus.OK:
            raise RuntimeError(f"a stream was refused: {head[:200]!r}")
        return cls(reader, writer)

    async def until(self, version: int) -> float:
        """When the event of ``version`` arrived (``perf_counter``). Each event is one chunk
        of the answer, so its ``id:`` line is never split by the chunked encoding."""
        wanted = f"\nid: {version}\n".encode()
        while wanted not in self.seen:
            self.seen = self.seen[-64:] + await self.reader.read(65536)
        self.seen = self.seen[self.seen.index(wanted) + len(wanted) :]
        return time.perf_counter()


async def run_client(port: int, server_pid: int) -> dict[str, Any]:
    control = await Connection.open(port)
    game: GameSeat = await new_game(control)
    status, body = await control.request(build_request("GET", f"/v1/games/{game.game_id}"))
    assert status == HTTPStatus.OK, body
    version = json.loads(body)["version"]
    followers = [await Follower.open(port, game.game_id) for _ in range(FOLLOWERS)]
    await asyncio.gather(*(f.until(version) for f in followers))  # each has its snapshot
    firsts, medians, lasts, per_follower = [], [], [], []
    for _ in range(ACTIONS):
        version += 1
        arrivals = [asyncio.ensure_future(f.until(version)) for f in followers]
        cpu_before = thread_cpu(server_pid)
        sent = time.perf_counter()
        assert await play_turn(control, game), "an action was refused"
        delivered = sorted(await asyncio.gather(*arrivals))
        spent = thread_cpu(server_pid)
        loop = max((cpu - cpu_before.get(tid, 0.0) for tid, cpu in spent.items()), default=0.0)
        firsts.append(delivered[0] - sent)
        medians.append(delivered[len(delivered) // 2] - sent)
        lasts.append(delivered[-1] - sent)
        per_follower.append(loop / FOLLOWERS)
        if game.finished:
            raise RuntimeError("the game ended: fewer ACTIONS")
    health = Tally()
    connections = [await Connection.open(port) for _ in range(HEALTH_CONNECTIONS)]
    await timed_loop(
        connections, HEALTH_SECONDS, repeating(build_request("GET", "/healthz")), server_pid, health
    )
    for connection in [control, *connections]:
        connection.writer.close()
    for follower in followers:
        follower.writer.close()
    return {
        "first_ms": 1000 * statistics.median(firsts),
        "median_ms": 1000 * statistics.median(medians),
        "last_ms": 1000 * statistics.median(lasts),
        "last_max_ms": 1000 * max(lasts),
        "follower_us": 1e6 * statistics.median(per_follower),
        "health_us": 1e6 * health.loop_cpu / max(1, health.ok + health.errors),
    }


def main() -> None:
    if sys.argv[1:2] == ["--client"]:
        print(json.dumps(asyncio.run(run_client(int(sys.argv[2]), int(sys.argv[3])))))
        return
    port = free_port()
    server = start_server("granian", port, SETTINGS)
    try:
        client = subprocess.run(
            [
                *(sys.executable, "-m", "tests.benchmarks.bench_fanout"),
                *("--client", str(port), str(server.pid)),
            ],
            capture_output=True,
            check=True,
            timeout=600,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    r = json.loads(client.stdout)
    print(f"One action to {FOLLOWERS} followers of a game (granian, memory), {ACTIONS} actions")
    print(
        f"{'first':>8} {'median':>8} {'last':>8} {'last, worst':>12} "
        f"{'loop CPU/follower':>18} {'/healthz loop CPU':>18} {'vs /healthz':>12}"
    )
    print(
        f"{r['first_ms']:>5.1f} ms {r['median_ms']:>5.1f} ms {r['last_ms']:>5.1f} ms "
        f"{r['last_max_ms']:>9.1f} ms {r['follower_us']:>15.1f} us {r['health_us']:>15.1f} us "
        f"{r['health_us'] / r['follower_us']:>11.2f}"
    )


if __name__ == "__main__":
    main()

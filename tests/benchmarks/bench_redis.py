"""Game actions on Redis: throughput and latency with one and two service instances, the Redis
commands each action costs, and the CPU each process used.

``main()`` starts a redis-server of its own (no persistence, so the disk is not measured) and
``python -m service`` instances on it, and drives them from this process with 32 keep-alive
connections, one game per connection, each playing the seat on turn (draw from the stock, then
discard) as fast as answers come. A game is replaced after 60 actions so records stay game-sized.
Scenarios alternate in rounds so machine noise hits all alike:

- ``memory x1``: one instance on the in-memory store (the floor: no Redis at all);
- ``redis x1``, ``redis x2``: one and two instances on Redis, connections split evenly;
- ``redis x2 + key``: two instances, every action with an Idempotency-Key;
- ``redis 2 workers``: one instance with ``WORKERS=2`` (two granian worker processes).

Per action, from ``INFO commandstats`` (reset before each round): commands the service sent
(HMGET = load, pipelined with its LRANGE; EVALSHA = commit, which writes the game's event notice
too; GET = recall of an Idempotency-Key). Commands run inside scripts (HGET, HSET, PEXPIRE, SET,
XADD) are not round trips and are left out; a game's creation in the window adds its own.

CPU: seconds each process (group) used over the measured time, as % of one core. On a 2-core
machine the load client, Redis and the instances share the cores, so a second instance adds
throughput only as far as cores are left.

The capacity model of docs/deployment.md is built from the last table: per action, the CPU of
the instances and of Redis, the bytes Redis received and sent (``INFO stats``), and what a game
of up to ``ACTIONS_PER_GAME`` actions holds in Redis's memory (``used_memory`` over the games
made).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.redis_servers import (
    LIMITS_OFF,
    LeanHttpClient,
    RedisServer,
    ServiceInstance,
    process_cpu_seconds,
    redis_cli,
)

CONNECTIONS = 32
ROUND_SECONDS = 4.0
ROUNDS = 2
ACTIONS_PER_GAME = 60
# Commands the service (and the channels plugin) send; what scripts run inside is not a round trip.
SENT = ("hmget", "evalsha", "get", "script|load", "ping", "xread")


@dataclass
class Tally:
    actions: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    commands: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    bytes_in: int = 0
    bytes_out: int = 0
    games: int = 0
    """Games made, the warm-up's too: each stays in the store."""

    def add_commands(self, counts: dict[str, int]) -> None:
        for name, calls in counts.items():
            self.commands[name] = self.commands.get(name, 0) + calls

    def add_cpu(self, used: dict[str, float]) -> None:
        for name, seconds in used.items():
            self.cpu[name] = self.cpu.get(name, 0.0) + seconds


@dataclass
class Scenario:
    name: str
    instances: list[ServiceInstance]
    with_key: bool = False
    tally: Tally = field(default_factory=Tally)


class Player:
    """One connection's game: it acts for whichever seat is on turn."""

    def __init__(self, client: LeanHttpClient, with_key: bool, tally: Tally) -> None:
        self.tally = tally
        self.client = client
        self.with_key = with_key
        self.game_id = ""
        self.tokens: dict[int, str] = {}
        self.view: dict[str, Any] = {}
        self.actions = 0

    async def new_game(self) -> None:
        created = await self.client.post(
            "/v1/games", {"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
        )
        assert created.status == 201, created.body
        body = created.json()
        self.tally.games += 1
        self.game_id = body["game_id"]
        self.tokens = {seat["seat"]: seat["token"] for seat in body["seats"]}
        self.view = body["view"]
        self.actions = 0

    async def act(self) -> None:
        seat = self.view["turn"]
        if self.view["phase"] == "draw" or self.view.get("hand") is None:
            action: dict[str, Any] = {"type": "draw", "source": "stock"}
        else:
            action = {"type": "discard", "card": self.view["hand"][0]}
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        if self.with_key:
            headers["Idempotency-Key"] = f"{self.game_id}-{self.actions}"
        response = await self.client.post(f"/v1/games/{self.game_id}/actions", action, headers)
        assert response.status == 200, response.body
        self.view = response.json()
        self.actions += 1
        if self.view["phase"] == "draw":  # the turn passed: the next seat draws first
            self.view = {**self.view, "hand": None}


async def drive(
    scenario: Scenario, players: list[Player], seconds: float
) -> tuple[int, list[float]]:
    latencies: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def loop(player: Player) -> None:
        while time.perf_counter() < stop_at:
            if player.actions >= ACTIONS_PER_GAME or player.view.get("status") != "playing":
                await player.new_game()
            started = time.perf_counter()
            await player.act()
            latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(loop(player) for player in players))
    return len(latencies), latencies


def command_counts(redis: RedisServer) -> dict[str, int]:
    counts = {}
    for line in redis_cli(redis.port, "INFO", "commandstats").splitlines():
        if line.startswith("cmdstat_"):
            name, _, rest = line.removeprefix("cmdstat_").partition(":")
            counts[name] = int(rest.split(",")[0].removeprefix("calls="))
    return counts


async def run_round(scenario: Scenario, redis: RedisServer) -> None:
    clients = [LeanHttpClient(instance.url) for instance in scenario.instances]
    players = [
        Player(clients[n % len(clients)], scenario.with_key, scenario.tally)
        for n in range(CONNECTIONS)
    ]
    for player in players:
        await player.new_game()
    await drive(scenario, players, 0.5)  # warm up: connections, caches, scripts loaded
    redis_cli(redis.port, "CONFIG", "RESETSTAT")
    cpu_before = cpu_snapshot(scenario, redis)
    started = time.perf_counter()
    actions, latencies = await drive(scenario, players, ROUND_SECONDS)
    elapsed = time.perf_counter() - started
    cpu_after = cpu_snapshot(scenario, redis)
    tally = scenario.tally
    tally.actions += actions
    tally.seconds += elapsed
    tally.latencies += latencies
    tally.add_cpu({name: cpu_after[name] - cpu_before[name] for name in cpu_after})
    if not scenario.name.startswith("memory"):
        # Game creations in the window also cost commands: leave them in, they are few.
        tally.add_commands(command_counts(redis))
        stats = info(redis, "stats")
        tally.bytes_in += stats["total_net_input_bytes"]
        tally.bytes_out += stats["total_net_output_bytes"]
    for client in clients:
        await client.close()


def info(redis: RedisServer, section: str) -> dict[str, int]:
    """The integer fields of a section of ``INFO``."""
    fields = {}
    for line in redis_cli(redis.port, "INFO", section).splitlines():
        name, _, value = line.partition(":")
        if value.strip().isdigit():
            fields[name] = int(value)
    return fields


def cpu_snapshot(scenario: Scenario, redis: RedisServer) -> dict[str, float]:
    assert redis.process is not None
    used = {f"instance {n + 1}": i.cpu_seconds() for n, i in enumerate(scenario.instances)}
    used["redis"] = process_cpu_seconds(redis.process.pid)
    used["load client"] = time.process_time()
    return used


def report_costs(scenarios: list[Scenario], redis: RedisServer) -> None:
    """Per action on Redis: CPU of the instances and of Redis, bytes to and from Redis; and the
    memory a game holds in Redis."""
    print("\nPer action on Redis (what the capacity model in docs/deployment.md is built from)")
    print(
        f"{'scenario':<16} {'instances µs':>12} {'Redis µs':>9} {'bytes in':>9} {'bytes out':>10}"
    )
    for scenario in scenarios[1:]:
        tally = scenario.tally
        instances = sum(v for k, v in tally.cpu.items() if k.startswith("instance"))
        print(
            f"{scenario.name:<16} {1e6 * instances / tally.actions:>12.0f} "
            f"{1e6 * tally.cpu['redis'] / tally.actions:>9.0f} "
            f"{tally.bytes_in / tally.actions:>9.0f} {tally.bytes_out / tally.actions:>10.0f}"
        )
    memory = info(redis, "memory")["used_memory"]
    games = sum(scenario.tally.games for scenario in scenarios[1:])
    print(
        f"Redis memory: {memory / 2**20:.1f} MiB for {games} games of up to {ACTIONS_PER_GAME} "
        f"actions, {memory / games / 1024:.1f} KiB a game"
    )


def report(scenarios: list[Scenario]) -> None:
    base = scenarios[0].tally
    base_rate = base.actions / base.seconds
    print(
        f"{CONNECTIONS} connections, {ROUNDS} rounds x {ROUND_SECONDS:.0f} s per scenario, "
        f"3-player games of up to {ACTIONS_PER_GAME} actions"
    )
    print(
        f"{'scenario':<16} {'actions/s':>10} {'vs memory':>9} {'p50 ms':>7} {'p99 ms':>7}   "
        f"CPU % of a core"
    )
    for scenario in scenarios:
        tally = scenario.tally
        rate = tally.actions / tally.seconds
        cuts = statistics.quantiles(tally.latencies, n=100)
        cpu = ", ".join(
            f"{name} {100 * seconds / tally.seconds:.0f}" for name, seconds in tally.cpu.items()
        )
        print(
            f"{scenario.name:<16} {rate:>10.0f} {rate / base_rate:>8.2f}x "
            f"{1000 * statistics.median(tally.latencies):>7.1f} {1000 * cuts[98]:>7.1f}   {cpu}"
        )
    print("\nRedis commands per action (round trips; commands inside scripts left out)")
    print(
        f"{'scenario':<16} {'HMGET':>6} {'EVALSHA':>8} {'GET':>6} {'other':>6}   "
        f"{'round trips':>11}"
    )
    for scenario in scenarios[1:]:
        tally = scenario.tally
        per = {name: tally.commands.get(name, 0) / tally.actions for name in SENT}
        other = sum(per[name] for name in SENT if name not in ("hmget", "evalsha", "get"))
        print(
            f"{scenario.name:<16} {per['hmget']:>6.2f} {per['evalsha']:>8.2f} {per['get']:>6.2f} "
            f"{other:>6.2f}   {per['hmget'] + per['evalsha'] + per['get'] + other:>11.2f}"
        )


def main() -> None:
    if "--quick" in sys.argv:
        global ROUND_SECONDS, ROUNDS
        ROUND_SECONDS, ROUNDS = 1.0, 1
    workdir = Path(tempfile.mkdtemp(prefix="bench-redis-"))
    redis = RedisServer(workdir / "redis").start()
    started: list[ServiceInstance] = []

    def instance(name: str, env: dict[str, str]) -> ServiceInstance:
        launched = ServiceInstance(workdir / f"{name}.log", env={**LIMITS_OFF, **env}).start()
        started.append(launched)
        return launched

    try:
        on_redis = {"REDIS_URL": redis.url}
        memory = instance("memory", {"REDIS_URL": ""})
        first, second = instance("redis1", on_redis), instance("redis2", on_redis)
        scenarios = [
            Scenario("memory x1", [memory]),
            Scenario("redis x1", [first]),
            Scenario("redis x2", [first, second]),
            Scenario("redis x2 + key", [first, second], with_key=True),
            Scenario("redis 2 workers", [instance("workers2", {**on_redis, "WORKERS": "2"})]),
        ]
        for _ in range(ROUNDS):
            for scenario in scenarios:
                asyncio.run(run_round(scenario, redis))
        report(scenarios)
        report_costs(scenarios, redis)
    finally:
        for launched in started:
            launched.stop()
        redis.stop()


if __name__ == "__main__":
    main()

"""``make tournament-soak`` (``python -m tests.soak.tournament --help``): issue 45's tournament
under an instance kill. Not a test: a harness that runs for minutes and prints a short report.

A 16-entrant Swiss (by default: 4 rounds, tables of 4, duplicate, ``turn_seconds`` 5, classic)
on two ``python -m service`` instances sharing a private redis-server. The entrants are the four
built-in levels, which the service plays itself, and 12 programs (players made with
``"bot": true``) that this harness plays over HTTP as the example bot of docs/players.md does:
each seat on turn acts by the service's hint, through whichever instance answers. In each round
of ``--kill-rounds`` (by default 2 and 3), once the round has been played for ``--kill-after``
seconds (a round of these games takes some 20 s), one instance (the two in turn) is killed with
SIGKILL, its whole process group, and started again on its port, while the other goes on.

Once the tournament is finished, every game's record is fetched and replayed by the engine
(``tournament_replay``), each table's final totals compared with the scores the tournament
kept, and the standings worked out again from the replayed totals and compared with the
service's. Exit status 0 when the tournament finished, each kill asked for was made inside a
round being played, and the two agree.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.redis_servers import LIMITS_OFF, RedisServer
from tests.soak.servers import Fleet
from tests.soak.tournament_replay import (
    Table,
    differences,
    first_deal,
    replayed_totals,
    service_standings,
    standings,
)

Json = dict[str, Any]

BUILT_IN = ("bot-easy", "bot-normal", "bot-hard", "bot-expert")
POLL_SECONDS = 0.25
"""How often a game's driver looks whether a program is on turn."""
ATTEMPTS = 240
"""Tries of a request over the instances (a quarter of a second apart) before giving up."""


@dataclass
class Kill:
    instance: int
    round: int
    killed: float
    back: float | None = None
    mid_round: bool = False
    """The round was being played when the kill began."""


@dataclass
class Run:
    started: float = field(default_factory=time.monotonic)
    kills: list[Kill] = field(default_factory=list)
    actions: int = 0
    failures: list[str] = field(default_factory=list)


class Api:
    """Requests sent to the instances in turn from ``first``: the next one after a connection
    refused or a 503, as a client behind a load balancer sees a dying instance."""

    def __init__(self, client: httpx.AsyncClient, urls: list[str]) -> None:
        self.client, self.urls = client, urls

    async def send(
        self,
        method: str,
        path: str,
        key: str | None = None,
        body: Json | None = None,
        first: int = 0,
    ) -> httpx.Response:
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        for attempt in range(ATTEMPTS):
            url = self.urls[(first + attempt) % len(self.urls)]
            try:
                answer = await self.client.request(method, url + path, headers=headers, json=body)
            except httpx.TransportError:
                answer = None
            if answer is not None and answer.status_code != 503:
                return answer
            await asyncio.sleep(POLL_SECONDS)
        raise RuntimeError(f"{method} {path}: no instance answered")

    async def json(self, path: str, key: str | None = None, first: int = 0) -> Json:
        answer = await self.send("GET", path, key, first=first)
        answer.raise_for_status()
        found: Json = answer.json()
        return found


def choose(view: Json, hint: Json) -> Json:
    """One of the seat's legal actions: the hint's (the example bot's choice)."""
    legal: list[Json] = view["legal"]
    for action in legal:
        if action["type"] == "draw" and (action["source"], action.get("pile")) == (
            hint.get("draw"),
            hint.get("pile"),
        ):
            return action
    discards = [a for a in legal if a["type"] == "discard" and a["card"] == hint.get("suggested")]
    if discards:
        return max(discards, key=lambda a: a.get("go_out", False))
    return legal[0]


async def drive(api: Api, game_id: str, keys: dict[int, str], first: int, run: Run) -> None:
    """Play the programs' seats of a game until it is over: a 404 is a game not made yet (a
    round's games are made just after the record that pairs them is stored), anything else
    unexpected is noted as a failure and the game looked at again."""
    while True:
        try:
            if not await act(api, f"/v1/games/{game_id}", keys, first, run):
                return
        except (httpx.HTTPError, RuntimeError, ValueError) as error:
            run.failures.append(f"{game_id}: {error!r}"[:300])
            await asyncio.sleep(POLL_SECONDS)


async def act(api: Api, path: str, keys: dict[int, str], first: int, run: Run) -> bool:
    """One look at the game, and a program's action if one is on turn; False once it is over."""
    public = await api.send("GET", path, first=first)
    if public.status_code == 404:
        await asyncio.sleep(POLL_SECONDS)
        return True
    if public.raise_for_status().json()["status"] != "playing":
        return False
    key = keys.get(public.json()["turn"])
    view = None if key is None else await api.json(path, key, first)
    if key is None or view is None or not view["legal"]:
        await asyncio.sleep(POLL_SECONDS)
        return True
    hint = await api.send("GET", f"{path}/hint", key, first=first)
    advice: Json = hint.json() if hint.status_code == 200 else {}
    action = {**choose(view, advice), "expected_version": view["version"]}
    answer = await api.send("POST", f"{path}/actions", key, action, first)
    if answer.status_code == 200:
        run.actions += 1
    elif answer.status_code != 409:  # 409: the game moved on meanwhile
        run.failures.append(f"{path}: {answer.status_code} {answer.text[:200]}")
    return True


async def kill_and_restart(fleet: Fleet, kill: Kill) -> None:
    await asyncio.to_thread(fleet.kill, kill.instance)
    if await asyncio.to_thread(fleet.restart, kill.instance):
        kill.back = time.monotonic()


async def follow(
    api: Api, fleet: Fleet, tournament_id: str, keys: dict[str, str], options: argparse.Namespace
) -> tuple[Json, Run]:
    """Drive the tournament to its end, killing as the options say; the tournament at its end."""
    run = Run()
    drivers: dict[str, asyncio.Task[None]] = {}
    round_seen: dict[int, float] = {}
    deadline = run.started + options.timeout
    while time.monotonic() < deadline:
        tournament = await api.json(f"/v1/tournaments/{tournament_id}")
        if tournament["status"] == "finished":
            await asyncio.gather(*drivers.values())
            return tournament, run
        for played in tournament["rounds"]:
            round_seen.setdefault(played["round"], time.monotonic())
            for pairing in played["pairings"]:
                game_id = pairing["game_id"]
                if game_id not in drivers:
                    seats = {s: keys[p] for s, p in enumerate(pairing["players"]) if p in keys}
                    drivers[game_id] = asyncio.create_task(
                        drive(api, game_id, seats, len(drivers) % 2, run)
                    )
        current = tournament["rounds"][-1] if tournament["rounds"] else None
        if (
            current is not None
            and current["round"] in options.kill_rounds
            and current["round"] not in {k.round for k in run.kills}
            and time.monotonic() - round_seen[current["round"]] >= options.kill_after
        ):
            kill = Kill(len(run.kills) % 2, current["round"], time.monotonic())
            kill.mid_round = current["status"] == "playing"  # as read just now
            run.kills.append(kill)
            await kill_and_restart(fleet, kill)
        await asyncio.sleep(1.0)
    raise TimeoutError(f"the tournament did not finish in {options.timeout:.0f} s")


async def soak(urls: list[str], fleet: Fleet, options: argparse.Namespace) -> bool:
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        api = Api(client, urls)
        made = []
        for n in range(options.programs + 1):
            body = {"name": f"Program {n}", "bot": True} if n else {"name": "Organiser"}
            answer = await api.send("POST", "/v1/players", body=body)
            answer.raise_for_status()
            made.append(answer.json())
        organiser, programs = made[0], made[1:]
        keys = {p["player_id"]: p["key"] for p in programs}
        request = {
            "name": "Soak Swiss",
            "rules": "classic",
            "format": "swiss",
            "rounds": options.rounds,
            "table_size": options.table_size,
            "duplicate": True,
            "turn_seconds": options.turn_seconds,
            "entrants": [*BUILT_IN, *keys],
        }
        answer = await api.send("POST", "/v1/tournaments", organiser["key"], request)
        answer.raise_for_status()
        created: Json = answer.json()
        tournament, run = await follow(api, fleet, created["tournament_id"], keys, options)
        seconds = time.monotonic() - run.started
        return await check(api, tournament, run, seconds, len(options.kill_rounds))


async def check(api: Api, tournament: Json, run: Run, seconds: float, kills: int) -> bool:
    """Replay every game, compare, and print the report; True if all is well."""
    tables, byes, mismatched, unlike = [], [], [], []
    for played in tournament["rounds"]:
        byes += played["byes"]
        deals = set()
        for pairing in played["pairings"]:
            record = await api.json(f"/v1/games/{pairing['game_id']}/record")
            totals = await asyncio.to_thread(replayed_totals, record)
            tables.append(Table(pairing["game_id"], tuple(pairing["players"]), totals))
            if list(totals) != pairing["scores"]:
                mismatched.append(f"{pairing['game_id']}: {totals} != {pairing['scores']}")
            deals.add(repr(first_deal(record)))
        if tournament["duplicate"] and len(deals) > 1:
            unlike.append(f"round {played['round']}: its tables were dealt {len(deals)} ways")
    entrants = [e["player_id"] for e in tournament["entrants"]]
    names = {e["player_id"]: e["name"] for e in tournament["entrants"]}
    mine = standings(entrants, tournament["table_size"], tables, byes)
    different = differences(mine, service_standings(tournament))
    mid_round = all(k.mid_round and k.back is not None for k in run.kills)
    lines = [
        f"tournament soak: {len(entrants)} entrants ({len(entrants) - len(BUILT_IN)} programs, "
        f"{len(BUILT_IN)} built-in levels), {tournament['format']}, tables of "
        f"{tournament['table_size']}, duplicate, turn_seconds {tournament['turn_seconds']}, "
        "2 instances on one Redis",
        f"rounds: {len(tournament['rounds'])} of {tournament['planned_rounds']} planned; "
        f"status {tournament['status']}",
        f"games: {len(tables)}, every record replayed; program actions sent: {run.actions}",
        f"time: {seconds:.0f} s",
        f"kills: {len(run.kills)}"
        + "".join(
            f"; instance {k.instance} in round {k.round}, back after "
            + ("never" if k.back is None else f"{k.back - k.killed:.1f} s")
            + (" (mid-round)" if k.mid_round else " (NOT mid-round)")
            for k in run.kills
        ),
        f"table totals equal to the replays: {len(tables) - len(mismatched)} of {len(tables)}; "
        f"every round's tables dealt alike: {'no' if unlike else 'yes'}",
        f"standings equal to the replay: {'yes' if not different else 'no'}",
        "first: " + ", ".join(f"{names[p]} ({points:g} points)" for p, points, *_ in mine[:3]),
    ]
    lines += [f"  {line}" for line in mismatched + unlike + different + run.failures[:10]]
    print("\n".join(lines), flush=True)
    failed = mismatched or unlike or different or run.failures
    return not failed and mid_round and len(run.kills) == kills


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.soak.tournament", description=__doc__)
    parser.add_argument("--programs", type=int, default=12, help="entrants beside the 4 levels")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--turn-seconds", type=int, default=5)
    parser.add_argument(
        "--kill-rounds",
        type=lambda text: {int(r) for r in text.split(",") if r},
        default={2, 3},
        help="the rounds in which an instance is killed (comma-separated; empty: none)",
    )
    parser.add_argument("--kill-after", type=float, default=5.0, help="seconds into the round")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds before giving up")
    parser.add_argument("--workdir", type=Path, default=None, help="logs (default: a temp dir)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    options = parse(argv)
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="tournament-soak-"))
    print(f"tournament soak: logs in {workdir}", flush=True)
    redis = RedisServer(workdir / "redis").start()
    env = {**LIMITS_OFF, "REDIS_URL": redis.url, "LOG_LEVEL": "WARNING"}
    fleet = Fleet(workdir, env, 2)
    try:
        fleet.start()
        passed = asyncio.run(soak(fleet.urls, fleet, options))
    finally:
        fleet.stop()
        redis.kill()
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()

"""The ownership invariant under fault injection: two real ``python -m service`` processes on one
Redis (and on a Redis Cluster), each killing itself (SIGKILL of its whole process group, as
``kill -9``) at a crash point of the commit and drive paths (``service.operations.crash_points``):
before a commit, after a commit before its answer or event, after a driver's claim before its
decision. A dead instance is restarted at once with the next point; after each instance has died
``KILLS`` times they run on without crash points.

Every game still finishes: games of bots only, and a game a person plays through either
instance with an ``Idempotency-Key`` on every action, retried on the other instance when its
answer is lost. Versions are contiguous, and each of the person's actions is in the log once.

Timing: sweeps every 0.2 s, leases of 1 s; every wait polls with a generous deadline."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.operations.crash_points import POINTS
from tests.redis_servers import (
    LIMITS_OFF,
    RedisClusterServers,
    RedisServer,
    ServiceInstance,
    redis_server_installed,
)
from tests.waiting import eventually

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]

Json = dict[str, Any]

CHANCE = 0.2
"""The chance an instance dies each time it passes its crash point: high enough that its
deaths come early in the games, which then play on to their end."""
KILLS = 2
"""Deaths per instance: with the points taken in turn, each point kills at least once."""
BOT_GAMES = 1
WAIT_SECONDS = 300.0
TIMEOUT = 60.0
"""A request's bound: an instance that dies refuses or drops it at once, so only a busy machine
ever nears it."""


class Chaos:
    """Two instances on one store, each restarted as soon as it is found dead, with the next
    crash point in turn, until each has died ``KILLS`` times."""

    def __init__(self, directory: Path, env: dict[str, str]) -> None:
        self._points = itertools.cycle(POINTS)
        self.instances = [
            ServiceInstance(directory / f"service{n}.log", env={**env, **LIMITS_OFF})
            for n in range(2)
        ]
        self.deaths: list[list[str]] = [[] for _ in self.instances]
        """Where each instance died, in order."""
        for number in range(len(self.instances)):
            self._start(number)

    def _start(self, number: int) -> None:
        instance = self.instances[number]
        dying = len(self.deaths[number]) < KILLS
        instance.env["CRASH_POINTS"] = f"{next(self._points)}={CHANCE}" if dying else ""
        instance.start()

    def revive(self) -> None:
        """Restart every instance that died, noting where."""
        for number, instance in enumerate(self.instances):
            process = instance.process
            if process is not None and process.poll() is not None:
                self.deaths[number].append(instance.env["CRASH_POINTS"].split("=")[0])
                instance.process = None
                self._start(number)

    def live_urls(self) -> list[str]:
        return [i.url for i in self.instances if i.process and i.process.poll() is None]

    def stop(self) -> None:
        for instance in self.instances:
            instance.stop()


@pytest.fixture(params=["redis", "cluster"])
def chaos(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Chaos]:
    env = {"SWEEP_SECONDS": "0.2", "BOT_LEASE_SECONDS": "1"}
    if request.param == "cluster":
        cluster = RedisClusterServers(tmp_path / "cluster").start()
        env |= {"REDIS_URL": cluster.url, "REDIS_CLUSTER": "true"}
        stop = cluster.stop
    else:
        redis = RedisServer(tmp_path / "redis").start()
        env["REDIS_URL"] = redis.url
        stop = redis.stop
    try:
        deployment = Chaos(tmp_path, env)
    except BaseException:
        stop()
        raise
    yield deployment
    deployment.stop()
    stop()


class Person:
    """A person playing seat 0 through whichever instance answers: every action sent with an
    Idempotency-Key, and sent again with the same key (to the other instance, if need be)
    until an answer comes back; ``sent`` is what they meant to do, in order."""

    def __init__(self, http: httpx.Client, game_id: str, token: str) -> None:
        self.http, self.game_id, self.token = http, game_id, token
        self.sent: list[Json] = []
        self.finished = False
        self._pending: tuple[Json, str] | None = None

    def step(self, urls: list[str]) -> None:
        """One look at the game (and one action if it is this seat's turn), through the first
        instance that answers."""
        for url in urls:
            try:
                self._step(url)
            except httpx.TransportError:
                continue
            return

    def _step(self, url: str) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        if self._pending is None:
            seen = self._view(url, headers)
            if seen is None:
                return
            self.finished = seen["status"] == "finished"
            if self.finished or seen["turn"] != 0 or not seen["legal"]:
                return
            self._pending = (seen["legal"][0], str(uuid.uuid4()))
        body, key = self._pending
        answer = self.http.post(
            f"{url}/v1/games/{self.game_id}/actions",
            json=body,
            headers={**headers, "Idempotency-Key": key},
            timeout=TIMEOUT,
        )
        if answer.status_code == 200:
            self.sent.append(body)
            self._pending = None
        else:
            assert answer.status_code in (409, 503), answer.text  # a lost race: look again
            if answer.status_code == 409:
                self._pending = None

    def _view(self, url: str, headers: dict[str, str]) -> Json | None:
        """The seat's view, from its stream's first event (its snapshot; the stream is left at
        once): unlike a ``GET`` of the game, a stream never starts a driver, so only the
        sweepers and the committing instances' drivers move the bots here."""
        url = f"{url}/v1/games/{self.game_id}/events"
        with self.http.stream("GET", url, headers=headers, timeout=TIMEOUT) as stream:
            if stream.status_code == 204:  # the game is over: its stream has nothing to say
                return {"status": "finished"}
            if stream.status_code != 200:
                return None
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    snapshot: Json = json.loads(line.removeprefix("data: "))
                    return snapshot
        return None


def create(http: httpx.Client, urls: list[str], players: list[Json]) -> Json:
    def on_a_live_instance() -> Json | None:
        for url in urls:
            try:
                created = http.post(f"{url}/v1/games", json={"players": players}, timeout=TIMEOUT)
            except httpx.TransportError:
                continue
            assert created.status_code == 201, created.text
            game: Json = created.json()
            return game
        return None

    return eventually(on_a_live_instance, "an instance to create the game", seconds=WAIT_SECONDS)


def game_log(http: httpx.Client, urls: list[str], game_id: str) -> Json:
    for url in urls:
        try:
            response = http.get(f"{url}/v1/games/{game_id}/log", timeout=TIMEOUT)
        except httpx.TransportError:
            continue
        assert response.status_code == 200, response.text
        log: Json = response.json()
        return log
    return {}


def test_every_game_finishes_whatever_point_its_instances_die_at(
    chaos: Chaos, http: httpx.Client
) -> None:
    urls = [i.url for i in chaos.instances]
    bot_games = [
        create(http, urls, [{"bot": "easy"}, {"bot": "normal"}, {"bot": "easy"}])["game_id"]
        for _ in range(BOT_GAMES)
    ]
    created = create(http, urls, [{"name": "Ann"}, {"bot": "easy"}, {"bot": "normal"}])
    person = Person(http, created["game_id"], created["seats"][0]["token"])
    unfinished = set(bot_games)

    def played_to_the_end() -> bool:
        """One round of the chaos: dead instances revived, the person's step, the games seen."""
        chaos.revive()
        live = chaos.live_urls()
        if not person.finished:
            person.step(live)
        unfinished.difference_update({g for g in unfinished if _over(http, live, g)})
        return not unfinished and person.finished

    try:
        eventually(played_to_the_end, "every game to finish", seconds=WAIT_SECONDS)
    except AssertionError as error:  # the games left, as the service has them
        stuck = _stuck(http, urls, [*unfinished, person.game_id])
        raise AssertionError(f"{error}\n{stuck}") from error
    deaths = [point for points in chaos.deaths for point in points]
    assert sorted(set(deaths)) == sorted(POINTS), deaths
    for game_id in [*bot_games, person.game_id]:
        log = game_log(http, urls, game_id)
        assert [e["version"] for e in log["entries"]] == list(range(1, log["version"] + 1))
    person_actions = [
        _logged(e) for e in game_log(http, urls, person.game_id)["entries"] if e["seat"] == 0
    ]
    assert person_actions == [
        (body["type"], body.get("source", body.get("card"))) for body in person.sent
    ]
    print(f"\ndeaths by point: {deaths}; the person's actions: {len(person.sent)}")


def _stuck(http: httpx.Client, urls: list[str], games: list[str]) -> str:
    """What the games left unfinished look like: each one's public view and last entries."""
    lines = []
    for game_id in games:
        view = http.get(f"{urls[0]}/v1/games/{game_id}", timeout=TIMEOUT).text
        entries = game_log(http, urls, game_id).get("entries", [])[-4:]
        lines.append(f"{game_id}: {view[:600]} last: {entries}")
    return "not finished:\n" + "\n".join(lines)


def _logged(entry: Json) -> tuple[str, str]:
    """A log entry as its action's type and what it names: a draw's source, else its card."""
    action = entry["action"]
    return action["type"], action["source"] if action["type"] == "draw" else entry["card"]


def _over(http: httpx.Client, urls: list[str], game_id: str) -> bool:
    """Whether the game is over, from its stream's end (a view would nudge a driver)."""
    for url in urls:
        try:
            response = http.get(
                f"{url}/v1/games/{game_id}/events",
                headers={"Last-Event-ID": "999999"},
                params={"idle_timeout": 0.01},
                timeout=TIMEOUT,
            )
        except httpx.TransportError:
            continue
        return response.status_code == 204
    return False

"""Computer players and turn clocks on two real service processes sharing one real Redis: an
instance killed (SIGKILL) in the middle of a game of bots leaves it to the other, which finishes
it with nothing applied twice; an idle seat's overdue turn is made once, whichever of the two
sweepers gets there first.

Both instances sweep every 0.2 s and hold a taken move for 2 s (``SWEEP_SECONDS``,
``BOT_LEASE_SECONDS``). The tests poll the log (which never starts a driver itself, unlike a
game's view), so what they see is the sweepers' doing; every wait has a generous deadline."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.redis_servers import RedisServer, ServiceInstance, redis_server_installed
from tests.service.games.test_redis_instances import Deployment, tear_down
from tests.waiting import eventually

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]

Json = dict[str, Any]

SWEEPING = {"SWEEP_SECONDS": "0.2", "BOT_LEASE_SECONDS": "2"}
WAIT_SECONDS = 120.0
_BOT_MOVES = re.compile(r'^three_thirteen_bot_moves_total\{level="(\w+)"\} (\S+)$', re.MULTILINE)


def deploy_sweeping(directory: Path) -> Deployment:
    redis = RedisServer(directory / "redis").start()
    instances: list[ServiceInstance] = []
    try:
        for number in range(2):
            env = {"REDIS_URL": redis.url, **SWEEPING}
            instances.append(ServiceInstance(directory / f"service{number}.log", env=env).start())
    except BaseException:
        for instance in instances:
            instance.kill()
        redis.kill()
        raise
    return Deployment(redis, instances)


@pytest.fixture
def instances(tmp_path: Path) -> Iterator[Deployment]:
    deployment = deploy_sweeping(tmp_path)
    yield deployment
    tear_down(deployment)


def log_through(http: httpx.Client, base: str, game_id: str) -> Callable[[], Json]:
    """A reader of the game's whole log through ``base``, page after page."""

    def read() -> Json:
        log: Json = {}
        entries: list[Json] = []
        since: int | None = 0
        while since is not None:
            response = http.get(
                f"{base}/v1/games/{game_id}/log", params={"since": since}, timeout=WAIT_SECONDS
            )
            assert response.status_code == 200, response.text
            log = response.json()
            entries += log["entries"]
            since = log["next_since"]
        return {**log, "entries": entries}

    return read


def bot_moves(http: httpx.Client, base: str) -> float:
    """The bot moves this instance has committed (its ``/metrics``), every level together."""
    text = http.get(f"{base}/metrics", timeout=WAIT_SECONDS).text
    return sum(float(count) for _, count in _BOT_MOVES.findall(text))


def assert_one_action_per_version(log: Json) -> None:
    versions = [entry["version"] for entry in log["entries"]]
    assert versions == list(range(1, log["version"] + 1))


def test_an_instance_killed_mid_game_of_bots_leaves_it_to_the_other(
    instances: Deployment, http: httpx.Client
) -> None:
    first, second = instances.instances
    players = [{"bot": "normal"}, {"bot": "easy"}, {"bot": "normal"}, {"bot": "easy"}]
    created = http.post(f"{first.url}/v1/games", json={"players": players}, timeout=WAIT_SECONDS)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    # The first instance drives the game it created; kill it in the middle.
    eventually(
        log_through(http, second.url, game_id),
        "the bots to reach version 30 on the first instance",
        until=lambda log: log["version"] >= 30,
        seconds=WAIT_SECONDS,
    )
    first.kill()
    at_kill = log_through(http, second.url, game_id)()["version"]
    # The second instance's sweeper takes the game once the dead one's lease runs out.
    eventually(
        lambda: _finished(http, second.url, game_id),
        "the other instance to finish the game",
        seconds=WAIT_SECONDS,
    )
    final = log_through(http, second.url, game_id)()
    assert_one_action_per_version(final)
    assert final["version"] > at_kill
    # Every action after the kill is the second instance's (it may have made some before,
    # had the first been slow to renew its lease on this busy machine).
    assert bot_moves(http, second.url) >= final["version"] - at_kill
    print(f"\nkilled at version {at_kill}; the other instance finished at {final['version']}")


def _finished(http: httpx.Client, base: str, game_id: str) -> bool:
    """Whether the game is over, read from its public log's stream end (no view: a view would
    start a driver on this instance and hide whether the sweeper did)."""
    response = http.get(
        f"{base}/v1/games/{game_id}/events",
        headers={"Last-Event-ID": "999999"},
        params={"idle_timeout": 0.01},
        timeout=WAIT_SECONDS,
    )
    return response.status_code == 204


def test_an_idle_seat_is_moved_for_once_by_one_of_two_sweepers(
    instances: Deployment, http: httpx.Client
) -> None:
    first, second = instances.instances
    body = {"players": [{"name": "Ann"}, {"name": "Bob"}], "turn_seconds": 3}
    created = http.post(f"{first.url}/v1/games", json=body, timeout=WAIT_SECONDS).json()
    game_id = created["game_id"]
    idle = created["view"]["turn"]
    other = 1 - idle
    started = time.monotonic()
    log = eventually(
        log_through(http, second.url, game_id),
        "the clock to play the idle seat's turn (version 2)",
        until=lambda log: log["version"] >= 2,
        seconds=WAIT_SECONDS,
    )
    assert time.monotonic() - started >= 2.5
    assert [(e["seat"], e["action"]["type"]) for e in log["entries"]] == [
        (idle, "draw"),
        (idle, "discard"),
    ]
    # Both instances sweep; the two moves were committed once between them.
    assert bot_moves(http, first.url) + bot_moves(http, second.url) == 2
    view = http.get(f"{second.url}/v1/games/{game_id}", timeout=WAIT_SECONDS).json()
    assert view["turn"] == other
    assert view["players"][idle]["away"] is True
    # The other seat acts in time through either instance: nothing is made for it.
    token = created["seats"][other]["token"]
    drawn = http.post(
        f"{second.url}/v1/games/{game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=WAIT_SECONDS,
    )
    assert drawn.status_code == 200, drawn.text
    card = drawn.json()["hand"][0]
    discarded = http.post(
        f"{first.url}/v1/games/{game_id}/actions",
        json={"type": "discard", "card": card},
        headers={"Authorization": f"Bearer {token}"},
        timeout=WAIT_SECONDS,
    )
    assert discarded.status_code == 200, discarded.text
    assert discarded.json()["version"] == 4
    # The next turn (the idle seat's, or the other's if the round ended) runs out too: again
    # made once, by one of the two.
    next_turn = discarded.json()["turn"]
    log = eventually(
        log_through(http, first.url, game_id),
        "the next turn to run out (version 6)",
        until=lambda log: log["version"] >= 6,
        seconds=WAIT_SECONDS,
    )
    assert_one_action_per_version(log)
    assert [e["seat"] for e in log["entries"][4:6]] == [next_turn, next_turn]
    # Every action but the other seat's two was the clock's (more, if a later clock ran out
    # before this look), each committed once.
    while True:  # counted between two reads of the same version
        before = log_through(http, first.url, game_id)()["version"]
        moves = bot_moves(http, first.url) + bot_moves(http, second.url)
        if log_through(http, first.url, game_id)()["version"] == before:
            break
    assert moves == before - 2

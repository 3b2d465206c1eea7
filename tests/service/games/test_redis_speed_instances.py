"""A speed game's caller on two real service processes sharing one real Redis: at a table of ten
(two people, eight bots), with the people not choosing, a 3 s call is timed out once, by one of
the two sweepers; then the away seats choose in every call (a ``normal`` bot for each) to the
game's end, every call ended exactly once.

Both instances sweep every 0.2 s (``SWEEP_SECONDS``). The test polls the log (which never
starts a driver itself), so what it sees is the sweepers' doing; every wait has a generous
deadline, and the only bound on time is a lower one (the call's 3 s were waited)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.redis_servers import redis_server_installed
from tests.service.bots.test_redis_bot_instances import WAIT_SECONDS, deploy_sweeping, log_through
from tests.service.games.test_redis_instances import Deployment, tear_down
from tests.service.games.test_speed_games import assert_call_ends_once
from tests.waiting import eventually

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]

_TIMEOUTS = re.compile(
    r'^three_thirteen_actions_applied_total\{type="call_timeout"\} (\S+)$', re.MULTILINE
)


@pytest.fixture
def instances(tmp_path: Path) -> Iterator[Deployment]:
    deployment = deploy_sweeping(tmp_path)
    yield deployment
    tear_down(deployment)


def timeouts(http: httpx.Client, base: str) -> float:
    """The call timeouts this instance has committed (its ``/metrics``)."""
    text = http.get(f"{base}/metrics", timeout=WAIT_SECONDS).text
    return sum(float(count) for count in _TIMEOUTS.findall(text))


def test_a_call_times_out_once_on_one_of_two_instances(
    instances: Deployment, http: httpx.Client
) -> None:
    first, second = instances.instances
    bots = [{"bot": level} for level in ("easy", "normal", "hard", "easy") * 2]
    body = {
        "players": [{"name": "Ann"}, {"name": "Bob"}, *bots],
        "rules": {"preset": "classic", "turns": "speed", "max_players": 10},
        "call_seconds": 3,
    }
    created = http.post(f"{first.url}/v1/games", json=body, timeout=WAIT_SECONDS)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    started = time.monotonic()
    # The bots choose at once; Ann and Bob never do: the caller ends the call at its deadline.
    log = eventually(
        log_through(http, second.url, game_id),
        "the caller to end the call",
        until=lambda log: any(e["action"]["type"] == "call_end" for e in log["entries"]),
        seconds=WAIT_SECONDS,
    )
    assert time.monotonic() - started >= 2.5
    end = next(e for e in log["entries"] if e["action"]["type"] == "call_end")
    assert end["seat"] == -1
    assert end["action"]["timed_out"] is True
    assert end["action"]["number"] == 1
    assert sorted(m["seat"] for m in end["action"]["moves"]) == list(range(10))
    # Ann and Bob are away now: a bot chooses for each in every call, to the game's end.
    view = http.get(f"{second.url}/v1/games/{game_id}", timeout=WAIT_SECONDS).json()
    assert view["players"][0]["away"] is True
    assert view["players"][1]["away"] is True
    final = eventually(
        lambda: http.get(f"{first.url}/v1/games/{game_id}", timeout=WAIT_SECONDS).json(),
        "the game to finish",
        until=lambda view: view["status"] == "finished",
        seconds=WAIT_SECONDS,
    )
    entries = log_through(http, second.url, game_id)()["entries"]
    assert len(entries) == final["version"]
    assert_call_ends_once(entries)
    timed_out = [
        e for e in entries if e["action"]["type"] == "call_end" and e["action"]["timed_out"]
    ]
    # Both instances sweep; each timeout was committed once between them.
    assert timeouts(http, first.url) + timeouts(http, second.url) == len(timed_out) >= 1
    print(f"\n{len(timed_out)} call(s) timed out; {final['version']} versions to the end")

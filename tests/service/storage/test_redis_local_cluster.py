"""deploy/local-cluster.py as an operator runs it: three instances on Redis behind nginx.

Through nginx: a game is played, an event stream follows it (so nginx does not buffer events),
an instance is killed mid-game and play goes on without an error, and stopping the script stops
every process it started.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.redis_servers import (
    HttpResponse,
    LeanHttpClient,
    free_port,
    redis_server_installed,
)
from tests.service.games.test_redis_instances import (
    a_legal_action,
    act,
    create_game,
    listen,
    play_one,
    seat_view,
    view_of_turn,
)
from tests.waiting import WAIT_SECONDS, eventually_async

SCRIPT = Path(__file__).parents[3] / "deploy" / "local-cluster.py"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(
        not redis_server_installed() or NGINX is None,
        reason="needs redis-server and nginx (.ci/run installs both)",
    ),
]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return status != "Z"


@pytest.fixture
def local_cluster(tmp_path: Path) -> Iterator[tuple[dict[str, Any], subprocess.Popen[str]]]:
    command = [sys.executable, str(SCRIPT), "--instances", "3", "--port", str(free_port())]
    command += ["--workdir", str(tmp_path / "cluster")]
    script = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert script.stdout is not None
    first_line = script.stdout.readline()
    try:
        described = json.loads(first_line)
    except json.JSONDecodeError:
        script.kill()
        pytest.fail(f"local-cluster.py did not start: {first_line}{script.stdout.read()}")
    yield described, script
    if script.poll() is None:
        script.send_signal(signal.SIGTERM)
        script.wait(timeout=WAIT_SECONDS)


class ClientThatRetries(LeanHttpClient):
    """A client as the deployment expects one: it retries a 502 (its request reached an instance
    as it died), a POST only when it carries an Idempotency-Key, which makes the retry safe."""

    async def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> HttpResponse:
        sent = partial(
            LeanHttpClient.request, self, method, path, json_body=json_body, headers=headers
        )
        if method == "POST" and "Idempotency-Key" not in (headers or {}):
            return await sent()  # not safe to retry
        return await eventually_async(
            sent, f"{method} {path} answered by a live instance", until=lambda r: r.status != 502
        )


def test_three_instances_behind_nginx_survive_losing_one(
    local_cluster: tuple[dict[str, Any], subprocess.Popen[str]],
) -> None:
    described, script = local_cluster
    assert len(described["instances"]) == 3

    async def play() -> None:
        front = ClientThatRetries(described["url"])
        assert (await front.get("/readyz")).status == 200
        game = await create_game(front)
        listener = await listen(f"{described['url']}/v1/games/{game.game_id}/events", 8)
        for _ in range(4):
            await play_one(front, game)

        os.killpg(described["instances"][0]["pid"], signal.SIGKILL)  # the server and its workers
        # nginx moves on from the dead instance; a request caught on a connection to it is
        # retried by the client, an action with its Idempotency-Key: applied once all the same.
        for number in range(4):
            view = await view_of_turn(front, game)
            played = await act(front, game, view["turn"], a_legal_action(view), key=f"k{number}")
            assert played.status == 200, played.body
        assert (await seat_view(front, game, None))["version"] == 8
        for _ in range(10):
            assert (await front.get("/readyz")).status == 200

        # The stream was served by one instance all along (or reconnected): it saw all eight.
        events = await asyncio.wait_for(listener, WAIT_SECONDS)
        assert [e.id for e in events if e.event == "action"] == list(range(1, 9))
        assert (await view_of_turn(front, game))["version"] == 8
        await front.close()

    asyncio.run(play())

    script.send_signal(signal.SIGTERM)
    script.wait(timeout=WAIT_SECONDS)
    assert script.returncode == 0
    started = [described["redis_pid"], described["nginx_pid"]]
    started += [instance["pid"] for instance in described["instances"]]
    assert not [pid for pid in started if alive(pid)]
    groups = [instance["pid"] for instance in described["instances"]]
    assert not [group for group in groups if live_members(group)]


def live_members(group: int) -> list[int]:
    """The processes of a process group that still run (zombies excluded)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except OSError:
            continue
        if int(pgrp) == group and state != "Z":
            members.append(int(stat.parent.name))
    return members

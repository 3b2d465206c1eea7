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
from pathlib import Path
from typing import Any

import pytest

from tests.redis_servers import LeanHttpClient, free_port, redis_server_installed
from tests.service.test_redis_instances import (
    create_game,
    listen,
    play_one,
    seat_view,
    view_of_turn,
)

SCRIPT = Path(__file__).parents[2] / "deploy" / "local-cluster.py"
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
        script.wait(timeout=30)


def test_three_instances_behind_nginx_survive_losing_one(
    local_cluster: tuple[dict[str, Any], subprocess.Popen[str]],
) -> None:
    described, script = local_cluster
    assert len(described["instances"]) == 3

    async def play() -> None:
        front = LeanHttpClient(described["url"])
        assert (await front.get("/readyz")).status == 200
        game = await create_game(front)
        listener = await listen(f"{described['url']}/v1/games/{game.game_id}/events", 8)
        for _ in range(4):
            await play_one(front, game)

        os.kill(described["instances"][0]["pid"], signal.SIGKILL)
        # Every request from now on reaches a live instance: nginx moves on from the dead one.
        for _ in range(4):
            await play_one(front, game)
        assert (await seat_view(front, game, None))["version"] == 8
        for _ in range(10):
            assert (await front.get("/readyz")).status == 200

        # The stream was served by one instance all along (or reconnected): it saw all eight.
        events = await asyncio.wait_for(listener, 20)
        assert [e.id for e in events if e.event == "action"] == list(range(1, 9))
        assert (await view_of_turn(front, game))["version"] == 8
        await front.close()

    asyncio.run(play())

    script.send_signal(signal.SIGTERM)
    script.wait(timeout=30)
    assert script.returncode == 0
    started = [described["redis_pid"], described["nginx_pid"]]
    started += [instance["pid"] for instance in described["instances"]]
    assert not [pid for pid in started if alive(pid)]

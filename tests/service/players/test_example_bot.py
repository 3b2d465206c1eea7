"""The example bot of docs/players.md, run as the file it shows against a live server: it comes
online, accepts a person's challenge, plays the whole game through to its end against them, and
declines a speed game; it stays up until stopped, and is at most 100 lines."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.service.players.test_players import Json, bearer, new_player
from tests.waiting import WAIT_SECONDS, eventually

DOCS = Path(__file__).resolve().parents[3] / "docs" / "players.md"


def example_bot_source() -> str:
    [block] = [
        b
        for b in re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)
        if b.startswith('"""example_bot.py')
    ]
    return str(block)


def test_the_example_bot_is_at_most_100_lines_of_httpx_alone() -> None:
    source = example_bot_source()
    assert len(source.splitlines()) <= 100
    imported = set(re.findall(r"^(?:import|from) (\w+)", source, re.M))
    assert imported == {"json", "os", "time", "httpx"}


@pytest.fixture
def running_bot(tmp_path: Path) -> Iterator[Callable[[str, str], subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(base_url: str, key: str) -> subprocess.Popen[bytes]:
        path = tmp_path / "example_bot.py"
        path.write_text(example_bot_source())
        env = {**os.environ, "TTT_URL": base_url, "TTT_KEY": key}
        # Its stderr goes to a file: a pipe read only at the end filled up on a busy machine
        # (the bot's messages about streams it reconnected), and the bot, blocked writing to
        # it, never exited.
        with (tmp_path / "example_bot.err").open("wb") as errors:
            bot = subprocess.Popen([sys.executable, str(path)], env=env, stderr=errors)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        if bot.poll() is None:
            bot.kill()
        bot.wait()


def person_turn(client: httpx.Client, game_id: str, key: str) -> Json:
    """The person's view once it waits for them or the game is over; their turn played."""

    def waiting_for_me() -> Json | None:
        view: Json = client.get(f"/v1/games/{game_id}", headers=bearer(key)).json()
        return view if view["status"] == "finished" or view["legal"] else None

    view = eventually(waiting_for_me, "the person's turn, or the end")
    if view["status"] == "finished":
        return view
    drawn = client.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers=bearer(key),
    ).json()
    analysis = client.post(
        "/v1/analyse", json={"hand": drawn["hand"], "wild": drawn["wild"], "rules": "classic"}
    ).json()
    discard = {
        "type": "discard",
        "card": analysis["suggested_discard"],
        "go_out": analysis["can_go_out"] and drawn["out_seat"] is None,
    }
    answer = client.post(f"/v1/games/{game_id}/actions", json=discard, headers=bearer(key))
    assert answer.status_code == 200, answer.text
    return view


def test_the_example_bot_accepts_a_challenge_and_plays_a_whole_game(
    live_server_for: Callable[[Litestar], str],
    running_bot: Callable[[str, str], subprocess.Popen[bytes]],
    tmp_path: Path,
) -> None:
    base = live_server_for(create_app(Settings(stream_lifetime=5)))
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as client:
        robo, ann = new_player(client, "Robo", bot=True), new_player(client, "Ann")
        bot = running_bot(base, robo["key"])

        def online() -> bool:
            listed = client.get("/v1/bots/online").json()["bots"]
            return any(b["player_id"] == robo["player_id"] for b in listed)

        eventually(online, "the bot to come online")
        speed = client.post(
            "/v1/challenges",
            json={"to": [robo["player_id"]], "rules": {"preset": "classic", "turns": "speed"}},
            headers=bearer(ann["key"]),
        ).json()
        made = client.post(
            "/v1/challenges", json={"to": [robo["player_id"]]}, headers=bearer(ann["key"])
        ).json()

        def status(challenge: Json) -> str:
            found: str = client.get(f"/v1/challenges/{challenge['challenge_id']}").json()["status"]
            return found

        eventually(lambda: status(made) == "accepted", "the bot to accept")
        eventually(lambda: status(speed) == "declined", "the bot to decline the speed game")
        game_id = made["game_id"]
        view = person_turn(client, game_id, ann["key"])
        while view["status"] != "finished":
            view = person_turn(client, game_id, ann["key"])
        assert [p["player_id"] for p in view["players"]] == [ann["player_id"], robo["player_id"]]
        assert view["round"] == view["rounds"]
        assert bot.poll() is None, "the bot plays until stopped"
        # Stopped as a service manager stops it (Ctrl-C's KeyboardInterrupt is Python's own; beside
        # two busy loops the bot once took more than a minute to act on it): nothing it wrote to
        # its stderr while it played was an error.
        bot.kill()
        bot.wait(timeout=WAIT_SECONDS)
        errors = (tmp_path / "example_bot.err").read_bytes()
        assert b"Error" not in errors, errors

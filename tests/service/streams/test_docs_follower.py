"""The game stream's follower of docs/contract.md, run as written against a live server whose
streams end every 40 to 80 ms: it sees every version of a whole game once, in order, through
its end, reconnecting with the last id read many times over."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.service.players.test_player_events import Kept
from tests.service.players.test_players import bearer, create, play_to_end
from tests.waiting import WAIT_SECONDS, eventually

DOCS = Path(__file__).resolve().parents[3] / "docs" / "contract.md"


def docs_follower() -> Callable[..., None]:
    """``follow_game`` exactly as docs/contract.md shows it."""
    text = DOCS.read_text()
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def follow_game(" in b]
    namespace: dict[str, Any] = {}
    exec(compile(block, str(DOCS), "exec"), namespace)  # the docs' own example
    follow: Callable[..., None] = namespace["follow_game"]
    return follow


def test_the_docs_game_follower_loses_nothing_across_many_stream_lifetimes(
    live_server_for: Callable[[Litestar], str],
) -> None:
    app = create_app(Settings(stream_lifetime=0.08))
    base = live_server_for(app)
    requests = Kept()
    logging.getLogger("service.access").addHandler(requests)
    try:
        with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as client:
            created = create(client, None, [{"name": "Ann"}, {"name": "Bob"}])
            tokens = [seat["token"] for seat in created["seats"]]
            game_id = created["game_id"]
            seen: list[tuple[str, dict[str, Any]]] = []
            follower_http = httpx.Client(base_url=base, headers=bearer(tokens[0]), timeout=60)
            follower = threading.Thread(
                target=docs_follower(),
                args=(follower_http, game_id, lambda event, data: seen.append((event, data))),
                daemon=True,
            )
            follower.start()
            eventually(lambda: seen, "the follower's first snapshot", until=bool)
            finished = play_to_end(client, game_id, tokens)
            follower.join(timeout=WAIT_SECONDS)
            assert not follower.is_alive(), "the follower stops at the game's end"
            follower_http.close()
    finally:
        logging.getLogger("service.access").removeHandler(requests)
    kinds = [event for event, _ in seen]
    assert kinds[0] == "snapshot"
    assert kinds[-1] == "finished"
    versions = [data["version"] for event, data in seen if event == "action"]
    assert versions == list(range(1, finished["version"] + 1)), "every version once, in order"
    assert all(data["view"]["seat"] == 0 for event, data in seen if event == "action")
    streams = [r for r in requests.lines() if r["route"] == "/v1/games/{game_id}/events"]
    assert len(streams) >= 10, "the follower's streams ended and were resumed ten times or more"

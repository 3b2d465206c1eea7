"""Over a whole game, nothing secret leaks: no response to a seat or to the public holds another
seat's hand before the round is over, a card another seat drew from the stock, the stock's order,
the seed, the shuffled packs, or any token (after the one creation response that shows them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.http_player import HttpGame
from tests.service.streams.test_events import parse_events

Client = TestClient[Litestar]
Viewer = int | None

# Keys that would carry secrets if any response ever had them.
_SECRET_KEYS = {"seed", "stock", "hands", "shuffles", "packs", "pending", "deck", "token_hashes"}


def keys_and_hands(value: Any, path: str = "$") -> tuple[set[str], list[tuple[str, Any]]]:
    """Every key in a JSON document, and every value under a key named ``hand``."""
    keys: set[str] = set()
    hands: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            if key == "hand":
                hands.append((f"{path}.{key}", item))
            more_keys, more_hands = keys_and_hands(item, f"{path}.{key}")
            keys |= more_keys
            hands += more_hands
    elif isinstance(value, list):
        for index, item in enumerate(value):
            more_keys, more_hands = keys_and_hands(item, f"{path}[{index}]")
            keys |= more_keys
            hands += more_hands
    return keys, hands


class Auditor:
    """Plays a game and checks every response it gets, for the seat (or public) that got it."""

    def __init__(self, game: HttpGame, seed: int) -> None:
        self.game = game
        self.seed = seed
        self.players = len(game.tokens)
        self.viewers: list[Viewer] = [None, *range(self.players)]
        self.hands: dict[int, dict[int, list[str]]] = {}
        """version → seat → that seat's hand, as its own view showed it."""
        self.round_start = 0
        """The version after which the current round's actions begin."""
        self.checked = 0

    def record_hands(self) -> dict[str, Any]:
        views = {seat: self.game.view(seat) for seat in range(self.players)}
        version = views[0]["version"]
        self.hands[version] = {seat: view["hand"] for seat, view in views.items()}
        return views[0]

    def check_text(self, text: str, viewer: Viewer, version: int) -> None:
        for token in self.game.tokens:
            assert token not in text, "a seat token leaked"
        document = json.loads(text)
        keys, hands = keys_and_hands(document)
        assert not keys & _SECRET_KEYS, keys & _SECRET_KEYS
        assert "token" not in keys
        for path, hand in hands:
            if viewer is None:
                assert hand is None, f"the public saw a hand at {path}"
            else:
                assert hand == self.hands[version][viewer], (
                    f"seat {viewer} saw a foreign hand at {path}"
                )
        self.checked += 1

    def check_log(self, viewer: Viewer) -> None:
        log = self.game.get("/log", viewer)
        self.check_text(json.dumps(log), viewer, log["version"])
        for entry in log["entries"]:
            action = entry["action"]
            if action["type"] != "draw" or action["source"] != "stock":
                assert entry["card"] is not None
            elif entry["version"] > self.round_start and entry["seat"] != viewer:
                assert entry["card"] is None, f"{viewer} saw another seat's stock draw"
            else:
                assert entry["card"] is not None

    def check_everything_now(self) -> None:
        version = self.game.view()["version"]
        for viewer in self.viewers:
            self.check_text(json.dumps(self.game.view(viewer)), viewer, version)
            self.check_log(viewer)

    def play(self) -> dict[str, Any]:
        view = self.record_hands()
        self.check_everything_now()
        while view["status"] == "playing":
            seat = view["turn"]
            drawn = self.game.act(seat, {"type": "draw", "source": "stock"})
            self.record_hands()
            self.check_text(json.dumps(drawn), seat, drawn["version"])
            discarded = self.game.act(seat, self.game.best_discard(drawn))
            view = self.record_hands()
            self.check_text(json.dumps(discarded), seat, discarded["version"])
            if discarded["round"] != drawn["round"] or discarded["status"] == "finished":
                self.round_start = discarded["version"]
            if discarded["version"] % 32 == 0 or self.round_start == discarded["version"]:
                self.check_everything_now()
        return view


@pytest.fixture
def unlimited() -> Iterator[Client]:
    """The audit reads every seat's view after every action, some 2,000 reads a minute from
    one address: past the rate limit a person never meets."""
    with TestClient(create_app(Settings(rate_limit_per_minute=0))) as client:
        yield client


def test_no_response_over_a_whole_game_leaks_a_secret(unlimited: Client) -> None:
    client = unlimited
    seed = 424242
    game = HttpGame.create(client, 3, "classic", seed=seed)
    auditor = Auditor(game, seed)
    final = auditor.play()
    assert final["status"] == "finished"
    # The creation response is the only one with tokens; every other one was checked.
    assert all(s["token"] for s in game.created["seats"])
    # Each action's answer (one per version), and every view and log at each round's end.
    assert auditor.checked > final["version"] + 8 * final["round"]
    for exchange in game.exchanges:
        assert exchange.status == 200
    # The event streams, replayed from the start, show each viewer its own hand at each version.
    for viewer in auditor.viewers:
        response = client.get(
            f"/v1/games/{game.game_id}/events", headers={**game.auth(viewer), "Last-Event-ID": "0"}
        )
        *events, finished = parse_events(response.text)
        assert finished["event"] == "finished"
        assert len(events) == final["version"]
        for event in events:
            auditor.check_text(json.dumps(event["data"]), viewer, event["id"])


def test_the_public_log_hides_the_current_rounds_stock_draws(client: Client) -> None:
    game = HttpGame.create(client, 2, "online", seed=77)
    turn = game.view()["turn"]
    game.act(turn, {"type": "draw", "source": "stock"})
    public = game.get("/log", None)["entries"]
    own = game.get("/log", turn)["entries"]
    other = game.get("/log", 1 - turn)["entries"]
    assert public[0]["card"] is None
    assert other[0]["card"] is None
    assert own[0]["card"] is not None

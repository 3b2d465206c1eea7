"""A game's views, each built once per stored version and shared by every viewer of it
(``DecodedGames.view``): never stale after a commit, whether the commit changed the game or
only its record, never another seat's, and never another game's under a reused id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar.testing import TestClient

from engine.game import new_game
from service.app import create_app
from service.games.decoded_cache import DecodedGames
from service.games.lifecycle import view_of
from service.games.records import GameRecord
from service.games.wire import GameView
from service.settings import Settings

Json = dict[str, Any]


def test_a_view_is_built_once_per_stored_version_state_and_seat() -> None:
    views = DecodedGames()
    state = new_game(["Ann", "Bob"], "classic", seed=1)
    record = GameRecord(state=b"", token_hashes=(), created=0.0)
    built: list[int | None] = []

    def builder(seat: int | None) -> Callable[[], GameView]:
        def build() -> GameView:
            built.append(seat)
            return view_of("g", state, seat, record)

        return build

    public = views.view("g", 3, state, None, builder(None))
    assert views.view("g", 3, state, None, builder(None)) is public
    ann = views.view("g", 3, state, 0, builder(0))
    assert ann.hand is not None
    assert views.view("g", 3, state, 0, builder(0)) is ann
    assert views.view("g", 3, state, 1, builder(1)).hand != ann.hand
    assert built == [None, 0, 1]
    # A commit moves the stored version on, whatever it changed.
    assert views.view("g", 4, state, None, builder(None)) is not public
    # The same id and version over another decoded state: a game made anew under an old id.
    again = new_game(["Ann", "Bob"], "classic", seed=1)
    views.view("g", 4, again, None, builder(None))
    assert built == [None, 0, 1, None, None]


def public(client: TestClient[Any], game_id: str) -> Json:
    response = client.get(f"/v1/games/{game_id}")
    assert response.status_code == 200, response.text
    view: Json = response.json()
    return view


def seen(client: TestClient[Any], game_id: str, token: str) -> Json:
    response = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    view: Json = response.json()
    return view


def test_the_views_follow_every_commit_over_http() -> None:
    with TestClient(create_app(Settings())) as client:
        created = client.post(
            "/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]}
        ).json()
        game_id, turn = created["game_id"], created["view"]["turn"]
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        assert public(client, game_id) == public(client, game_id)
        assert public(client, game_id)["version"] == 0
        hands = {seat: seen(client, game_id, token)["hand"] for seat, token in tokens.items()}
        assert len({tuple(hand) for hand in hands.values()}) == 3  # each seat its own
        assert seen(client, game_id, tokens[turn])["phase"] == "draw"
        drawn = client.post(
            f"/v1/games/{game_id}/actions",
            json={"type": "draw", "source": "stock"},
            headers={"Authorization": f"Bearer {tokens[turn]}"},
        )
        assert drawn.status_code == 200, drawn.text
        assert public(client, game_id)["version"] == 1
        mine = seen(client, game_id, tokens[turn])
        assert (mine["phase"], len(mine["hand"])) == ("discard", 4)
        assert seen(client, game_id, tokens[(turn + 1) % 3])["hand"] == hands[(turn + 1) % 3]
        # A seat left to a bot changes the record, not the game: the public view says so.
        leaver = next(seat for seat in tokens if seat != turn)
        left = client.post(
            f"/v1/games/{game_id}/leave", headers={"Authorization": f"Bearer {tokens[leaver]}"}
        )
        assert left.status_code == 200, left.text
        shown = public(client, game_id)["players"][leaver]
        assert shown["bot"] is not None
        assert shown["bot"] == left.json()["players"][leaver]["bot"]

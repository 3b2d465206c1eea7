"""The public view, built once per stored version and shared by every viewer without a seat
(``DecodedGames.public_view``): never stale after a commit, whether the commit changed the game
or only its record, and never another game's under a reused id."""

from __future__ import annotations

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


def test_a_public_view_is_built_once_per_stored_version_and_state() -> None:
    views = DecodedGames()
    state = new_game(["Ann", "Bob"], "classic", seed=1)
    record = GameRecord(state=b"", token_hashes=(), created=0.0)
    built: list[GameView] = []

    def build() -> GameView:
        built.append(view_of("g", state, None, record))
        return built[-1]

    first = views.public_view("g", 3, state, build)
    assert views.public_view("g", 3, state, build) is first
    assert len(built) == 1
    # A commit moves the stored version on, whatever it changed.
    assert views.public_view("g", 4, state, build) is not first
    # The same id and version over another decoded state: a game made anew under an old id.
    again = new_game(["Ann", "Bob"], "classic", seed=1)
    views.public_view("g", 4, again, build)
    assert len(built) == 3


def public(client: TestClient[Any], game_id: str) -> Json:
    response = client.get(f"/v1/games/{game_id}")
    assert response.status_code == 200, response.text
    view: Json = response.json()
    return view


def test_the_public_view_follows_every_commit_over_http() -> None:
    with TestClient(create_app(Settings())) as client:
        created = client.post(
            "/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]}
        ).json()
        game_id, turn = created["game_id"], created["view"]["turn"]
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        assert public(client, game_id) == public(client, game_id)
        assert public(client, game_id)["version"] == 0
        drawn = client.post(
            f"/v1/games/{game_id}/actions",
            json={"type": "draw", "source": "stock"},
            headers={"Authorization": f"Bearer {tokens[turn]}"},
        )
        assert drawn.status_code == 200, drawn.text
        assert public(client, game_id)["version"] == 1
        # A seat left to a bot changes the record, not the game: the public view says so.
        leaver = next(seat for seat in tokens if seat != turn)
        left = client.post(
            f"/v1/games/{game_id}/leave", headers={"Authorization": f"Bearer {tokens[leaver]}"}
        )
        assert left.status_code == 200, left.text
        seen = public(client, game_id)["players"][leaver]
        assert seen["bot"] is not None
        assert seen["bot"] == left.json()["players"][leaver]["bot"]

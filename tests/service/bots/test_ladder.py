"""The bot ladder (``service.bots.ladder``): with ``LADDER_GAMES`` on, the built-in levels play
rated games among themselves, never more at once than the setting, and their ratings move as a
person's would; bad settings are refused when the app is made."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.bots.ladder import LadderPlugin
from service.settings import Settings, SettingsError
from tests.waiting import eventually

pytestmark = pytest.mark.xdist_group("test_ladder")

LADDER = Settings(
    ladder_games=2, ladder_levels=("easy", "normal"), sweep_seconds=0.2, bot_lease_seconds=2.0
)


def classic_games(client: TestClient[Litestar], player_id: str) -> int:
    response = client.get(f"/v1/players/{player_id}")
    assert response.status_code == 200, response.text
    rating: dict[str, Any] | None = response.json()["ratings"].get("classic")
    return 0 if rating is None else int(rating["games"])


def test_the_ladder_plays_rated_games_of_its_levels_two_at_a_time() -> None:
    app = create_app(LADDER)
    ladder = app.plugins.get(LadderPlugin).ladder
    assert ladder is not None
    seen_at_once: list[int] = []
    with TestClient(app) as client:

        def played() -> bool:
            seen_at_once.append(len(ladder.playing))
            return min(classic_games(client, p) for p in ("bot-easy", "bot-normal")) >= 3

        eventually(played, "three ladder games rated", seconds=120)
        # Each game rated both levels, no other level played, and the ladder never held more
        # than two games, so a third was dealt once one had ended.
        assert classic_games(client, "bot-hard") == 0
        assert max(seen_at_once) <= 2
        board = client.get("/v1/leaderboards/classic", params={"provisional": True}).json()
        assert {p["player_id"] for p in board["players"]} == {"bot-easy", "bot-normal"}
        assert all(p["bot"] for p in board["players"])
        history = client.get("/v1/players/bot-easy/ratings/classic").json()["points"]
        assert [p["games"] for p in history] == list(range(len(history), 0, -1))


def test_the_ladder_is_off_unless_asked_and_refuses_levels_it_cannot_pair() -> None:
    assert create_app(Settings()).plugins.get(LadderPlugin).ladder is None
    for levels in (("easy",), ("easy", "easy"), ("easy", "wizard")):
        with pytest.raises(SettingsError, match="LADDER_LEVELS"):
            create_app(Settings(ladder_games=1, ladder_levels=levels))
    with pytest.raises(SettingsError, match="LADDER_GAMES"):
        Settings.from_env({"LADDER_GAMES": "65"})
    parsed = Settings.from_env({"LADDER_GAMES": "3", "LADDER_LEVELS": "hard, expert"})
    assert (parsed.ladder_games, parsed.ladder_levels) == (3, ("hard", "expert"))

"""A client may hold ``BOT_GAMES_PER_CLIENT`` games of bots only in play at once
(``service.bots.holdings``): the next is refused with 429 ``bot-games-quota`` naming the bound,
games with a person and tables are not counted, and a place comes back once a game is over."""

from __future__ import annotations

import asyncio

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.bots import holdings as game_holdings
from service.http.problems import BotGamesQuotaReached
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem

BOTS = {"players": [{"bot": "easy"}, {"bot": "easy"}]}
PERSON_AND_BOT = {"players": [{"name": "ann"}, {"bot": "easy"}]}


def test_a_client_past_its_bound_of_bot_only_games_is_refused() -> None:
    # Without the app's lifespan no bot moves: the games stay in play.
    client = TestClient(create_app(Settings(bot_games_per_client=2)))
    assert [client.post("/v1/games", json=BOTS).status_code for _ in range(2)] == [201, 201]
    refused = client.post("/v1/games", json=BOTS)
    problem = assert_problem(refused, 429, "bot-games-quota", "players")
    assert "BOT_GAMES_PER_CLIENT=2" in problem["detail"]
    assert refused.headers["retry-after"] == "60"
    # A game a person plays in, and a table with bots, are another matter.
    assert client.post("/v1/games", json=PERSON_AND_BOT).status_code == 201
    table = {"players": [{"open": True}, {"bot": "easy"}]}
    assert client.post("/v1/games", json=table).status_code == 201


def test_a_client_past_its_bound_of_games_with_a_clock_is_refused() -> None:
    """Finding 9 of issue 44: a thousand two-person games with a 3 s clock from one address
    made every other game's clock late (their people's seats kept them out of the bot-games
    quota). Turn clocks, speed games' calls and tables that will have either all count; a game
    with no clock does not."""
    client = TestClient(create_app(Settings(clock_games_per_client=2)))
    people = [{"name": "ann"}, {"name": "bob"}]
    clocked = {"players": people, "turn_seconds": 30}
    table = {"players": [{"name": "ann"}, {"open": True}], "turn_seconds": 30}
    speed = {"players": people, "rules": {"preset": "classic", "turns": "speed"}}
    assert [client.post("/v1/games", json=body).status_code for body in (clocked, table)] == [
        201,
        201,
    ]
    problem = assert_problem(
        client.post("/v1/games", json=speed), 429, "clock-games-quota", "turn_seconds"
    )
    assert "CLOCK_GAMES_PER_CLIENT=2" in problem["detail"]
    assert client.post("/v1/games", json={"players": people}).status_code == 201
    assert Settings().clock_games_per_client > 0


def test_0_turns_the_bound_off_and_it_is_on_out_of_the_box() -> None:
    assert Settings().bot_games_per_client > 0
    client = TestClient(create_app(Settings(bot_games_per_client=0)))
    assert {client.post("/v1/games", json=BOTS).status_code for _ in range(25)} == {201}


def test_a_finished_game_gives_its_place_back_and_concurrent_creates_cannot_pass() -> None:
    playing = {"g1": True, "g2": True}

    async def still_playing(game_id: str) -> bool:
        await asyncio.sleep(0)
        return playing.get(game_id, False)

    async def scenario() -> None:
        holdings = game_holdings.bot_games(2)
        for game_id in ("g1", "g2"):
            async with holdings.place("a", still_playing) as made:
                made.append(game_id)
        with pytest.raises(BotGamesQuotaReached):
            async with holdings.place("a", still_playing):
                pass
        async with holdings.place("b", still_playing) as made:  # another client
            made.append("b1")
        playing["g1"] = False
        entered = asyncio.Event()
        release = asyncio.Event()

        async def create(game_id: str) -> None:
            async with holdings.place("a", still_playing) as made:
                entered.set()
                await release.wait()
                made.append(game_id)

        first = asyncio.ensure_future(create("g3"))
        await entered.wait()  # g1's place is g3's now, its game being made...
        with pytest.raises(BotGamesQuotaReached):  # ... so a concurrent create is refused
            async with holdings.place("a", still_playing):
                pass
        playing["g3"] = True
        release.set()
        await first
        assert holdings.held("a") == 2
        with pytest.raises(BotGamesQuotaReached):
            async with holdings.place("a", still_playing):
                pass
        playing["g2"] = False  # a failed create gives its place back
        with pytest.raises(RuntimeError):
            async with holdings.place("a", still_playing):
                raise RuntimeError("the store failed")
        assert holdings.held("a") == 1  # g3, still playing for all it knows

    asyncio.run(scenario())

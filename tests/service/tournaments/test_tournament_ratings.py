"""A tournament's games are rated, every seat being a player (people and the built-in levels):
after a rated tournament each entrant's rating counts its games; an unrated one (`rated: false`)
changes no rating and its games are created unrated."""

from __future__ import annotations

import pytest

from service.games import lifecycle as game_flow
from tests.service.players.test_players import Json, new_player
from tests.service.ratings.test_ratings_api import play_seat_to_end, ratings
from tests.service.tournaments.test_tournaments_api import (
    Client,
    client,  # noqa: F401  # the fixture
    finished,
    shown,
    tournament,
)
from tests.waiting import eventually


def rated_games(api: Client, player_id: str) -> int:
    """The player's rated games under the classic rules."""
    return int(ratings(api, player_id).get("classic", {}).get("games", 0))


@pytest.mark.parametrize("rated", [True, False])
def test_a_rated_tournament_counts_each_entrant_s_games_in_its_rating_and_an_unrated_none(
    client: Client,  # noqa: F811  # the fixture
    rated: bool,
) -> None:
    ann = new_player(client, "Ann")
    entrants = [ann["player_id"], "bot-easy"]
    before = {p: rated_games(client, p) for p in entrants}
    made = tournament(
        client, ann["key"], format="round_robin", table_size=2, entrants=entrants, rated=rated
    )
    assert made["rated"] is rated
    [game_id] = eventually(
        lambda: shown(client, made["tournament_id"]), "round 1", until=lambda t: t["rounds"]
    )["rounds"][0]["games"]
    play_seat_to_end(client, game_id, ann["key"])
    result = finished(client, made["tournament_id"])
    played: Json = {s["player_id"]: s["games"] for s in result["standings"]}
    assert played == dict.fromkeys(entrants, 1)
    services = client.app.state["services"]
    with client.portal() as portal:
        record = portal.call(game_flow.load_game, services, game_id).record
    if rated:
        assert record.rated == tuple(entrants)
        for player_id in entrants:
            eventually(
                lambda p=player_id: rated_games(client, p),  # type: ignore[misc]
                f"{player_id}'s rating counting the game",
                until=lambda games, p=player_id: games == before[p] + played[p],  # type: ignore[misc]
            )
        return
    assert record.rated == ()
    with client.portal() as portal:
        assert portal.call(services.ratings.journal, "classic") == []
    assert {p: rated_games(client, p) for p in entrants} == before

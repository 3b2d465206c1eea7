"""Inputs a hostile client sends: each answered by a 4xx naming its field (or, for a stream's
opaque ``Last-Event-ID``, by a fresh start), never a 500 and never accepted as something else."""

from __future__ import annotations

import unicodedata

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine.names import MAX_COMBINING_MARKS
from tests.service.games.test_games_api import assert_problem
from tests.service.http_player import HttpGame
from tests.service.streams.test_events import parse_events

Client = TestClient[Litestar]


@pytest.mark.parametrize(
    "last_event_id",
    [b"\xb2", "\u0663".encode(), b"1" * 4301, b"00000000001", b"-1", b"+1", b"1_0"],
    ids=["superscript-two", "arabic-digit", "4301-digits", "11-digits", "negative", "plus", "_"],
)
def test_a_last_event_id_that_is_no_ascii_version_starts_afresh(
    client: Client, last_event_id: bytes
) -> None:
    game = HttpGame.create(client, 2, "classic")
    game.play_turn()
    response = client.get(
        f"/v1/games/{game.game_id}/events",
        params={"idle_timeout": 0},
        headers=[(b"Last-Event-ID", last_event_id)],
    )
    assert response.status_code == 200, response.text
    assert [e["event"] for e in parse_events(response.text)] == ["snapshot"]


def test_a_ten_digit_last_event_id_still_resumes(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic")
    game.play_turn()
    response = client.get(
        f"/v1/games/{game.game_id}/events",
        params={"idle_timeout": 0},
        headers={"Last-Event-ID": "0000000001"},
    )
    assert [e["id"] for e in parse_events(response.text)] == [2]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"hand": ["4H\n", "5H"], "wild": "8"}, "hand[0]"),
        ({"hand": ["4H", "5H"], "wild": "8\n"}, "wild"),
        ({"hand": ["10H\n"], "wild": "8"}, "hand[0]"),
    ],
)
def test_a_code_with_a_trailing_newline_is_refused(
    client: Client, body: dict[str, object], field: str
) -> None:
    assert_problem(client.post("/v1/analyse", json=body), 422, "invalid-field", field)


def test_a_discard_with_a_trailing_newline_is_refused(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic")
    turn = game.view()["turn"]
    drawn = game.act(turn, {"type": "draw", "source": "stock"})
    response = client.post(
        f"/v1/games/{game.game_id}/actions",
        json={"type": "discard", "card": drawn["hand"][0] + "\n"},
        headers=game.auth(turn),
    )
    assert_problem(response, 422, "invalid-field", "card")
    assert game.view()["version"] == drawn["version"]


@pytest.mark.parametrize(
    "name",
    [
        "a\x00b",
        "line\nbreak",
        "tab\there",
        "zero\u200bwidth",
        "joiner\u200d",
        "\u202eevil",
        "isolate\u2066x",
        "bom\ufeff",
        "line\u2028sep",
        "tag\U000e0041",
        "Z" + "\u0301" * 39,
        "\u200b",
        # Issue 32: what renders as nothing, or as the letter before it alone.
        "\u3164",
        "\u115f",
        "\u2800",
        "\ue000",
        "\uffff",
        "A\u034f",
        "soft\u00adhyphen",
        "\U000f0000",
    ],
)
def test_a_name_with_invisible_or_stacked_characters_is_refused(client: Client, name: str) -> None:
    body = {"players": [{"name": "fine"}, {"name": name}]}
    assert_problem(client.post("/v1/games", json=body), 422, "invalid-field", "players[1].name")


def test_names_are_kept_in_nfc_and_real_scripts_pass(client: Client) -> None:
    """A decomposed "é" is the same name as the composed one; Vietnamese stacks two marks."""
    stacked = "a" + "\u0301\u0323\u0302"[:MAX_COMBINING_MARKS]
    names = ["Jose\u0301", "Nguy\u1ec5n", stacked, " ζωή ", "\u2764\ufe0f", "\ud55c\uae00"]
    response = client.post("/v1/games", json={"players": [{"name": n} for n in names]})
    assert response.status_code == 201, response.text
    shown = [p["name"] for p in response.json()["view"]["players"]]
    assert shown == [
        "Jos\u00e9",
        "Nguy\u1ec5n",
        unicodedata.normalize("NFC", stacked),
        "ζωή",
        "\u2764\ufe0f",  # an emoji's colour form: its variation selector passes
        "\ud55c\uae00",  # Hangul syllables, unlike the Hangul fillers
    ]


def test_every_refused_action_names_its_field(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic")
    turn = game.view()["turn"]
    url = f"/v1/games/{game.game_id}/actions"
    auth = game.auth(turn)
    pile = {"type": "draw", "source": "discard", "pile": 1}
    assert_problem(client.post(url, json=pile, headers=auth), 422, "option-not-enabled", "pile")
    lay_off = {"type": "lay_off", "card": "4H", "seat": 1, "meld": 0}
    assert_problem(client.post(url, json=lay_off, headers=auth), 422, "option-not-enabled", "type")
    stock_pile = {"type": "draw", "source": "stock", "pile": 0}
    assert_problem(client.post(url, json=stock_pile, headers=auth), 422, "illegal-action", "pile")


def test_discarding_the_upcard_again_names_the_card(client: Client) -> None:
    game = HttpGame.create(client, 2, {"preset": "classic", "discard_drawn_upcard": False})
    turn = game.view()["turn"]
    drawn = game.act(turn, {"type": "draw", "source": "discard"})
    again = {"type": "discard", "card": drawn["upcard"]}
    response = client.post(f"/v1/games/{game.game_id}/actions", json=again, headers=game.auth(turn))
    assert_problem(response, 422, "illegal-action", "card")


def test_the_idempotency_key_is_named_one_way(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic")
    turn = game.view()["turn"]
    url = f"/v1/games/{game.game_id}/actions"
    draw = {"type": "draw", "source": "stock"}
    too_long = {**game.auth(turn), "Idempotency-Key": "k" * 129}
    assert_problem(
        client.post(url, json=draw, headers=too_long), 422, "invalid-field", "Idempotency-Key"
    )
    keyed = {**game.auth(turn), "Idempotency-Key": "first"}
    assert client.post(url, json=draw, headers=keyed).status_code == 200
    other = {"type": "draw", "source": "discard"}
    assert_problem(
        client.post(url, json=other, headers=keyed),
        422,
        "idempotency-key-reused",
        "Idempotency-Key",
    )


def test_every_view_of_a_seeded_game_says_so(client: Client) -> None:
    seeded = HttpGame.create(client, 2, "classic", seed=31337)
    turn = seeded.view()["turn"]
    views = [seeded.created["view"], seeded.view(), seeded.view(0), seeded.view(1)]
    views.append(seeded.act(turn, {"type": "draw", "source": "stock"}))
    events = client.get(
        f"/v1/games/{seeded.game_id}/events",
        params={"idle_timeout": 0},
        headers={"Last-Event-ID": "0"},
    )
    views += [e["data"]["view"] for e in parse_events(events.text)]
    assert len(views) == 6
    assert all(v["seeded"] is True for v in views)
    unseeded = HttpGame.create(client, 2, "classic")
    assert unseeded.created["view"]["seeded"] is False
    assert unseeded.view(0)["seeded"] is False

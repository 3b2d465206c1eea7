"""Tables over HTTP (one in-memory app): open seats claimed by invite code, the deal on the last
claim, the lobby, views that say who you are, which rules and what you may do, the stream URL,
leaving before the deal, the rematch, and every bad request answered without changing a thing."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.tables import invite_codes
from tests.service.games.test_games_api import assert_problem
from tests.service.http_player import HttpGame
from tests.service.manual_clock import ManualClock
from tests.waiting import WAIT_SECONDS, eventually

Client = TestClient[Litestar]
Json = dict[str, Any]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_table(client: Client, players: list[Json], **extra: Any) -> Json:
    response = client.post("/v1/games", json={"players": players, **extra})
    assert response.status_code == 201, response.text
    created: Json = response.json()
    assert response.headers["location"] == f"/v1/games/{created['game_id']}"
    return created


def claim(client: Client, code: str, name: str) -> Any:
    return client.post(f"/v1/invites/{code}", json={"name": name})


def view(client: Client, game_id: str, token: str | None = None) -> Json:
    response = client.get(f"/v1/games/{game_id}", headers={} if token is None else bearer(token))
    assert response.status_code == 200, response.text
    result: Json = response.json()
    return result


def test_a_table_waits_undealt_until_its_last_open_seat_is_claimed(client: Client) -> None:
    created = create_table(client, [{"name": "Ann"}, {"open": True}, {"open": True}], seed=3)
    game_id, code = created["game_id"], created["invite_code"]
    assert invite_codes.normalised(code) == code
    assert [(s["seat"], s["name"]) for s in created["seats"]] == [(0, "Ann")]
    public = created["view"]
    assert public["status"] == "waiting"
    assert public["invite_code"] == code
    assert public["stock_count"] == 0
    assert [(p["name"], p["open"], p["hand_count"]) for p in public["players"]] == [
        ("Ann", False, 0),
        (None, True, 0),
        (None, True, 0),
    ]
    ann = created["seats"][0]["token"]
    own = view(client, game_id, ann)
    assert (own["seat"], own["hand"], own["legal"]) == (0, [], [])

    # Case, spaces and hyphens do not matter in a code.
    spoken = f"{code[:3].lower()}-{code[3:].lower()}"
    bob = claim(client, spoken, "Bob")
    assert bob.status_code == 201, bob.text
    assert bob.headers["location"] == f"/v1/games/{game_id}"
    bob_seat = bob.json()
    assert (bob_seat["game_id"], bob_seat["seat"]) == (game_id, 1)
    assert bob_seat["view"]["status"] == "waiting"
    assert bob_seat["view"]["seat"] == 1

    cy = claim(client, code, "Cy").json()
    assert cy["seat"] == 2
    dealt = cy["view"]
    assert dealt["status"] == "playing"
    assert dealt["invite_code"] is None
    assert len(dealt["hand"]) == 3
    assert [p["name"] for p in dealt["players"]] == ["Ann", "Bob", "Cy"]
    # Every seat's token now works; each sees its own hand only.
    tokens = [ann, bob_seat["token"], cy["token"]]
    hands = [view(client, game_id, t)["hand"] for t in tokens]
    assert all(len(h) == 3 for h in hands)
    assert view(client, game_id)["hand"] is None

    # The code is gone from the game; a late claim hears the table is full.
    assert_problem(claim(client, code, "Dee"), 409, "table-full")


def test_bad_claims_answer_a_problem_and_change_nothing(client: Client) -> None:
    created = create_table(client, [{"name": "Ann"}, {"open": True}])
    game_id, code = created["game_id"], created["invite_code"]
    before = view(client, game_id)
    unknown = next(c for c in ("FFFFFF", "HHHHHH") if c != code)
    assert_problem(claim(client, unknown, "Bob"), 404, "invite-not-found")
    for malformed in ("abc", "0OOOOO", "FFFFFFF", "ÉÉÉÉÉÉ"):
        assert_problem(claim(client, malformed, "Bob"), 404, "invite-not-found")
    assert_problem(claim(client, code, ""), 422, "invalid-field", "name")
    assert_problem(claim(client, code, "   "), 422, "invalid-field", "name")
    assert_problem(claim(client, code, "x" * 41), 422, "invalid-field", "name")
    assert view(client, game_id) == before
    # A waiting table takes no action.
    ann = created["seats"][0]["token"]
    response = client.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers=bearer(ann),
    )
    assert_problem(response, 409, "table-waiting")
    # A token of none of its seats is refused for the token first, as in a game in play.
    for path in ("actions", "hint"):
        stranger = client.request(
            "POST" if path == "actions" else "GET",
            f"/v1/games/{game_id}/{path}",
            json={"type": "draw", "source": "stock"} if path == "actions" else None,
            headers=bearer("not-a-seat-token"),
        )
        assert_problem(stranger, 401, "unknown-token")
    log = client.get(f"/v1/games/{game_id}/log").json()
    assert (log["version"], log["entries"]) == (0, [])


BAD_SEATS: list[tuple[list[Json], Json, int, str, str | None]] = [
    # classic takes 2 to 8 players: open seats count.
    ([{"name": "A"}] + [{"open": True}] * 8, {}, 422, "bad-rules", "players"),
    ([{"name": "A"}, {"bot": "grandmaster"}], {}, 422, "unknown-bot-level", "players[1].bot"),
    ([{"name": "A"}, {"bot": "easy", "open": True}], {}, 422, "invalid-seat", "players[1]"),
    ([{"name": "A"}, {"name": "B"}], {"turn_seconds": 2}, 422, "invalid-field", "turn_seconds"),
    ([{"name": "A"}, {"name": "B"}], {"turn_seconds": 86401}, 422, "invalid-field", "turn_seconds"),
    ([{"name": "A"}, {"name": "B", "open": True}], {}, 422, "invalid-seat", "players[1]"),
    ([{"name": "A"}, {}], {}, 422, "invalid-seat", "players[1]"),
    ([{"name": "A"}, {"open": False}], {}, 422, "invalid-field", None),
    ([{"name": "A"}, {"name": "B"}], {"listed": True}, 422, "invalid-seat", "listed"),
]
"""(players, other fields, status, problem kind, field) of creations that must be refused."""


@pytest.mark.parametrize("case", BAD_SEATS)
def test_bad_seat_specs_are_refused(
    client: Client, case: tuple[list[Json], Json, int, str, str | None]
) -> None:
    players, extra, status, kind, field = case
    response = client.post("/v1/games", json={"players": players, **extra})
    assert_problem(response, status, kind, field)
    assert client.get("/v1/tables").json() == {"tables": []}


def test_the_lobby_lists_listed_waiting_tables_only(client: Client) -> None:
    listed = create_table(client, [{"name": "Ann"}, {"open": True}, {"open": True}], listed=True)
    create_table(client, [{"name": "Bob"}, {"open": True}])  # not listed
    tables = client.get("/v1/tables").json()["tables"]
    assert tables == [
        {
            "game_id": listed["game_id"],
            "invite_code": listed["invite_code"],
            "preset": "classic",
            "seats": [
                {"seat": 0, "name": "Ann", "open": False, "bot": None},
                {"seat": 1, "name": None, "open": True, "bot": None},
                {"seat": 2, "name": None, "open": True, "bot": None},
            ],
            "seats_taken": 1,
            "seats_open": 2,
            "turns": "in_turn",
        }
    ]
    claim(client, listed["invite_code"], "Cy")
    (entry,) = client.get("/v1/tables").json()["tables"]
    assert (entry["seats_taken"], entry["seats_open"]) == (2, 1)
    claim(client, listed["invite_code"], "Dee")
    assert client.get("/v1/tables").json() == {"tables": []}


def test_waiting_tables_expire_and_leave_nothing_in_the_lobby() -> None:
    clock = ManualClock()
    with TestClient(create_app(Settings(game_ttl=300), clock=clock)) as client:
        created = create_table(client, [{"name": "Ann"}, {"open": True}], listed=True)
        clock.advance(299)
        assert len(client.get("/v1/tables").json()["tables"]) == 1
        clock.advance(2)
        assert client.get("/v1/tables").json() == {"tables": []}
        assert_problem(claim(client, created["invite_code"], "Bob"), 404, "invite-not-found")
        response = client.get(f"/v1/games/{created['game_id']}")
        assert_problem(response, 404, "game-not-found")


def test_a_view_carries_the_games_complete_rules_as_get_rules_shows_them(client: Client) -> None:
    presets = {p["preset"]: p for p in client.get("/v1/rules").json()["presets"]}
    game = HttpGame.create(client, 2, "online", seed=4)
    assert game.view()["rules"] == presets["online"]
    table = create_table(client, [{"name": "A"}, {"open": True}], rules="five-crowns")
    assert table["view"]["rules"] == presets["five-crowns"]
    overridden = HttpGame.create(client, 2, {"preset": "online", "redemption": True}, seed=4)
    assert overridden.view(0)["rules"] == {**presets["online"], "redemption": True}


def _candidate_actions(own: Json) -> list[Json]:
    """Every body a seat might try: each draw, each discard with and without go_out, and each
    lay-off on each meld of the table."""
    if own["phase"] == "draw":
        return [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    cards = sorted(set(own["hand"]))
    bodies: list[Json] = [{"type": "discard", "card": c} for c in cards]
    bodies += [{"type": "discard", "card": c, "go_out": True} for c in cards]
    for seat, melds in enumerate(own["table"] or []):
        for meld in range(len(melds)):
            bodies += [{"type": "lay_off", "card": c, "seat": seat, "meld": meld} for c in cards]
    return bodies


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "classic", "first_lap_go_out": False, "redemption": True},
        {"preset": "online", "failed_go_out": "penalty"},
    ],
    ids=["first-lap-and-redemption", "failed-go-out-penalty"],
)
def test_legal_lists_exactly_the_actions_the_game_accepts(client: Client, rules: Json) -> None:
    """At each turn of a game's first rounds, every candidate body is posted against the game
    as it stands (with ``expected_version``, so a refused one changes nothing): those accepted
    are exactly those ``legal`` lists. Then a legal one is played: a go-out when there is one."""
    game = HttpGame.create(client, 3, rules, seed=11)
    accepted_go_outs = 0
    for _ in range(60):
        public = game.view()
        if public["status"] != "playing" or public["round"] > 3:
            break
        seat = public["turn"]
        own = game.view(seat)
        legal = own["legal"]
        others = [game.view(s)["legal"] for s in range(3) if s != seat]
        assert others == [[], []]
        probe = own["version"]
        for body in _candidate_actions(own):
            if body in legal:
                continue
            response = client.post(
                f"/v1/games/{game.game_id}/actions",
                json={**body, "expected_version": probe},
                headers=game.auth(seat),
            )
            assert response.status_code in (409, 422), (body, response.text)
        assert game.view()["version"] == probe
        go_outs = [a for a in legal if a.get("go_out")]
        lay_offs = [a for a in legal if a["type"] == "lay_off"]
        choice = lay_offs[0] if lay_offs else (go_outs[0] if go_outs else legal[0])
        accepted_go_outs += bool(go_outs)
        game.act(seat, choice)
    assert accepted_go_outs > 0


def test_stream_url_is_a_read_only_key_for_one_seat(client: Client) -> None:
    game = HttpGame.create(client, 2, "classic", seed=9)
    response = client.post(f"/v1/games/{game.game_id}/stream-url", headers=game.auth(1))
    assert response.status_code == 200, response.text
    url = response.json()["url"]
    assert url.startswith(f"/v1/games/{game.game_id}/events?key=")  # no PUBLIC_URL: relative
    key = url.split("key=")[1]
    assert key not in game.tokens
    stream = client.get(url + "&idle_timeout=0")
    snapshot = json.loads(stream.text.split("data: ")[1].split("\n")[0])
    assert snapshot["seat"] == 1
    assert snapshot["hand"] == game.view(1)["hand"]
    # The key is not a token, and a wrong key is no key.
    assert_problem(
        client.get(f"/v1/games/{game.game_id}", headers=bearer(key)), 401, "unknown-token"
    )
    action = client.post(
        f"/v1/games/{game.game_id}/actions",
        json={"type": "draw", "source": "stock"},
        headers=bearer(key),
    )
    assert_problem(action, 401, "unknown-token")
    wrong = client.get(f"/v1/games/{game.game_id}/events", params={"key": key[::-1]})
    assert_problem(wrong, 401, "unknown-stream-key", "key")
    other = HttpGame.create(client, 2, "classic", seed=9)
    elsewhere = client.get(f"/v1/games/{other.game_id}/events", params={"key": key})
    assert_problem(elsewhere, 401, "unknown-stream-key")
    assert_problem(client.post(f"/v1/games/{game.game_id}/stream-url"), 401, "missing-token")
    # A token in the URL is refused, not ignored.
    in_url = client.get(f"/v1/games/{game.game_id}/events", params={"token": game.tokens[1]})
    assert_problem(in_url, 422, "invalid-field", "token")


def test_the_stream_url_starts_with_the_public_url_whatever_the_host_says() -> None:
    """Issue 32: the URL was built from the request's Host, which the client writes."""
    app = create_app(Settings(public_url="https://cards.example"))
    with TestClient(app) as client:
        game = HttpGame.create(client, 2, "classic", seed=9)
        response = client.post(
            f"/v1/games/{game.game_id}/stream-url",
            headers={**game.auth(1), "Host": "evil.example"},
        )
        assert response.json()["url"].startswith(
            f"https://cards.example/v1/games/{game.game_id}/events?key="
        )


def test_leaving_before_the_deal_reopens_the_seat(client: Client) -> None:
    created = create_table(client, [{"name": "Ann"}, {"open": True}, {"open": True}], listed=True)
    game_id, code = created["game_id"], created["invite_code"]
    bob = claim(client, code, "Bob").json()
    key_url = client.post(f"/v1/games/{game_id}/stream-url", headers=bearer(bob["token"]))
    left = client.post(f"/v1/games/{game_id}/leave", headers=bearer(bob["token"]))
    assert left.status_code == 200, left.text
    assert [p["open"] for p in left.json()["players"]] == [False, True, True]
    assert_problem(
        client.get(f"/v1/games/{game_id}", headers=bearer(bob["token"])), 401, "unknown-token"
    )
    stale_key = key_url.json()["url"].split("key=")[1]
    stream = client.get(f"/v1/games/{game_id}/events", params={"key": stale_key})
    assert_problem(stream, 401, "unknown-stream-key")
    (entry,) = client.get("/v1/tables").json()["tables"]
    assert entry["seats_open"] == 2
    assert claim(client, code, "Cy").json()["seat"] == 1
    dee = claim(client, code, "Dee").json()
    assert dee["view"]["status"] == "playing"
    # During play, a computer player takes the seat over (tests/service/bots/test_bot_seats.py).
    response = client.post(f"/v1/games/{game_id}/leave", headers=bearer(dee["token"]))
    assert response.status_code == 200, response.text
    assert response.json()["players"][dee["seat"]]["bot"] == "normal"


def test_every_seat_asking_for_a_rematch_lands_in_one_new_game(client: Client) -> None:
    game = HttpGame.create(client, 3, "classic", seed=21)
    first_dealer = game.view()["dealer"]
    too_soon = client.post(f"/v1/games/{game.game_id}/rematch", headers=game.auth(0))
    assert_problem(too_soon, 409, "game-not-finished")
    game.play_to_end()
    answers = []
    for seat in (2, 0, 1):
        response = client.post(f"/v1/games/{game.game_id}/rematch", headers=game.auth(seat))
        assert response.status_code == 201, response.text
        answers.append(response.json())
        assert response.headers["location"] == f"/v1/games/{answers[0]['game_id']}"
    assert len({a["game_id"] for a in answers}) == 1
    assert [a["seat"] for a in answers] == [2, 0, 1]
    assert answers[0]["view"]["status"] == "waiting"
    assert answers[-1]["view"]["status"] == "playing"
    new_id = answers[0]["game_id"]
    tokens = {a["seat"]: a["token"] for a in answers}
    assert not set(tokens.values()) & set(game.tokens)
    dealt = view(client, new_id, tokens[0])
    assert [p["name"] for p in dealt["players"]] == ["p0", "p1", "p2"]
    assert dealt["rules"]["preset"] == "classic"
    assert dealt["dealer"] == (first_dealer + 1) % 3
    again = client.post(f"/v1/games/{game.game_id}/rematch", headers=game.auth(0))
    assert_problem(again, 409, "rematch-taken")


def test_a_waiting_tables_stream_shows_each_seat_taken_then_the_deal(live_server: str) -> None:
    """A seat's stream before the deal: a snapshot (no event id) per change of the seats, then
    the deal's snapshot with id 0 and the seat's hand, from which actions follow as usual."""
    with httpx.Client(base_url=live_server, timeout=WAIT_SECONDS) as api:
        created = api.post(
            "/v1/games", json={"players": [{"name": "Ann"}, {"open": True}, {"open": True}]}
        ).json()
        game_id, code = created["game_id"], created["invite_code"]
        ann = created["seats"][0]["token"]
        events: list[dict[str, str]] = []

        def follow() -> None:
            url = f"{live_server}/v1/games/{game_id}/events"
            with httpx.stream(
                "GET",
                url,
                headers=bearer(ann),
                params={"idle_timeout": WAIT_SECONDS},
                timeout=WAIT_SECONDS,
            ) as stream:
                block: dict[str, str] = {}
                for line in stream.iter_lines():
                    if line and not line.startswith(":"):
                        name, _, value = line.partition(": ")
                        block[name] = value
                    elif not line and block:
                        events.append(block)
                        block = {}
                        if len(events) == 3:
                            return

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        eventually(lambda: len(events) >= 1, "the first snapshot")
        assert api.post(f"/v1/invites/{code}", json={"name": "Bob"}).status_code == 201
        eventually(lambda: len(events) >= 2, "the snapshot of Bob's seat taken")
        assert api.post(f"/v1/invites/{code}", json={"name": "Cy"}).status_code == 201
        follower.join(timeout=WAIT_SECONDS)
    views = [json.loads(e["data"]) for e in events]
    assert [e["event"] for e in events] == ["snapshot"] * 3
    assert [e.get("id") for e in events] == [None, None, "0"]
    assert [v["status"] for v in views] == ["waiting", "waiting", "playing"]
    assert [sum(p["open"] for p in v["players"]) for v in views] == [2, 1, 0]
    assert views[2]["seat"] == 0
    assert len(views[2]["hand"]) == 3

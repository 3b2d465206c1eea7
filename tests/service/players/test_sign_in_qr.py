"""``GET /v1/players/me/sign-in-qr`` over HTTP: the QR code of the play page's sign-in link
(``<base>/play#key=<key>``) for the key's holder only, as SVG (or as text when asked), never
stored by a cache; the key
itself is nowhere in the answer's text; a missing, unknown or replaced key, or a seat token, is
the same 401 problem as on every player route."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.identity import keys
from service.players.sign_in import sign_in_link, sign_in_qr
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_players import bearer, new_player

QR = "/v1/players/me/sign-in-qr"


def test_the_code_is_the_sign_in_link_to_the_address_asked_and_never_stored(
    live_server: str, http: httpx.Client
) -> None:
    with httpx.Client(base_url=live_server) as client:
        ann = new_player(client)
    answer = http.get(f"{live_server}{QR}", headers=bearer(ann["key"]))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "image/svg+xml"
    assert answer.headers["cache-control"] == "no-store"
    assert answer.text.startswith("<svg ")
    assert answer.text.rstrip().endswith("</svg>")
    # The code draws exactly the link to this server's page with the key in its fragment (segno
    # draws a text the same way every time); the key is in the modules, not in the text.
    assert answer.content == sign_in_qr(sign_in_link(live_server, ann["key"]))
    assert sign_in_link(live_server, ann["key"]) == f"{live_server}/play#key={ann['key']}"
    assert ann["key"] not in answer.text
    assert ann["key"][len(keys.KEY_PREFIX) :] not in answer.text
    # A client that reads only text (a generated one) may ask for the same document as text.
    text = http.get(f"{live_server}{QR}", headers={**bearer(ann["key"]), "Accept": "text/plain"})
    assert text.headers["content-type"].startswith("text/plain")
    assert text.headers["cache-control"] == "no-store"
    assert text.content == answer.content


def test_the_link_starts_with_the_public_url_when_one_is_set(
    live_server_for: Callable[[Litestar], str], http: httpx.Client
) -> None:
    base = live_server_for(create_app(Settings(public_url="https://cards.example")))
    with httpx.Client(base_url=base) as client:
        ann = new_player(client)
    answer = http.get(f"{base}{QR}", headers=bearer(ann["key"]))
    assert answer.status_code == 200, answer.text
    assert answer.content == sign_in_qr(f"https://cards.example/play#key={ann['key']}")


def test_no_key_a_seat_token_an_unknown_key_or_a_replaced_one_is_a_401(
    client: TestClient[Litestar],
) -> None:
    assert_problem(client.get(QR), 401, "player-key-required")
    created = client.post("/v1/games", json={"players": [{"name": "Ann"}, {"bot": "easy"}]})
    token = created.json()["seats"][0]["token"]
    assert_problem(client.get(QR, headers=bearer(token)), 401, "player-key-required")
    assert_problem(client.get(QR, headers=bearer(keys.new_key())), 401, "unknown-player-key")
    ann = new_player(client)
    replaced = client.post("/v1/players/me/key", headers=bearer(ann["key"]))
    assert replaced.status_code == 201, replaced.text
    assert_problem(client.get(QR, headers=bearer(ann["key"])), 401, "unknown-player-key")
    assert client.get(QR, headers=bearer(replaced.json()["key"])).status_code == 200

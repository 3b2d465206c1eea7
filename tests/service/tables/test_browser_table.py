"""A real browser at a table: headless Chromium (Debian's package, driven by Playwright) loads a
page from another origin allowed by CORS_ORIGINS, claims a seat by invite code, follows its
private stream with EventSource on the stream URL, shows its own hand, acts, sees the next
event, and stops reconnecting once the game is finished (the stream's 204)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from playwright.sync_api import Page, Request, sync_playwright

from service.app import create_app
from service.settings import Settings
from tests.waiting import WAIT_SECONDS

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGE = (Path(__file__).parents[1] / "table_page.html").read_bytes()

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)",
)

Json = dict[str, Any]


class _PageHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:  # the base's name
        return


@pytest.fixture
def page_origin() -> Iterator[str]:
    """The frontend's own origin: another port, so every API call is cross-origin."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PageHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(WAIT_SECONDS * 1000)  # each action's bound, not 30 s
            yield page
        finally:
            browser.close()


def wait_for(page: Page, expression: str, timeout: float = WAIT_SECONDS) -> Any:
    page.wait_for_function(expression, timeout=timeout * 1000)
    return page.evaluate(expression)


def play(api: httpx.Client, game_id: str, token: str) -> Json:
    """One turn of the seat holding ``token``: draw from the stock, then the analyser's best
    discard, going out when it can."""
    auth = {"Authorization": f"Bearer {token}"}
    drawn = api.post(
        f"/v1/games/{game_id}/actions", json={"type": "draw", "source": "stock"}, headers=auth
    )
    assert drawn.status_code == 200, drawn.text
    own = drawn.json()
    advice = api.post(
        "/v1/analyse", json={"hand": own["hand"], "wild": own["wild"], "rules": own["rules"]}
    )
    card = advice.json()["suggested_discard"]
    going_out = {"type": "discard", "card": card, "go_out": True}
    body = going_out if going_out in own["legal"] else {"type": "discard", "card": card}
    played = api.post(f"/v1/games/{game_id}/actions", json=body, headers=auth)
    assert played.status_code == 200, played.text
    result: Json = played.json()
    return result


def test_a_browser_on_another_origin_joins_follows_its_stream_acts_and_stops_at_the_end(
    page: Page, page_origin: str, live_server_for: Callable[[Litestar], str]
) -> None:
    base = live_server_for(create_app(Settings(cors_origins=(page_origin,))))
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        created = api.post(
            "/v1/games", json={"players": [{"name": "Ann"}, {"open": True}], "seed": 12}
        ).json()
        game_id, ann = created["game_id"], created["seats"][0]["token"]
        streams: list[Request] = []
        page.on("request", lambda r: streams.append(r) if "/events" in r.url else None)

        page.goto(f"{page_origin}/?api={base}&code={created['invite_code'].lower()}")
        wait_for(page, "window.events.length >= 1 || window.failure")
        assert page.evaluate("window.failure || null") is None
        bob = page.evaluate("window.token")
        assert bob != ann
        assert "key=" in streams[0].url
        assert bob not in streams[0].url
        # Its own hand, dealt by its claim (the last open seat), and nobody else's.
        own = api.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {bob}"}).json()
        assert own["seat"] == 1
        assert own["status"] == "playing"
        assert page.inner_text("#hand") == " ".join(own["hand"])
        assert page.evaluate("window.events[0]") == {"type": "snapshot", "id": "0", "version": 0}

        if own["turn"] == 0:  # Ann's turn first: the browser sees both of her actions
            play(api, game_id, ann)
            wait_for(page, "window.events.length >= 3")
        seen = page.evaluate("window.events.length")
        assert page.evaluate("act()") == 200  # the browser draws, from its view's legal
        wait_for(page, f"window.events.length > {seen}")
        assert page.evaluate("window.events.at(-1)")["seat"] == 1
        assert page.inner_text("#hand") != " ".join(own["hand"])  # one card more

        # The rest of the game, both seats played by the test; the browser follows.
        auth = {"Authorization": f"Bearer {bob}"}
        view = api.get(f"/v1/games/{game_id}", headers=auth).json()
        if view["phase"] == "discard":
            card = view["legal"][0]["card"]
            view = api.post(
                f"/v1/games/{game_id}/actions", json={"type": "discard", "card": card}, headers=auth
            ).json()
        tokens = [ann, bob]
        for _ in range(3000):
            if view["status"] == "finished":
                break
            view = play(api, game_id, tokens[view["turn"]])
        assert view["status"] == "finished"
        final = view["version"]
        finished = wait_for(page, "window.events.find(e => e.type === 'finished') || null")
        assert finished == {"type": "finished", "id": str(final)}

        # The browser reconnects once, with the last id; the 204 stops it for good.
        wait_for(page, "window.source.readyState === EventSource.CLOSED")
        opened = len(streams)
        # Longer than EventSource's reconnection delay, a duration on the browser's clock: a
        # wait in the page, so its requests reach the handler (a plain sleep delivers none).
        page.wait_for_timeout(4000)
        assert len(streams) == opened == 2
        assert streams[1].all_headers().get("last-event-id") == str(final)
        response = streams[1].response()
        assert response is not None
        assert response.status == 204
        actions = [e for e in page.evaluate("window.events") if e["type"] == "action"]
        assert len(actions) == final  # every version, once, in the browser

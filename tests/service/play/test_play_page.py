"""The play page (``GET /play``) in a real browser: Debian's headless Chromium, driven by
Playwright, against a live app. A person creates a table against a bot and plays their seat to
the end of the game by clicking (the stock, then a card of the hand, or going out), asks for
hints, sees every round's result, the score table and chart and the winners, and asks for a
rematch; a second person in another browser context joins a table by its invite code, and each
page follows the other's moves through its own stream. The page loads nothing but its own
origin's files and logs no error (a Content-Security-Policy violation is a console error).

Screenshots at a phone's size (390x844) and a desktop's (1280x800) are written to
``tests/artifacts/play/`` (git-ignored) for a person to look at."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import (
    APIResponse,
    Browser,
    ConsoleMessage,
    Page,
    Route,
    ViewportSize,
    expect,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from service.app import create_app
from service.settings import Settings
from tests.service.tables.test_browser_table import CHROMIUM, CHROMIUM_ARGS
from tests.waiting import WAIT_SECONDS, eventually

ARTIFACTS = Path(__file__).parents[2] / "artifacts" / "play"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
WAIT_MS = 90_000
"""How long any one condition may take to come true: generous, for a busy machine (the first
bot move waits for its worker process to start, seconds when every core is taken)."""
TURNS_AT_MOST = 400
"""A bound on the person's turns in one game, far above any real game's."""
CARD_CODE = re.compile(r"\b(?:[2-9TJQKA][CDHSX]|JK)\b")
"""A card as the API writes it ("QC"): never in what the page says to a person."""

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)",
)
# Every expect() waits as long as any other condition may take (Playwright's default is 5 s).
expect.set_options(timeout=WAIT_MS)
# One worker runs the module, so its tests share one browser (a module-scoped fixture).
pytestmark = pytest.mark.xdist_group("test_play_page")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def base(live_server_for: Callable[[Litestar], str]) -> str:
    return live_server_for(create_app(Settings()))


class Person:
    """One browser context (its own session storage: its own seat) on the play page, with every
    console error and uncaught exception it logs."""

    def __init__(self, browser: Browser, base: str, viewport: ViewportSize) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.context.set_default_timeout(WAIT_MS)  # every action's bound (Playwright's is 30 s)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(f"{base}/play")

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    @property
    def app(self) -> dict[str, str]:
        data: dict[str, str] = self.page.evaluate("({...document.getElementById('app').dataset})")
        return data

    def version(self) -> int:
        return int(self.app["version"])

    def wait_for_newer(self, version: int) -> None:
        self.wait_for_version(version + 1)

    def wait_for_version(self, at_least: int) -> None:
        """Waits until the page shows version ``at_least`` or a newer one; if it never does,
        the failure says what the page and the service each hold."""
        try:
            self.page.wait_for_function(
                "v => Number(document.getElementById('app').dataset.version) >= v",
                arg=at_least,
                timeout=WAIT_MS,
            )
        except PlaywrightTimeout:
            raise AssertionError(
                f"the page never showed version {at_least}: {self.diagnosis()}"
            ) from None

    def wait_for_turn_at(self, at_least: int) -> None:
        """Waits until the page offers this seat a draw at version ``at_least`` or a newer one;
        if it never does, the failure says what the page and the service each hold."""
        try:
            self.page.wait_for_function(
                "v => { const app = document.getElementById('app');"
                " return app.dataset.act === 'draw' && Number(app.dataset.version) >= v; }",
                arg=at_least,
                timeout=WAIT_MS,
            )
        except PlaywrightTimeout:
            raise AssertionError(
                f"the page never offered a draw at version {at_least} or later: {self.diagnosis()}"
            ) from None

    def diagnosis(self) -> str:
        """The page's data, its connection line, and the game as the service has it now."""
        seat: dict[str, Any] = self.page.evaluate(
            "JSON.parse(sessionStorage.getItem('three-thirteen-seat') || '{}')"
        )
        shown = f"page {self.app}, connection {self.page.locator('#connection').text_content()!r}"
        if not seat.get("gameId"):
            return f"{shown}, no seat"
        base = self.page.url.split("/play")[0]
        answer = httpx.get(
            f"{base}/v1/games/{seat['gameId']}",
            headers={"Authorization": f"Bearer {seat['token']}"},
            timeout=30,
        )
        if answer.status_code != 200:
            return f"{shown}, service {answer.status_code} {answer.text}"
        view = answer.json()
        legal = sorted({entry["type"] for entry in view.get("legal") or ()})
        return (
            f"{shown}, service at version {view['version']} ({view['status']}), "
            f"turn {view['turn']}, phase {view['phase']}, legal {legal}"
        )

    def wait_for_turn_or_end(self) -> None:
        self.page.wait_for_selector(
            "#app[data-act~=draw], #app[data-act~=discard], #app[data-status=finished]",
            state="attached",
            timeout=WAIT_MS,
        )

    def create_table(self, name: str, seat: str, *, listed: bool = False) -> None:
        self.page.get_by_label("Your name").first.fill(name)
        self.page.get_by_label("Seat 2", exact=True).select_option(seat)
        self.page.get_by_label("Show open seats in the lobby").set_checked(listed)
        self.page.get_by_role("button", name="Create table").click()

    def screenshot(self, name: str, viewport: ViewportSize) -> None:
        """The whole page at this size, then back to the size it had."""
        before = self.page.viewport_size
        self.page.set_viewport_size(viewport)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)
        if before is not None:
            self.page.set_viewport_size(before)

    def close(self) -> None:
        self.context.close()


def best_discard(api: httpx.Client, hand: list[str], wild: str) -> str:
    """What the test discards: the analyser's suggestion, as any player could ask for it."""
    advice = api.post("/v1/analyse", json={"hand": hand, "wild": wild, "rules": "classic"})
    assert advice.status_code == 200, advice.text
    card: str = advice.json()["suggested_discard"]
    return card


def play_one_turn(person: Person, api: httpx.Client, *, hints: bool = False) -> None:
    """Draws from the stock by clicking it, then goes out if the page offers it, else clicks the
    card the analyser would discard; with ``hints``, asks for a hint before each."""
    page = person.page
    before = person.version()
    if hints:
        assert_hints_shown(page)
    page.get_by_role("button", name="Stock").click()
    person.wait_for_newer(before)
    expect(page.locator("#app")).to_have_attribute("data-act", "discard", timeout=WAIT_MS)
    drawn = person.version()
    if hints:
        assert_hints_shown(page)
    go_out = page.locator("#go-out button")
    if go_out.count():
        go_out.first.click()
    else:
        hand = page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
        card = best_discard(api, hand, person.app["wild"])
        page.locator(f"#hand .card[data-card='{card}']").first.click()
    person.wait_for_newer(drawn)


def tab_to(page: Page, selector: str) -> None:
    """Presses Tab until the focus is on an element that ``selector`` matches."""
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focus_is_visible(page: Page) -> bool:
    outline: str = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    return outline not in ("", "none")


def play_one_turn_by_keyboard(person: Person, api: httpx.Client) -> None:
    """The same turn with the keyboard only: Tab to the stock, Enter; Tab into the hand, the
    arrow keys to the card, Enter."""
    page = person.page
    before = person.version()
    tab_to(page, "#piles [data-pile=stock] .card")
    assert focus_is_visible(page)
    page.keyboard.press("Enter")
    person.wait_for_newer(before)
    expect(page.locator("#app")).to_have_attribute("data-act", "discard", timeout=WAIT_MS)
    drawn = person.version()
    hand = page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    card = best_discard(api, hand, person.app["wild"])
    tab_to(page, "#hand .card")
    page.keyboard.press("Home")
    for _ in hand:
        if page.evaluate("document.activeElement.dataset.card") == card:
            break
        page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.card") == card
    assert focus_is_visible(page)
    person.screenshot("keyboard-phone", PHONE)
    page.keyboard.press("Enter")
    person.wait_for_newer(drawn)


def assert_hints_shown(page: Page) -> None:
    """The hint's advice is written out and what it advises is marked."""
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#hint")).not_to_have_text(re.compile("^(Thinking…)?$"), timeout=WAIT_MS)
    where = "#piles" if page.locator("#app").get_attribute("data-act") == "draw" else "#hand"
    expect(page.locator(f"{where} .hinted")).to_have_count(1, timeout=WAIT_MS)
    assert not CARD_CODE.search(page.locator("#hint").inner_text())


@needs_chromium
def test_a_person_plays_a_whole_game_against_a_bot_by_clicking(browser: Browser, base: str) -> None:
    ann = Person(browser, base, DESKTOP)
    page = ann.page
    ann.screenshot("start-desktop", DESKTOP)
    ann.screenshot("start-phone", PHONE)
    ann.create_table("Ann", "easy")
    expect(page.locator("#app")).to_have_attribute("data-screen", "game", timeout=WAIT_MS)
    expect(page.locator("#players")).to_contain_text("Ann (you)")
    expect(page.locator("#players")).to_contain_text("easy bot")

    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        play_to_the_end(ann, api)
        game_id = ann.app["gameId"]
        final = api.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished"
    assert final["round"] == final["rounds"] == 11
    assert_final_screen(page, final)
    ann.screenshot("final-desktop", DESKTOP)
    ann.screenshot("final-phone", PHONE)

    # The rematch: a new game with the same seats, from round 1.
    page.get_by_role("button", name="Rematch").click()
    expect(page.locator("#app")).not_to_have_attribute("data-game-id", game_id, timeout=WAIT_MS)
    expect(page.locator("#app")).to_have_attribute("data-status", "playing", timeout=WAIT_MS)
    expect(page.locator("#round-info")).to_contain_text("Round 1 of 11")
    assert ann.errors == []
    ann.close()


def play_to_the_end(ann: Person, api: httpx.Client) -> None:
    """Ann's turns until the game is over: hints asked on the first, screenshots in rounds 3
    and 10 (a hand of twelve cards)."""
    page = ann.page
    shots = {3: "game", 10: "late"}
    for turn in range(TURNS_AT_MOST):
        ann.wait_for_turn_or_end()
        if ann.app["status"] == "finished":
            return
        round_now = int(page.locator("#round-info").inner_text().split()[1])
        shot = next((name for r, name in shots.items() if round_now >= r), None)
        if shot:
            # A hand laid out in melds, a round result beside it.
            expect(page.locator("#hand .group").first).to_be_visible()
            expect(page.locator("#round-result-body .result-hand")).to_have_count(2)
            ann.screenshot(f"{shot}-desktop", DESKTOP)
            ann.screenshot(f"{shot}-phone", PHONE)
            shots = {r: name for r, name in shots.items() if r > round_now}
        play_one_turn(ann, api, hints=turn == 0)
    raise AssertionError(f"no end after {TURNS_AT_MOST} turns")


def assert_final_screen(page: Page, final: dict[str, Any]) -> None:
    """The winners, the last round laid out hand by hand and the earlier ones, every round's
    points and the totals as the API has them, the chart."""
    names = {p["seat"]: p["name"] for p in final["players"]}
    winners = page.locator("#winners").inner_text()
    assert all(("You" if s == 0 else names[s]) in winners for s in final["winners"])
    expect(page.locator("#round-result-body .result-hand")).to_have_count(2)
    expect(page.locator("#round-result")).to_contain_text("Round 11")
    expect(page.locator("#earlier-rounds .earlier-round")).to_have_count(10)
    rows = page.locator("#score-table tbody tr")
    expect(rows).to_have_count(11)
    totals = page.locator("#score-table tfoot td").all_inner_texts()
    assert totals == [str(p["score"]) for p in final["players"]]
    for seat, player in enumerate(final["players"]):
        column = rows.evaluate_all(f"rows => rows.map(r => r.cells[{seat + 1}].textContent)")
        assert column == [str(s) for s in player["round_scores"]]
    expect(page.locator("#score-chart svg polyline")).to_have_count(2)


@needs_chromium
def test_a_second_person_joins_by_code_and_each_page_follows_the_other(
    browser: Browser, base: str
) -> None:
    ann = Person(browser, base, DESKTOP)
    ann.create_table("Ann", "open", listed=True)
    expect(ann.page.locator("#app")).to_have_attribute("data-screen", "waiting", timeout=WAIT_MS)
    code = ann.page.locator("#invite-code").inner_text()
    expect(ann.page.locator("#invite-link")).to_have_attribute("href", f"{base}/play?code={code}")
    ann.screenshot("waiting-desktop", DESKTOP)

    # Bob first mistypes the code: the service's problem is shown, nothing else happens.
    bob = Person(browser, base, PHONE)
    join = bob.page.locator("#join")
    join.get_by_label("Invite code").fill("WWWWWW")
    join.get_by_label("Your name").fill("Bob")
    join.get_by_role("button", name="Join table").click()
    expect(bob.page.locator("#problem")).to_contain_text("WWWWWW")
    assert [e for e in bob.errors if "404" not in e] == []  # the browser logs the 404 itself
    bob.errors.clear()
    # Then he opens the shared link: the code is filled in, and the table is in the lobby too.
    bob.page.goto(f"{base}/play?code={code.lower()}")
    expect(join.get_by_label("Invite code")).to_have_value(code.lower())
    expect(bob.page.locator("#lobby-tables")).to_contain_text(code)
    join.get_by_label("Your name").fill("Bob")
    join.get_by_role("button", name="Join table").click()

    for person, other in ((ann, "Bob"), (bob, "Ann")):
        expect(person.page.locator("#app")).to_have_attribute(
            "data-status", "playing", timeout=WAIT_MS
        )
        expect(person.page.locator("#players")).to_contain_text(other)
        expect(person.page.locator("#hand .card")).to_have_count(3)
    assert ann.app["gameId"] == bob.app["gameId"]
    bob.screenshot("joined-phone", PHONE)

    # Whoever is on turn draws and discards with the keyboard; the other page sees both moves.
    mover, watcher = (ann, bob) if "draw" in ann.app.get("act", "") else (bob, ann)
    assert watcher.app["act"] == ""
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        play_one_turn_by_keyboard(mover, api)
    watcher.wait_for_version(mover.version())
    expect(watcher.page.locator("#moves li")).to_have_count(2)
    expect(watcher.page.locator("#moves li").first).to_contain_text("discarded")
    expect(watcher.page.locator("#app")).to_have_attribute("data-act", "draw", timeout=WAIT_MS)
    size = PHONE if watcher is bob else DESKTOP
    watcher.screenshot(f"your-turn-{'phone' if watcher is bob else 'desktop'}", size)

    # A reload finds the seat again (the tab keeps it) and follows the game from where it is.
    game_id, version = watcher.app["gameId"], watcher.version()
    watcher.page.reload()
    expect(watcher.page.locator("#app")).to_have_attribute("data-act", "draw", timeout=WAIT_MS)
    assert (watcher.app["gameId"], watcher.version()) == (game_id, version)

    # Bob leaves: his page is back at the start, and a bot plays his seat on Ann's.
    bob.page.once("dialog", lambda dialog: dialog.accept())
    bob.page.get_by_role("button", name="Leave table").click()
    expect(bob.page.locator("#app")).to_have_attribute("data-screen", "start", timeout=WAIT_MS)
    expect(ann.page.locator("#players li").nth(1)).to_contain_text("normal bot", timeout=WAIT_MS)
    assert ann.errors == bob.errors == []
    ann.close()
    bob.close()


@needs_chromium
def test_streams_ending_at_their_lifetime_neither_show_a_reconnection_nor_lose_a_move(
    browser: Browser, live_server_for: Callable[[Litestar], str]
) -> None:
    """Streams that end every second or so (``STREAM_LIFETIME``): the EventSource reconnects
    with ``Last-Event-ID``, the page never says "Reconnecting…", and it follows every move."""
    base = live_server_for(create_app(Settings(stream_lifetime=1.0)))
    ann = Person(browser, base, DESKTOP)
    streams: list[str] = []
    ann.page.on("request", lambda r: streams.append(r.url) if "/events" in r.url else None)
    ann.page.evaluate(
        """() => { window.shown = [];
            new MutationObserver(() => window.shown.push(document.getElementById('connection')
                .textContent)).observe(document.getElementById('connection'),
                {childList: true, characterData: true, subtree: true}); }"""
    )
    ann.create_table("Ann", "easy")
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        for _ in range(3):  # a turn of hers, the bot's after it, each across reconnections
            ann.wait_for_turn_or_end()
            version = ann.version()
            play_one_turn_by_keyboard(ann, api)
            ann.wait_for_newer(version)

    def opened_four_times() -> list[str] | None:
        ann.page.evaluate("0")  # a call into the page delivers its requests to the handler
        return streams if len(streams) >= 4 else None

    eventually(opened_four_times, "the stream to be opened four times", seconds=WAIT_MS / 1000)
    assert "Reconnecting…" not in ann.page.evaluate("window.shown")
    assert ann.errors == []
    ann.close()


@needs_chromium
def test_answers_older_than_the_streamed_events_neither_block_nor_take_the_page_back(
    browser: Browser, base: str
) -> None:
    """Every answer to Ann's actions is held back. Her draw shows through the stream first, and
    her click on a card of that newer view is taken (not dropped as a repeat of the draw); the
    stream then brings her discard and the bot's draw and discard (or, if the bot went out on
    its first turn, her discard ends the round and deals the next, her turn at once: the deal
    is not seeded). Once the two old answers arrive, the page keeps the newest view: her turn
    again."""
    ann = Person(browser, base, DESKTOP)
    page = ann.page
    app = page.locator("#app")
    ann.create_table("Ann", "easy")
    expect(app).to_have_attribute("data-act", "draw", timeout=WAIT_MS)
    start = ann.version()
    held: list[tuple[Route, APIResponse]] = []
    page.route("**/actions", lambda route: held.append((route, route.fetch())))

    page.get_by_role("button", name="Stock").click()
    expect(app).to_have_attribute("data-act", "discard", timeout=WAIT_MS)  # from the stream
    expect(app).to_have_attribute("data-busy", "true")  # the draw's answer is still held
    page.locator("#hand .card").first.click()
    # Her turn again from the stream: after the bot's draw and discard (start + 4), or, when the
    # bot went out on its first turn, at once with the next round's deal (start + 2).
    ann.wait_for_turn_at(start + 2)
    assert [answer.json()["version"] for _, answer in held] == [start + 1, start + 2]
    newest = ann.version()
    for route, answer in held:
        route.fulfill(response=answer)
    expect(app).not_to_have_attribute("data-busy", "true", timeout=WAIT_MS)
    assert ann.version() == newest
    expect(app).to_have_attribute("data-act", "draw")
    assert ann.errors == []
    ann.close()


def test_the_page_is_served_with_its_types_and_a_policy_of_this_origin_only(
    client: TestClient[Litestar],
) -> None:
    page = client.get("/play")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert "'unsafe-inline'" not in policy
    assert "http" not in policy  # no other origin, anywhere
    assert page.headers["x-content-type-options"] == "nosniff"
    for name, kind in (("main.js", "text/javascript"), ("play.css", "text/css")):
        asset = client.get(f"/play/{name}")
        assert asset.status_code == 200
        assert asset.headers["content-type"].startswith(kind)
        assert asset.headers["content-security-policy"] == policy
    assert client.get("/", follow_redirects=False).headers["location"] == "/play"
    missing = client.get("/play/nothing.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    document: dict[str, Any] = client.get("/schema/openapi.json").json()
    assert not [path for path in document["paths"] if path == "/" or path.startswith("/play")]


def test_every_module_the_page_loads_is_one_of_its_own_files() -> None:
    """No outside asset: every import and link names a file of static/."""
    static = Path(__file__).parents[3] / "service" / "play" / "static"
    files = {p.name for p in static.iterdir()}
    for path in static.iterdir():
        text = path.read_text()
        for line in text.splitlines():
            if line.startswith("import ") or ' from "' in line:
                target = line.rsplit('"', 2)[1]
                assert target.startswith("./"), line
                assert target[2:] in files, line
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text

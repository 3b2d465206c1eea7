"""The play page's edges (issue 46) in a real browser, and axe-core on every screen.

A game of Ann (the page) and Bob (played over the API), dealt from given hands so that every
round goes as the test says: Ann's drawn card is marked, the hints name cards in words, Bob
goes out and the page tells Ann that her turn is her last, a round of 1 point says "1 pt", the
moves Bob makes in the rematch before Ann's page follows it are listed. Every screen a person
meets is checked by axe-core (``axe-playwright-python``, which bundles it): the start screen, a
table waiting (with the invite's QR code), a game in turns and one in speed, the round results,
the game over, the review, a player's sign-in and my games; a serious or critical violation
fails the test, and every violation found is printed.

Screenshots go to ``tests/artifacts/play/`` (``drawn-*``, ``last-turn-*``, ``invite-qr-*``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from litestar import Litestar
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

from service.app import create_app
from service.settings import Settings
from tests.service.play.test_play_page import (
    CARD_CODE,
    DESKTOP,
    PHONE,
    WAIT_MS,
    Person,
    needs_chromium,
)
from tests.service.tables.test_browser_table import CHROMIUM, CHROMIUM_ARGS
from tests.waiting import WAIT_SECONDS, eventually

# One worker runs the module, so its tests share one browser (a module-scoped fixture).
pytestmark = pytest.mark.xdist_group("test_play_edges")

AXE = Axe()
BLOCKING = frozenset({"serious", "critical"})
"""The impacts that fail a screen; moderate and minor ones are printed only."""
SPOKEN_CARD = re.compile(
    r"^(ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of "
    r"(clubs|diamonds|hearts|spades|stars)$|^joker$"
)

DEALS_AT_MOST = 40
"""Games made until Ann is first: each is a coin's toss, so 40 fail once in 10¹²."""
RANKS = "A23456789TJQK"
# Round 1 (three cards, threes wild): Ann first; she draws 9S and discards; Bob draws 4H and goes
# out with his fives; Ann's last turn. Round 2 (fours wild): Bob goes out with his four fives,
# Ann is left with a set of sevens and the ace of spades: 1 point. Rounds 3 to 11: Bob holds a
# run of clubs and goes out on his first turn.
DEALS: list[dict[str, Any]] = [
    {
        "round": 1,
        "hands": [["7C", "9D", "KH"], ["5C", "5D", "5H"]],
        "upcard": "QS",
        "stock": ["9S", "4H", "8C", "JD"],
    },
    {
        "round": 2,
        "hands": [["7C", "7D", "7H", "AS"], ["5C", "5D", "5H", "5S"]],
        "upcard": "QS",
        "stock": ["9S", "KC", "8D", "JD", "2C"],
    },
    *(
        {
            "round": r,
            "hands": [
                [f"{rank}{'HS'[i % 2]}" for i, rank in enumerate(RANKS[::-1][: r + 2])],
                [f"{rank}C" for rank in RANKS[: r + 2]],
            ],
            "upcard": "KD",
            "stock": [f"{rank}D" for rank in RANKS[:12]],
        }
        for r in range(3, 12)
    ),
]


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


def assert_accessible(page: Page, screen: str) -> None:
    """axe-core on the page as it is now: every violation printed, none serious or critical."""
    violations: list[dict[str, Any]] = AXE.run(page).response["violations"]
    for violation in violations:
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]]
        print(f"axe on {screen}: {violation['id']} ({violation['impact']}) at {targets}")
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"axe on {screen}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} at "
        f"{[' '.join(map(str, n['target'])) for n in v['nodes']]}"
        for v in blocking
    )


def seated(browser: Browser, base: str, viewport: Any, seat: dict[str, Any]) -> Person:
    """A page holding ``seat`` (``{gameId, seat, token}``), as a tab that made it would."""
    person = Person(browser, base, viewport)
    person.page.evaluate(
        "s => sessionStorage.setItem('three-thirteen-seat', JSON.stringify(s))", seat
    )
    person.page.reload()
    return person


class Table:
    """The game over the API: each seat's token, and a turn taken for whoever is on it. Bob
    (``goes_out``) goes out whenever he may; any other seat discards the card it drew."""

    def __init__(
        self, api: httpx.Client, game_id: str, tokens: list[str], goes_out: int | None = 1
    ) -> None:
        self.api, self.game_id, self.tokens, self.goes_out = api, game_id, tokens, goes_out

    def view(self, seat: int | None = None) -> dict[str, Any]:
        headers = {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}
        answer = self.api.get(f"/v1/games/{self.game_id}", headers=headers)
        assert answer.status_code == 200, answer.text
        view: dict[str, Any] = answer.json()
        return view

    def act(self, seat: int, entry: dict[str, Any]) -> dict[str, Any]:
        answer = self.api.post(
            f"/v1/games/{self.game_id}/actions",
            json=entry,
            headers={"Authorization": f"Bearer {self.tokens[seat]}"},
        )
        assert answer.status_code == 200, answer.text
        view: dict[str, Any] = answer.json()
        return view

    def turn(self) -> None:
        """The seat on turn draws from the stock, then discards (or goes out)."""
        seat = self.view()["turn"]
        before = Counter(self.view(seat)["hand"])
        drawn = self.act(seat, {"type": "draw", "source": "stock"})
        new = set((Counter(drawn["hand"]) - before).elements())
        discards = [e for e in drawn["legal"] if e["type"] == "discard"]
        out = [e for e in discards if e.get("go_out")] if seat == self.goes_out else []
        plain = [e for e in discards if not e.get("go_out")]
        self.act(seat, (out or [e for e in plain if e["card"] in new] or plain)[0])

    def play_round(self) -> None:
        """Turns until the round being played is over."""
        start = self.view()
        while (now := self.view())["round"] == start["round"] and now["status"] == "playing":
            self.turn()


@needs_chromium
def test_the_drawn_card_hints_in_words_the_last_turn_points_counted_and_a_rematch_s_first_moves(
    browser: Browser, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        table = ann_first(api)
        game = {"game_id": table.game_id}
        ann = seated(
            browser, base, DESKTOP, {"gameId": game["game_id"], "seat": 0, "token": table.tokens[0]}
        )
        first_round(ann, table)
        to_the_end(ann, table)
        rematch_s_first_moves(ann, table)
    assert ann.errors == []
    ann.close()


def ann_first(api: httpx.Client) -> Table:
    """The game of ``DEALS``, dealt until Ann is first to play (the first dealer is drawn)."""
    for _ in range(DEALS_AT_MOST):
        created = api.post(
            "/v1/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}], "deal": DEALS}
        )
        assert created.status_code == 201, created.text
        game = created.json()
        if game["view"]["turn"] == 0:
            return Table(api, game["game_id"], [s["token"] for s in game["seats"]])
    raise AssertionError(f"Bob was first in {DEALS_AT_MOST} games")


def first_round(ann: Person, table: Table) -> None:
    """Ann draws (the card marked, by sight and by name), asks hints (in words), discards; Bob
    goes out, and the page tells Ann that her next turn is her last."""
    page, app = ann.page, ann.page.locator("#app")
    expect(app).to_have_attribute("data-act", "draw")
    expect(page.locator("#turn")).to_have_text(
        "Your turn: draw from the stock or take the discard."
    )
    assert_accessible(page, "a game in turns")
    assert_hint_in_words(page)
    page.get_by_role("button", name="Stock").click()
    expect(app).to_have_attribute("data-act", "discard")
    drawn = page.locator("#hand .card.drawn")
    expect(drawn).to_have_count(1)
    expect(drawn).to_have_attribute("data-card", "9S")
    expect(drawn).to_have_attribute("aria-label", "nine of spades, just drawn")
    expect(drawn.locator(".drawn-tag")).to_have_text("new")
    assert_hint_in_words(page)
    ann.screenshot("drawn-desktop", DESKTOP)
    ann.screenshot("drawn-phone", PHONE)
    assert_accessible(page, "a game in turns, a card just drawn")
    page.locator("#hand .card[data-card='KH']").click()
    expect(app).to_have_attribute("data-act", "")
    expect(page.locator("#hand .card.drawn")).to_have_count(0)

    table.turn()  # Bob goes out
    expect(app).to_have_attribute("data-act", "draw")
    expect(page.locator("#turn")).to_have_text(
        "Your last turn (Bob went out): draw from the stock or take the discard."
    )
    page.get_by_role("button", name="Stock").click()
    expect(app).to_have_attribute("data-act", "discard")
    expect(page.locator("#turn")).to_have_text(
        "Your last turn (Bob went out): choose a card to discard."
    )
    ann.screenshot("last-turn-desktop", DESKTOP)
    page.locator("#hand .card[data-card='7C']").click()


def to_the_end(ann: Person, table: Table) -> None:
    """Round 1's result (26 points for Ann, none for Bob), round 2's (1 point), the rest of
    the game over the API, the game over and its review."""
    page, app = ann.page, ann.page.locator("#app")
    expect(page.locator("#round-result")).to_contain_text("Round 1")
    hands = page.locator("#round-result-body .result-hand strong")
    expect(hands).to_have_text(["26 pts", "0 pts"])
    assert_accessible(page, "a round's result")
    table.play_round()
    expect(page.locator("#round-result")).to_contain_text("Round 2")
    expect(hands).to_have_text(["1 pt", "0 pts"])
    expect(page.locator("#players li[data-seat='0'] .facts")).to_contain_text("27 pts")

    while table.view()["status"] == "playing":
        table.play_round()
    expect(app).to_have_attribute("data-status", "finished")
    expect(page.locator("#winners")).to_have_text("Bob wins with 0 points.")
    assert_accessible(page, "the game over")
    page.get_by_role("button", name="Review").click()
    expect(page.locator(".review h2")).to_be_focused()
    page.locator(".review details summary").first.click()
    assert_accessible(page, "the review")


def rematch_s_first_moves(ann: Person, table: Table) -> None:
    """Bob asks for the rematch first; Ann's page switches to it, but its stream is held back
    while the rematch's first turn is taken over the API: the page lists both moves."""
    page, api = ann.page, table.api
    asked = api.post(
        f"/v1/games/{table.game_id}/rematch",
        headers={"Authorization": f"Bearer {table.tokens[1]}"},
    )
    assert asked.status_code == 201, asked.text
    held: list[Route] = []

    def hold(route: Route) -> None:  # Playwright wraps a function, not a bound builtin
        held.append(route)

    page.route("**/stream-url", hold)
    with page.expect_response("**/rematch") as answer:
        page.get_by_role("button", name="Rematch").click()
    mine, bob = answer.value.json(), asked.json()
    tokens = {mine["seat"]: mine["token"], bob["seat"]: bob["token"]}
    rematch = Table(api, mine["game_id"], [tokens[0], tokens[1]], goes_out=None)
    expect(page.locator("#app")).to_have_attribute("data-game-id", mine["game_id"])

    def stream_asked() -> list[Route] | None:
        page.evaluate("0")  # a call into the page delivers its requests to the handler
        return held or None

    eventually(stream_asked, "the page to ask for the rematch's stream", seconds=WAIT_MS / 1000)
    assert page.locator("#moves li").count() == 0
    rematch.turn()
    held[0].continue_()
    page.unroute("**/stream-url")
    log = api.get(f"/v1/games/{mine['game_id']}/log").json()["entries"]
    assert [e["version"] for e in log] == [1, 2]
    moves = page.locator("#moves li")
    expect(moves).to_have_count(2)
    who = "You" if log[0]["seat"] == mine["seat"] else "Bob"
    expect(moves.nth(1)).to_contain_text(f"{who} drew")
    expect(moves.nth(0)).to_contain_text(f"{who} discarded")


def assert_hint_in_words(page: Page) -> None:
    """The hint's advice names its cards as the page does (no card code), each read in words."""
    page.get_by_role("button", name="Hint").click()
    hint = page.locator("#hint")
    expect(hint).to_have_text(re.compile(r"^(Draw|Take|Discard) "))
    assert not CARD_CODE.search(hint.inner_text()), hint.inner_text()
    for name in hint.locator("[role=img]").evaluate_all(
        "cards => cards.map(c => c.getAttribute('aria-label'))"
    ):
        assert SPOKEN_CARD.match(name), name


@needs_chromium
def test_the_start_a_waiting_table_and_its_invite_qr_code_pass_axe(
    browser: Browser, base: str
) -> None:
    ann = Person(browser, base, DESKTOP)
    page = ann.page
    expect(page.locator("#app")).to_have_attribute("data-screen", "start")
    assert_accessible(page, "the start screen")
    ann.create_table("Ann", "open")
    expect(page.locator("#app")).to_have_attribute("data-screen", "waiting")
    code = page.locator("#invite-code").inner_text()
    qr = page.locator("#invite-qr")
    expect(qr).to_have_attribute("src", f"/v1/invites/{code}/qr")
    expect(qr).to_have_attribute("alt", "QR code of the invite link")
    page.wait_for_function("() => document.getElementById('invite-qr').naturalWidth > 0")
    ann.screenshot("invite-qr-desktop", DESKTOP)
    ann.screenshot("invite-qr-phone", PHONE)
    assert_accessible(page, "a table waiting for players")
    assert ann.errors == []
    ann.close()


@needs_chromium
def test_a_speed_game_passes_axe(browser: Browser, base: str) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        created = api.post(
            "/v1/games",
            json={
                "players": [{"name": "Ann"}, {"bot": "easy"}],
                "rules": {"preset": "classic", "turns": "speed"},
                "call_seconds": 90,
            },
        )
        assert created.status_code == 201, created.text
        game = created.json()
    ann = seated(
        browser,
        base,
        PHONE,
        {"gameId": game["game_id"], "seat": 0, "token": game["seats"][0]["token"]},
    )
    page = ann.page
    expect(page.locator("#call")).to_contain_text("Call 1 · everyone draws")
    assert_accessible(page, "a speed game's call")
    page.get_by_role("button", name="Stock").click()
    # Chosen, or already past the call (the bot chooses at once): its result is listed.
    page.wait_for_function(
        "() => document.getElementById('app').dataset.chosen === 'true'"
        " || document.querySelector('#moves li') !== null"
    )
    assert_accessible(page, "a speed game's call, chosen")
    assert ann.errors == []
    ann.close()


@needs_chromium
def test_a_player_s_sign_in_and_my_games_pass_axe(browser: Browser, base: str) -> None:
    ann = Person(browser, base, DESKTOP)
    page = ann.page
    page.get_by_label("Your player's name").fill("Ann")
    page.get_by_role("button", name="Make my player").click()
    expect(page.locator("#key-once")).to_be_visible()
    assert_accessible(page, "a player's key shown once")
    page.get_by_role("button", name="I have kept my key").click()
    page.locator("#other-device summary").click()
    expect(page.locator("#sign-in-qr")).to_be_visible()
    assert_accessible(page, "signing in on another device")
    expect(page.locator("#my-games")).to_contain_text("No game yet")
    page.get_by_label("Seat 2", exact=True).select_option("easy")
    page.get_by_role("button", name="Create table").click()
    expect(page.locator("#app")).to_have_attribute("data-screen", "game")
    page.get_by_role("button", name="My games").click()
    expect(page.locator("#my-games")).to_contain_text("Classic with Easy bot")
    assert_accessible(page, "my games")
    assert ann.errors == []
    ann.close()

"""The play page signed in as a player (docs/play.md, "Players"), in Debian's Chromium against a
live app: a player made on the page, its key shown once (copied, then gone from the page for
good), the same player on a second device by a pasted key (a wrong one told clearly) and on a
third by the sign-in link's ``#key=`` (taken out of the address bar), the QR code of that link,
"My games" on every device updated live from the player's stream when a table against a bot is
made on another, and that game opened from the list and played with the key alone (no seat token
ever held, the key in no URL). Every wait is for a condition on the page.

Screenshots go to ``tests/artifacts/play/`` (git-ignored): ``players-*``."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Request, expect

from tests.service.play import test_play_page as play
from tests.service.play.test_play_edges import assert_accessible
from tests.service.play.test_play_page import (
    DESKTOP,
    PHONE,
    WAIT_MS,
    Person,
    needs_chromium,
    play_one_turn,
)
from tests.service.players.test_players import new_player, play_to_end
from tests.service.ratings.test_ratings_api import board, rated_game
from tests.waiting import WAIT_SECONDS, eventually

browser = play.browser  # this module's own browser (a module-scoped fixture)
base = play.base  # a live app of its own per test
# One worker runs the module: its tests share one browser.
pytestmark = pytest.mark.xdist_group("test_play_players")

KEY = re.compile(r"^ttp_[A-Za-z0-9_-]{43}$")


class Device(Person):
    """A person's browser on the page, with every request it sent (its URL and Authorization)."""

    def __init__(self, browser: Browser, base: str, viewport: Any, *, at: str = "/play") -> None:
        super().__init__(browser, base, viewport)
        self.sent: list[tuple[str, str | None]] = []
        self.page.on("request", self._sent)
        if at != "/play":  # a first load at that address, not a move within the page
            self.page.goto("about:blank")
            self.page.goto(f"{base}{at}")

    def _sent(self, request: Request) -> None:
        self.sent.append((request.url.split("#")[0], request.headers.get("authorization")))

    def kept_key(self) -> str | None:
        key: str | None = self.page.evaluate("localStorage.getItem('three-thirteen-player-key')")
        return key

    def signed_in_as(self, name: str) -> None:
        expect(self.page.locator("#player-name")).to_have_text(name, timeout=WAIT_MS)
        expect(self.page.locator("#signed-in")).to_be_visible()
        expect(self.page.locator("#my-games-panel")).to_be_visible()

    def my_game(self, game_id: str) -> Any:
        return self.page.locator(f"#my-games li[data-game-id='{game_id}']")


def key_is_nowhere_in(page: Page, key: str) -> bool:
    """Not in the document, not in a form field's value, not in the address."""
    values: list[str] = page.evaluate(
        "[...document.querySelectorAll('input, textarea')].map(e => e.value)"
    )
    return key not in page.content() and key not in "".join(values) and key not in page.url


def make_player_on_the_page(ann: Device, base: str) -> str:
    """Ann makes a player named Ann: the key is shown once, with its warning and a button that
    copies it, then gone from the page once she says it is kept. Answers the key."""
    page = ann.page
    page.get_by_label("Your player's name").fill("Ann")
    page.get_by_role("button", name="Make my player").click()
    once = page.locator("#key-once")
    expect(once).to_be_visible(timeout=WAIT_MS)
    expect(once).to_contain_text("shown only this once")
    expect(once).to_contain_text("whoever has it plays as you")
    key = page.locator("#key-once-value").inner_text()
    assert KEY.match(key), key
    assert ann.kept_key() == key
    expect(page.get_by_role("button", name="Copy key")).to_be_focused()
    page.get_by_role("button", name="Copy key").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == key
    ann.screenshot("players-key-once-desktop", DESKTOP)
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        me = api.get("/v1/players/me", headers={"Authorization": f"Bearer {key}"}).json()
    assert me["name"] == "Ann"
    expect(page.locator("#player-id")).to_have_text(me["player_id"])
    page.get_by_role("button", name="I have kept my key").click()
    expect(once).to_be_hidden()
    assert key_is_nowhere_in(page, key)
    return key


def sign_in_link_and_its_code(ann: Device, base: str, key: str) -> None:
    """The sign-in link is copied (never shown), and drawn as a QR code: an image of the
    service's SVG."""
    page = ann.page
    page.locator("#other-device summary").click()
    qr = page.locator("#sign-in-qr")
    expect(qr).to_be_visible(timeout=WAIT_MS)
    assert (qr.get_attribute("src") or "").startswith("data:image/svg+xml;base64,")
    page.wait_for_function("document.getElementById('sign-in-qr').naturalWidth > 0")
    page.get_by_role("button", name="Copy sign-in link").click()
    expect(page.locator("#player-status")).to_contain_text("Sign-in link copied")
    assert page.evaluate("navigator.clipboard.readText()") == f"{base}/play#key={key}"
    assert key_is_nowhere_in(page, key)


def sign_in_with_a_pasted_key(phone: Device, key: str) -> None:
    """A mistyped key is refused with a clear message; the right one (spaces around it, as
    pasted) signs in."""
    form = phone.page.locator("#use-key")
    field = form.get_by_label("Use a key from another device")
    field.fill(key[:-1] + ("A" if key[-1] != "A" else "B"))
    form.get_by_role("button", name="Sign in with the key").click()
    refused = phone.page.get_by_role("alert").filter(has_text="No player has this key")
    expect(refused).to_be_visible(timeout=WAIT_MS)
    expect(field).to_have_attribute("aria-invalid", "true")
    assert phone.kept_key() is None
    phone.errors.clear()  # the browser logs the 401 itself
    field.fill(f" {key} ")
    form.get_by_role("button", name="Sign in with the key").click()
    phone.signed_in_as("Ann")
    assert phone.kept_key() == key
    assert key_is_nowhere_in(phone.page, key)


@needs_chromium
def test_a_player_made_on_the_page_signs_in_on_other_devices_by_key_and_by_link(
    browser: Browser, base: str
) -> None:
    ann = Device(browser, base, DESKTOP)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    key = make_player_on_the_page(ann, base)

    # A reload: still Ann, and the key is shown no more.
    ann.page.reload()
    ann.signed_in_as("Ann")
    expect(ann.page.locator("#my-games")).to_contain_text("No game yet")
    assert key_is_nowhere_in(ann.page, key)
    sign_in_link_and_its_code(ann, base, key)
    ann.screenshot("players-signed-in-desktop", DESKTOP)

    phone = Device(browser, base, PHONE)
    sign_in_with_a_pasted_key(phone, key)
    phone.screenshot("players-phone", PHONE)

    # A third device, by the link: signed in, the fragment gone from the address bar.
    tablet = Device(browser, base, PHONE, at=f"/play#key={key}")
    tablet.signed_in_as("Ann")
    assert tablet.page.url == f"{base}/play"
    assert tablet.page.evaluate("location.hash") == ""
    assert key_is_nowhere_in(tablet.page, key)

    # Signing out forgets the key on that device only.
    tablet.page.once("dialog", lambda dialog: dialog.accept())
    tablet.page.get_by_role("button", name="Sign out").click()
    expect(tablet.page.get_by_role("button", name="Make my player")).to_be_visible()
    expect(tablet.page.locator("#my-games-panel")).to_be_hidden()
    assert tablet.kept_key() is None
    phone.page.reload()
    phone.signed_in_as("Ann")

    for device in (ann, phone, tablet):
        assert all(key not in url for url, _ in device.sent), "the key went in a URL"
        assert device.errors == []
        device.close()


@needs_chromium
def test_my_games_follow_the_player_and_a_game_from_the_list_is_played_with_the_key_alone(
    browser: Browser, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        made = api.post("/v1/players", json={"name": "Bea"}).json()
        key = made["key"]
        desk = Device(browser, base, DESKTOP, at=f"/play#key={key}")
        desk.signed_in_as("Bea")
        phone = Device(browser, base, PHONE, at=f"/play#key={key}")
        phone.signed_in_as("Bea")
        expect(phone.page.locator("#my-games")).to_contain_text("No game yet")

        # A table against an easy bot made on the desk, signed in: no name asked, the seat is
        # Bea's, and the phone's list shows it at once, from the player's stream.
        expect(desk.page.locator("#create .name-field")).to_be_hidden()
        desk.page.get_by_label("Seat 2", exact=True).select_option("easy")
        desk.page.get_by_role("button", name="Create table").click()
        expect(desk.page.locator("#app")).to_have_attribute("data-screen", "game", timeout=WAIT_MS)
        expect(desk.page.locator("#players")).to_contain_text("Bea (you)")
        game_id = desk.app["gameId"]
        listed = phone.my_game(game_id)
        expect(listed).to_be_visible(timeout=WAIT_MS)
        expect(listed).to_contain_text("Classic with Easy bot")
        games = api.get("/v1/players/me/games", headers={"Authorization": f"Bearer {key}"})
        assert [g["game_id"] for g in games.json()["games"]] == [game_id]
        desk.close()

        # Whose turn it is, as the service says, and the phone's list says the same.
        mine = games.json()["games"][0]
        expect(listed).to_have_attribute("data-my-turn", "true" if mine["my_turn"] else "false")
        phone.page.locator("#my-games li.your-turn").first.wait_for(timeout=WAIT_MS)
        expect(listed).to_contain_text("Your turn")
        phone.screenshot("players-my-games-phone", PHONE)

        # Opened from the list, the game is played with the key alone: the tab holds no seat
        # token, and every request to the game carries the key.
        listed.get_by_role("button").click()
        expect(phone.page.locator("#app")).to_have_attribute("data-game-id", game_id)
        kept = phone.page.evaluate("JSON.parse(sessionStorage.getItem('three-thirteen-seat'))")
        assert kept == {"gameId": game_id, "seat": 0, "byKey": True}
        for _ in range(2):
            phone.wait_for_turn_at(phone.version())
            play_one_turn(phone, api)
        # (The game's EventSource sends no Authorization: its URL carries a stream key.)
        to_game = [
            auth
            for url, auth in phone.sent
            if f"/v1/games/{game_id}" in url and not url.split("?")[0].endswith("/events")
        ]
        assert len(to_game) >= 6  # the view, the stream's URL, two draws and two discards
        assert set(to_game) == {f"Bearer {key}"}
        phone.screenshot("players-game-phone", PHONE)

        # Back to the list without leaving: the game is still Bea's, a round further on.
        phone.page.get_by_role("button", name="My games").click()
        expect(phone.page.locator("#app")).to_have_attribute("data-screen", "start")
        expect(phone.my_game(game_id)).to_be_visible(timeout=WAIT_MS)
        view = api.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {key}"}).json()
        assert view["status"] == "playing"
        assert view["version"] >= 4
    assert all(key not in url for url, _ in phone.sent)
    assert phone.errors == []
    phone.close()


@needs_chromium
def test_a_challenge_declined_then_accepted_and_quick_play_open_the_game_on_both_pages(
    browser: Browser, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        ann_made = api.post("/v1/players", json={"name": "Ann"}).json()
        bob_made = api.post("/v1/players", json={"name": "Bob"}).json()
    ann = Device(browser, base, DESKTOP, at=f"/play#key={ann_made['key']}")
    ann.signed_in_as("Ann")
    bob = Device(browser, base, PHONE, at=f"/play#key={bob_made['key']}")
    bob.signed_in_as("Bob")

    def challenge_bob() -> None:
        form = ann.page.locator("#challenge")
        form.get_by_label("Whom").select_option("player")
        form.get_by_role("textbox", name="Player id").fill(bob_made["player_id"])
        form.get_by_role("button", name="Send challenge").click()
        expect(ann.page.locator("#my-challenge-status")).to_contain_text(
            "Waiting: your challenge to Bob", timeout=WAIT_MS
        )

    # Bob is told of the challenge by his stream, and declines it with a reason Ann reads.
    challenge_bob()
    incoming = bob.page.locator("#incoming li.challenge")
    expect(incoming).to_have_count(1, timeout=WAIT_MS)
    expect(incoming).to_contain_text("Ann challenges you: Classic")
    bob.screenshot("players-challenged-phone", PHONE)
    incoming.get_by_label("Why you decline").select_option("later")
    bob.page.get_by_role("button", name="Decline Ann's challenge").click()
    expect(incoming).to_have_count(0, timeout=WAIT_MS)
    expect(ann.page.locator("#my-challenge-status")).to_contain_text(
        "declined: “Not now, later”", timeout=WAIT_MS
    )

    # Again: Bob accepts, and both pages open the game, dealt.
    challenge_bob()
    expect(incoming).to_have_count(1, timeout=WAIT_MS)
    bob.page.get_by_role("button", name="Accept Ann's challenge").click()
    for person in (ann, bob):
        expect(person.page.locator("#app")).to_have_attribute(
            "data-status", "playing", timeout=WAIT_MS
        )
    assert ann.app["gameId"] == bob.app["gameId"]
    expect(bob.page.locator("#players")).to_contain_text("Ann")
    first_game = ann.app["gameId"]

    # Quick play: Ann looks for a table of three and stops; then both look for a table of two,
    # and the match opens the same game on both pages.
    for person in (ann, bob):
        person.page.get_by_role("button", name="My games").click()
        expect(person.page.locator("#app")).to_have_attribute("data-screen", "start")
    quick = ann.page.locator("#quick-play")
    quick.get_by_label("Players").select_option("3")
    quick.get_by_role("button", name="Find a game").click()
    expect(ann.page.locator("#seek-status")).to_contain_text("Looking for a table", timeout=WAIT_MS)
    ann.screenshot("players-quick-play-desktop", DESKTOP)
    ann.page.get_by_role("button", name="Stop looking").click()
    expect(ann.page.locator("#seek-status")).to_have_text("Stopped looking.", timeout=WAIT_MS)
    quick.get_by_label("Players").select_option("2")
    for person in (ann, bob):
        person.page.locator("#quick-play").get_by_role("button", name="Find a game").click()
    for person in (ann, bob):
        expect(person.page.locator("#app")).to_have_attribute(
            "data-status", "playing", timeout=WAIT_MS
        )
    assert ann.app["gameId"] == bob.app["gameId"] != first_game
    for person in (ann, bob):
        assert person.errors == []
        person.close()


@needs_chromium
def test_the_leaderboard_shows_rated_players_and_marks_the_one_signed_in(
    browser: Browser, base: str
) -> None:
    """Ann and Bob play one rated game over HTTP: the page's leaderboard shows them among the
    new players, in the API's order, Ann's row marked as hers; the established board and
    another preset say nobody is rated there yet."""
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        ann, bob = (new_player(api, name) for name in ("Ann", "Bob"))
        game_id = rated_game(api, ann, bob)
        play_to_end(api, game_id, [ann["key"], bob["key"]])  # the challenger sits first
        ranked = eventually(
            lambda: board(api, provisional=True)["players"],
            "the rated game on the board",
            until=lambda players: len(players) == 2,
        )
    names = [player["name"] for player in ranked]

    page = Device(browser, base, DESKTOP, at=f"/play#key={ann['key']}")
    page.signed_in_as("Ann")
    board_rows = page.page.locator("#board-rows tr")
    expect(page.page.locator("#board-note")).to_contain_text("No established players")
    page.page.get_by_label("New players (fewer than 10 rated games)").check()
    expect(board_rows).to_have_count(2)
    for index, name in enumerate(names):
        expect(board_rows.nth(index)).to_contain_text(name)
    mine = page.page.locator("#board-rows tr[aria-current='true']")
    expect(mine).to_have_attribute("data-player-id", ann["player_id"])
    expect(mine).to_contain_text("Ann, you")
    # Bob's name opens his rating history: one rated game, its rating his board's.
    page.page.get_by_role("button", name="Bob: rating history").click()
    history = page.page.locator("#board-history")
    expect(history).to_be_visible()
    expect(history).to_contain_text("Bob's rating, Classic, after their one rated game")
    bob_rating = next(p["rating"] for p in ranked if p["player_id"] == bob["player_id"])
    expect(history.locator("svg title")).to_have_text(
        f"Bob: from {bob_rating:.1f} to {bob_rating:.1f}"
    )
    page.screenshot("players-leaderboard", DESKTOP)
    assert_accessible(page.page, "the leaderboard and a player's rating history")
    page.page.locator("#board-preset").select_option("online")
    expect(page.page.locator("#board-note")).to_contain_text("No new players")
    expect(board_rows).to_have_count(0)
    assert page.errors == []
    page.close()

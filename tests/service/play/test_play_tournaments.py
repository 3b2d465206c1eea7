"""Tournaments on the play page (docs/play.md, "Tournaments"), in Debian's Chromium against a
live app: a signed-in player makes a tournament of herself and an easy bot with the page's form
(one round at a table of two, the quick rules: a pack of many jokers, so rounds end in a few
turns), the tournament's page opens and shows her table once the round is paired (told by her
stream), her game opens from it and she plays it to the end by the page, and back on the
tournament's page it is finished, with its standings, crosstable and round; the game is watched
again from there, and the start screen's list has it among the finished ones. axe-core finds
nothing serious on the screens.

Screenshots go to ``tests/artifacts/play/`` (git-ignored): ``tournament-*``."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from tests.service.play import test_play_page as play
from tests.service.play.test_play_edges import assert_accessible
from tests.service.play.test_play_page import DESKTOP, PHONE, TURNS_AT_MOST, WAIT_MS, needs_chromium
from tests.service.play.test_play_players import Device
from tests.waiting import WAIT_SECONDS

browser = play.browser  # this module's own browser (a module-scoped fixture)
base = play.base  # a live app of its own per test
pytestmark = pytest.mark.xdist_group("test_play_tournaments")

QUICK_RULES = {"preset": "classic", "jokers": 40}
"""The rules of the form's "Quick" box on Classic, which the analyser is asked under."""


def signed_in_device(
    browser: Browser, base: str, api: httpx.Client, name: str, viewport: ViewportSize
) -> Device:
    """A new player's page, signed in by its sign-in link."""
    made = api.post("/v1/players", json={"name": name}).json()
    device = Device(browser, base, viewport, at=f"/play#key={made['key']}")
    device.signed_in_as(name)
    return device


def play_quick_turn(person: Device, api: httpx.Client) -> None:
    """Draws from the stock by clicking it, then goes out if the page offers it, else clicks the
    card the analyser would discard under the quick rules."""
    page = person.page
    before = person.version()
    page.get_by_role("button", name="Stock").click()
    person.wait_for_newer(before)
    expect(page.locator("#app")).to_have_attribute("data-act", "discard")
    drawn = person.version()
    go_out = page.locator("#go-out button")
    if go_out.count():
        go_out.first.click()
    else:
        hand = page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
        asked = {"hand": hand, "wild": person.app["wild"], "rules": QUICK_RULES}
        card = api.post("/v1/analyse", json=asked).json()["suggested_discard"]
        page.locator(f"#hand .card[data-card='{card}']").first.click()
    person.wait_for_newer(drawn)


def make_tournament_on_the_page(ann: Device) -> None:
    form = ann.page.locator("#tournament-create")
    expect(form).to_be_visible()
    form.get_by_label("Tournament name").fill("Friday cup")
    form.get_by_label("Format").select_option("round_robin")
    form.get_by_label("Rounds to play").fill("1")
    form.get_by_label("Players at a table").select_option("2")
    form.get_by_label("Rules").select_option("classic")
    form.get_by_label("Quick: 40 jokers in the pack").check()
    expect(form.get_by_label("Rated: the games move the players' ratings")).to_be_disabled()
    form.get_by_label("Me and these bots, starting now:").check()
    form.get_by_label("Easy bot").check()
    ann.screenshot("tournament-form-desktop", DESKTOP)
    form.get_by_role("button", name="Create tournament").click()


def play_her_game_from_the_tournament(ann: Device, api: httpx.Client) -> str:
    """Ann opens her table from the tournament's page and plays it to the end: its game id."""
    page = ann.page
    page.get_by_role("button", name="Play your game").click()
    expect(page.locator("#app")).to_have_attribute("data-screen", "game")
    expect(page.locator("#players")).to_contain_text("Ann (you)")
    game_id = ann.app["gameId"]
    for _ in range(TURNS_AT_MOST):
        ann.wait_for_turn_or_end()
        if ann.app["status"] == "finished":
            break
        play_quick_turn(ann, api)
    assert ann.app["status"] == "finished"
    assert api.get(f"/v1/games/{game_id}").json()["status"] == "finished"
    return game_id


def assert_finished_on_its_page(ann: Device, api: httpx.Client, game_id: str) -> str:
    """The tournament's page after the game: finished, its standings as the API has them (Ann's
    row marked), the crosstable, the round with the game's totals. Its id."""
    page = ann.page
    page.get_by_role("button", name="Back to the tournament").click()
    expect(page.locator("#app")).to_have_attribute("data-screen", "tournament")
    expect(page.locator("#tournament")).to_have_attribute("data-status", "finished")
    expect(page.locator("#tournament-status")).to_contain_text("Finished:")
    tournament_id = page.locator("#tournament").get_attribute("data-tournament-id") or ""
    result = api.get(f"/v1/tournaments/{tournament_id}").json()
    assert result["status"] == "finished"
    rows = page.locator("#tournament-standings-rows tr")
    expect(rows).to_have_count(2)
    for index, standing in enumerate(result["standings"]):
        expect(rows.nth(index)).to_have_attribute("data-player-id", standing["player_id"])
        expect(rows.nth(index).locator("td").nth(2)).to_have_text(f"{standing['points']:g}")
    mine = page.locator("#tournament-standings-rows tr[aria-current='true']")
    expect(mine).to_contain_text("Ann (you)")
    expect(page.locator("#tournament-crosstable tbody tr")).to_have_count(2)
    [pairing] = result["rounds"][0]["pairings"]
    seat = next(s for s, p in enumerate(pairing["players"]) if not p.startswith("bot-"))
    table = page.locator(f"#tournament-rounds li[data-game-id='{game_id}']")
    expect(table).to_contain_text(f"Ann (you) {pairing['scores'][seat]}")
    expect(page.locator("#tournament-rounds h4")).to_have_text("Round 1: finished")
    return tournament_id


def watch_it_again(ann: Device, game_id: str) -> None:
    """The game watched from the tournament's page: the public view, finished, no seat to
    leave, no rematch to ask; then back."""
    page = ann.page
    table = page.locator(f"#tournament-rounds li[data-game-id='{game_id}']")
    table.get_by_role("button", name="Watch the game again: table 1").click()
    expect(page.locator("#app")).to_have_attribute("data-screen", "game")
    expect(page.locator("#app")).to_have_attribute("data-status", "finished")
    expect(page.locator("#winners")).to_be_visible()
    expect(page.get_by_role("button", name="Rematch")).to_be_hidden()
    expect(page.get_by_role("button", name="Leave table")).to_be_hidden()
    page.get_by_role("button", name="Back to the tournament").click()
    expect(page.locator("#app")).to_have_attribute("data-screen", "tournament")


@needs_chromium
def test_a_player_makes_a_tournament_plays_her_table_from_its_page_and_sees_it_finished(
    browser: Browser, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        ann = signed_in_device(browser, base, api, "Ann", DESKTOP)
        page = ann.page
        expect(page.locator("#tournament-lists")).to_have_attribute("data-loaded", "true")
        make_tournament_on_the_page(ann)

        # Its page: running once round 1 is paired, Ann's table offered to her.
        expect(page.locator("#app")).to_have_attribute("data-screen", "tournament")
        expect(page.get_by_role("heading", level=2, name="Friday cup")).to_be_visible()
        expect(page.locator("#tournament-status")).to_have_text("Running: round 1 of 1.")
        expect(page.locator("#tournament-facts")).to_contain_text("Round robin")
        expect(page.locator("#tournament-facts")).to_contain_text("unrated")
        expect(page.locator("#tournament-entrants li")).to_have_count(2)
        expect(page.locator("#tournament-entrants")).to_contain_text("Ann (you)")
        expect(page.get_by_role("button", name="Play your game")).to_be_visible()
        ann.screenshot("tournament-running-desktop", DESKTOP)
        assert_accessible(page, "a running tournament")

        game_id = play_her_game_from_the_tournament(ann, api)
        tournament_id = assert_finished_on_its_page(ann, api, game_id)
        ann.screenshot("tournament-finished-desktop", DESKTOP)
        ann.screenshot("tournament-finished-phone", PHONE)
        assert_accessible(page, "a finished tournament")
        watch_it_again(ann, game_id)

        # The start screen's list has it among the finished.
        page.get_by_role("button", name="All tournaments").click()
        finished = page.locator("#tournament-lists ul[data-status='finished']")
        expect(finished.locator(f"li[data-tournament-id='{tournament_id}']")).to_contain_text(
            "Friday cup", timeout=WAIT_MS
        )
        assert_accessible(page, "the start screen with tournaments")
    assert ann.errors == []
    ann.close()


@needs_chromium
def test_a_player_joins_and_leaves_an_open_tournament_from_its_page(
    browser: Browser, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        bob = api.post("/v1/players", json={"name": "Bob"}).json()
        opened = api.post(
            "/v1/tournaments",
            json={"name": "Open cup", "format": "swiss"},
            headers={"Authorization": f"Bearer {bob['key']}"},
        )
        assert opened.status_code == 201, opened.text
        tournament_id = opened.json()["tournament_id"]
        ann = signed_in_device(browser, base, api, "Ann", PHONE)
    page = ann.page
    listed = page.locator(
        f"#tournament-lists ul[data-status='open'] li[data-tournament-id='{tournament_id}']"
    )
    expect(listed).to_contain_text("Open cup: Swiss, 0 entrants")
    listed.get_by_role("button").click()
    expect(page.locator("#app")).to_have_attribute("data-screen", "tournament")
    expect(page.locator("#tournament-status")).to_contain_text("Open for entries until")
    expect(page.locator("#tournament-entrants")).to_have_text("Nobody yet.")
    expect(page.get_by_role("button", name="Leave the tournament")).to_be_hidden()
    page.get_by_role("button", name="Join the tournament").click()
    expect(page.locator("#tournament-entrants li")).to_have_text(["Ann (you)"])
    expect(page.get_by_role("button", name="Join the tournament")).to_be_hidden()
    ann.screenshot("tournament-open-phone", PHONE)
    assert_accessible(page, "an open tournament")
    page.get_by_role("button", name="Leave the tournament").click()
    expect(page.locator("#tournament-entrants")).to_have_text("Nobody yet.")
    expect(page.get_by_role("button", name="Join the tournament")).to_be_visible()
    assert ann.errors == []
    ann.close()

"""The play page (``GET /play``) plays speed games and shows a finished game's review, in Debian's
headless Chromium driven by Playwright against a live app.

A person creates a speed table against three bots from the start form and plays it to its end
by clicking (each call: the stock, then a card or going out), then opens the review from the
finished game's screen (its first answer a busy service's 503, which the page waits out).
Another game, two people and a pack full of jokers, shows what the call looks like while it is
open: the countdown, who has chosen, the person's pending choice and a change of it, a joker
discarded onto the other seat's pile, the hint (a quiet 409 while the service has no hint for
speed games), and each call's result as the stream reports it.

Screenshots of the call and of the review at 390x844 and 1280x800 go to ``tests/artifacts/play/``
(git-ignored). Every wait is for a condition on the page, never for a duration."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from litestar import Litestar
from playwright.sync_api import Browser, Page, Route, expect

from service.app import create_app
from service.settings import Settings
from tests.service.play import test_play_page as play
from tests.service.play.test_play_page import (
    CARD_CODE,
    DESKTOP,
    PHONE,
    WAIT_MS,
    Person,
    needs_chromium,
)
from tests.service.records.test_reviews import reviewed
from tests.waiting import WAIT_SECONDS, eventually

browser = play.browser  # this module's own browser (a module-scoped fixture)
pytestmark = pytest.mark.xdist_group("test_play_speed")

CHOICES_AT_MOST = 600
"""A bound on the person's choices in one speed game, far above any real game's."""
SEAT_KEY = "three-thirteen-seat"
"""Where the page keeps its seat in the tab's session storage (seat.js)."""


@pytest.fixture
def base(live_server_for: Callable[[Litestar], str]) -> str:
    return live_server_for(create_app(Settings()))


def screenshots(person: Person, name: str) -> None:
    """The whole page at the desktop's size and the phone's; on the phone nothing is wider than
    the screen (tables scroll inside their panels)."""
    person.screenshot(f"{name}-desktop", DESKTOP)
    person.page.set_viewport_size(PHONE)
    width: int = person.page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page is {width} px wide on a phone"
    person.screenshot(f"{name}-phone", PHONE)
    person.page.set_viewport_size(DESKTOP)


def create_speed_table(person: Person, name: str, bots: list[str], call_seconds: str) -> None:
    """A speed table of ``name`` and the ``bots``, from the start form."""
    page = person.page
    page.get_by_label("Your name").first.fill(name)
    for seat, bot in enumerate(bots, start=2):
        if seat > 2:
            page.get_by_role("button", name="Add a seat").click()
        page.get_by_label(f"Seat {seat}", exact=True).select_option(bot)
    expect(page.get_by_label("Call clock")).to_be_hidden()
    page.get_by_role("radio", name=re.compile("^Speed")).check()
    expect(page.get_by_label("Turn clock")).to_be_hidden()
    page.get_by_label("Call clock").select_option(call_seconds)
    page.get_by_role("button", name="Create table").click()


NEXT_CHOICE = """previous => {
  const app = {...document.getElementById('app').dataset};
  if (app.status === 'finished') return app;
  const choosing = app.chosen === 'false' && /\\b(draw|discard)\\b/.test(app.act);
  if (app.call === previous || !choosing) return null;
  const hand = [...document.querySelectorAll('#hand .card')].map((card) => card.dataset.card);
  const out = [...document.querySelectorAll('#players li')]
    .filter((li) => /went out/.test(li.textContent));
  return {
    ...app, hand, goOut: document.querySelectorAll('#go-out button').length,
    out: out.length, outChoosing: out.filter((li) => li.matches('.choosing, .has-chosen')).length,
  };
}"""
"""The page's state once a call other than ``previous`` waits for the person's choice (or the
game is over): the app's data attributes, the hand, how many go-out buttons there are, how many
players are shown as gone out and how many of those as choosing (none should be)."""


def next_choice(page: Page, previous: str | None) -> dict[str, Any]:
    handle = page.wait_for_function(NEXT_CHOICE, arg=previous, timeout=WAIT_MS)
    state: dict[str, Any] = handle.json_value()
    return state


def choose(page: Page, api: httpx.Client, state: dict[str, Any], rules: Any = "classic") -> None:
    """The person's choice in the open call, by clicking: the stock in a draw call; going out if
    the page offers it, else the card the analyser would discard under the game's ``rules``."""
    if "draw" in state["act"].split():
        page.get_by_role("button", name="Stock").click()
    elif state["goOut"]:
        page.locator("#go-out button").first.click()
    else:
        advice = api.post(
            "/v1/analyse", json={"hand": state["hand"], "wild": state["wild"], "rules": rules}
        )
        assert advice.status_code == 200, advice.text
        card = advice.json()["suggested_discard"]
        page.locator(f"#hand .card[data-card='{card}']").first.click()


def play_speed_game_to_the_end(person: Person, api: httpx.Client, rules: Any) -> int:
    """Every call the person has a choice in, until the game is over; how many choices."""
    page = person.page
    shot = False
    previous = None
    calls_after_a_go_out = 0
    for choices in range(CHOICES_AT_MOST):
        state = next_choice(page, previous)
        if state["status"] == "finished":
            assert calls_after_a_go_out > 0  # the last calls of a round, after a go-out
            return choices
        assert state["outChoosing"] == 0, "a seat that went out is shown choosing"
        if int(state["call"].split(":")[1]) <= 2:  # nobody can have gone out yet in this round
            assert state["out"] == 0, f"a seat is shown gone out at call {state['call']}"
        calls_after_a_go_out += state["out"] > 0
        if not shot and state["call"].startswith("3:"):
            # Round 3: the call's line, the players who have chosen, a round result beside.
            expect(page.locator("#call .call-clock")).to_have_text(re.compile(r"^\d+:\d\d left$"))
            screenshots(person, "speed-game")
            shot = True
        choose(page, api, state, rules)
        previous = state["call"]
    raise AssertionError(f"no end after {CHOICES_AT_MOST} choices")


@needs_chromium
def test_a_person_creates_a_speed_table_from_the_form_and_plays_its_first_calls(
    browser: Browser, base: str
) -> None:
    ann = Person(browser, base, DESKTOP)
    page = ann.page
    # The longest call clock the form offers: on a busy machine no call runs out on the test.
    create_speed_table(ann, "Ann", ["easy", "normal", "hard"], "90")
    expect(page.locator("#app")).to_have_attribute("data-screen", "game", timeout=WAIT_MS)
    expect(page.locator("#call")).to_contain_text("Call 1 · everyone draws")
    expect(page.locator("#call .call-clock")).to_have_text(re.compile(r"^1:[0-3]\d left$"))
    expect(page.locator("#turn")).to_contain_text("Choose now")
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        view = api.get(f"/v1/games/{ann.app['gameId']}").json()
        assert view["rules"]["turns"] == "speed"
        assert [p["bot"] for p in view["players"]] == [None, "easy", "normal", "hard"]
        previous = None
        for _ in range(2):  # a draw call, then a discard call
            state = next_choice(page, previous)
            choose(page, api, state)
            previous = state["call"]
    # The calls' results, and nothing else (a choice is only pending until its call ends); more
    # calls follow without Ann when she went out on the second.
    expect(page.locator("#moves")).to_contain_text("Call 2 ended", timeout=WAIT_MS)
    expect(page.locator("#moves")).to_contain_text("Call 1 ended")
    moves = page.locator("#moves li").all_inner_texts()
    assert all(re.match(r"Call \d+ ended: ", move) for move in moves), moves
    assert ann.errors == []
    ann.close()


@needs_chromium
def test_a_person_plays_a_speed_game_against_bots_to_its_end_and_reads_its_review(
    browser: Browser, base: str
) -> None:
    """Two bots and a pack of many jokers (always wild): rounds end after a few calls, so the
    eleven rounds take some thirty choices rather than a hundred and more."""
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        players = [{"name": "Ann"}, {"bot": "easy"}, {"bot": "hard"}]
        rules = {"preset": "classic", "turns": "speed", "jokers": 40}
        body = {"players": players, "rules": rules, "call_seconds": 3600}  # no call runs out
        answer = api.post("/v1/games", json=body)
        assert answer.status_code == 201, answer.text
        ann = open_seat(browser, base, answer.json())
        page = ann.page
        choices = play_speed_game_to_the_end(ann, api, rules)
        game_id = ann.app["gameId"]
        final = api.get(f"/v1/games/{game_id}").json()
        assert final["status"] == "finished"
        assert choices >= 2 * 11  # a draw and a discard in each round at least
        expect(page.locator("#call")).to_be_hidden()
        expect(page.locator("#moves")).to_contain_text("ended")
        winners = page.locator("#winners").inner_text()
        assert all(
            ("You" if s == 0 else final["players"][s]["name"]) in winners for s in final["winners"]
        )

        open_review_through_a_busy_answer(ann)
        review = reviewed(api, f"/v1/games/{game_id}/review").json()
    assert_review_shown(page, review)
    screenshots(ann, "review")
    assert ann.errors == []
    ann.close()


STATUS_TEXTS = """() => {
  window.statusTexts = [];
  const status = document.getElementById('review-status');
  new MutationObserver(() => window.statusTexts.push(status.textContent))
    .observe(status, {childList: true, characterData: true, subtree: true});
}"""
"""Records every text the review's status line shows, however briefly."""
BUSY = {"status": 503, "title": "Service Unavailable", "detail": "the analyses are busy"}


def open_review_through_a_busy_answer(person: Person) -> None:
    """The review's first answer is a busy service's 503 (Retry-After: 1): the page says so, asks
    again and shows the review, its heading focused."""
    page = person.page
    answers: list[str] = []

    def busy_once(route: Route) -> None:
        answers.append(route.request.url)
        if len(answers) == 1:
            route.fulfill(
                status=503,
                headers={"Retry-After": "1"},
                content_type="application/problem+json",
                body=json.dumps(BUSY),
            )
        else:
            route.continue_()

    statuses: list[int] = []
    page.on(
        "response",
        lambda response: (
            statuses.append(response.status) if response.url.endswith("/review") else None
        ),
    )
    page.route("**/review", busy_once)
    page.evaluate(STATUS_TEXTS)
    page.get_by_role("button", name="Review").click()
    expect(page.locator(".review h2")).to_be_focused(timeout=WAIT_MS)
    texts: list[str] = page.evaluate("window.statusTexts")
    assert "Computing the review…" in texts
    busy = "The review is not ready yet (the analyses are busy); asking again in 1 s…"
    assert busy in texts
    # The 503, then the service's 202s while it computes the review (as many as it takes), then
    # the review: asked once per answer, never more.
    assert statuses[0] == 503
    assert statuses[-1] == 200
    assert set(statuses[1:-1]) <= {202}
    assert len(answers) == len(statuses)
    # The browser logs the 503 itself; the page logs nothing.
    assert [e for e in person.errors if "503" not in e] == []
    person.errors.clear()


def assert_review_shown(page: Page, review: dict[str, Any]) -> None:
    """Per seat and per round the accuracy and points lost as the API has them; the person's
    decisions listed with their grade, the choice and the best choice; the filter and the seat
    chooser work from the keyboard."""
    for tally in review["seats"]:
        row = page.locator(f".review-seats tbody tr[data-seat='{tally['seat']}']")
        cells = row.locator("td").all_inner_texts()
        assert cells == [
            f"{round(tally['accuracy'])}%",
            f"{tally['lost']:.1f}",
            str(tally["decisions"]),
        ]
    expect(page.locator(".review-rounds tbody tr")).to_have_count(len(review["rounds"]))
    mine = [d for d in review["decisions"] if d["seat"] == 0]
    expect(page.locator(".review-list .decision")).to_have_count(len(mine))
    grades = page.locator(".review-list .decision").evaluate_all(
        "items => items.map(i => i.dataset.grade)"
    )
    assert grades == [d["grade"] for d in mine]
    costly = [d for d in mine if d["grade"] not in ("best", "good")]
    if costly:
        first = costly[0]
        item = page.locator(
            f".review-round[data-round='{first['round']}'] .decision[data-grade='{first['grade']}']"
        )
        assert "best:" in (item.first.text_content() or "")
    # Round 1's decisions opened with the keyboard; then only the costly ones, then the bot's.
    page.locator(".review-round summary").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".review-round").first).to_have_attribute("open", "")
    page.get_by_label("Only inaccuracies and worse").check()
    expect(page.locator(".review-list .decision")).to_have_count(len(costly))
    page.get_by_label("Decisions of").select_option("1")
    bots = [d for d in review["decisions"] if d["seat"] == 1 and d["grade"] not in ("best", "good")]
    expect(page.locator(".review-list .decision")).to_have_count(len(bots))
    page.get_by_label("Only inaccuracies and worse").uncheck()
    page.get_by_label("Decisions of").select_option("0")


SPEED_RULES = {"preset": "classic", "turns": "speed", "jokers": 40, "joker_discards": "any_pile"}
"""A pack with many jokers, so that a deal soon gives Ann one."""
DEALS_AT_MOST = 40
RANKS = {"T": "10"}
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_text(code: str) -> str:
    """A card as the page writes it in running text (cards.js ``cardText``)."""
    return "Joker" if code == "JK" else RANKS.get(code[0], code[0]) + SUITS[code[1]]


def deal_with_a_joker(api: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """A speed game of Ann and Bob in which Ann's first hand holds a joker and another card:
    the creation's answer and Ann's view."""
    for _ in range(DEALS_AT_MOST):
        answer = api.post(
            "/v1/games",
            json={
                "players": [{"name": "Ann"}, {"name": "Bob"}],
                "rules": SPEED_RULES,
                "call_seconds": 3600,  # no call runs out while the test looks at it
            },
        )
        assert answer.status_code == 201, answer.text
        created: dict[str, Any] = answer.json()
        auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        view: dict[str, Any] = api.get(f"/v1/games/{created['game_id']}", headers=auth).json()
        if "JK" in view["hand"] and set(view["hand"]) != {"JK"}:
            return created, view
    raise AssertionError(f"no joker for Ann in {DEALS_AT_MOST} deals")


def open_seat(browser: Browser, base: str, created: dict[str, Any]) -> Person:
    """Ann's page on a seat created through the API: the tab's stored seat, then a reload."""
    ann = Person(browser, base, DESKTOP)
    open_seat_here(ann, created)
    return ann


def open_seat_here(person: Person, created: dict[str, Any]) -> None:
    """The first seat of a game created through the API, on ``person``'s page."""
    seat = {"gameId": created["game_id"], "token": created["seats"][0]["token"], "seat": 0}
    person.page.evaluate(
        "([key, seat]) => sessionStorage.setItem(key, seat)", [SEAT_KEY, json.dumps(seat)]
    )
    person.page.reload()
    expect(person.page.locator("#app")).to_have_attribute("data-screen", "game", timeout=WAIT_MS)


CHOSEN = re.compile(r"\bchosen\b")


@needs_chromium
def test_the_call_shows_the_clock_who_chose_and_a_choice_that_can_change_until_it_ends(
    browser: Browser, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        created, first = deal_with_a_joker(api)
        game = f"/v1/games/{created['game_id']}"
        bob = {"Authorization": f"Bearer {created['seats'][1]['token']}"}
        ann_auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        ann = open_seat(browser, base, created)
        call = ann.page.locator("#call")
        expect(call).to_contain_text("Call 1 · everyone draws")
        expect(call.locator(".call-clock")).to_have_text(re.compile(r"^(60:00|59:5\d) left$"))
        expect(ann.page.locator("#players li[data-seat='1']")).to_have_class(
            re.compile(r"\bchoosing\b")
        )
        choose_and_change_a_draw(ann)
        held = api.get(game, headers=ann_auth).json()["call"]["choice"]
        assert held == {"type": "draw", "source": "discard", "pile": 1}
        screenshots(ann, "speed-call")
        assert_hint_answered(ann, api.get(f"{game}/hint", headers=ann_auth))
        # The hint's answer holds for the call: choices in it make new versions, not a new call.
        said = ann.page.locator("#hint").inner_text()
        ann.page.get_by_role("button", name="Stock").click()
        expect(call.locator(".call-choice")).to_contain_text("Draw from the stock", timeout=WAIT_MS)
        expect(ann.page.locator("#hint")).to_have_text(said)
        ann.page.get_by_role("button", name=re.compile("^Bob pile")).click()
        expect(call.locator(".call-choice")).to_contain_text("Bob's discard pile", timeout=WAIT_MS)

        # Bob chooses: the call ends, and its result is shown as the stream reports it.
        bobs_draw = {"type": "draw", "source": "stock"}
        assert api.post(f"{game}/actions", headers=bob, json=bobs_draw).status_code == 200
        expect(call).to_contain_text("Call 2 · everyone discards", timeout=WAIT_MS)
        last = call.locator(".call-last")
        expect(last).to_contain_text("Call 1 ended: ")
        top = card_text(first["discard_tops"][1])
        expect(last).to_contain_text(f"You took {top} from Bob's discard pile")
        expect(last).to_contain_text("Bob drew a card from the stock")
        expect(ann.page.locator("#moves li").first).to_contain_text("Call 1 ended")

        choose_the_joker_onto_bobs_pile(ann, next(c for c in first["hand"] if c != "JK"))
        bobs = next(e for e in api.get(game, headers=bob).json()["legal"] if e.get("pile") is None)
        assert api.post(f"{game}/actions", headers=bob, json=bobs).status_code == 200
        expect(call).to_contain_text("Call 3 · everyone draws", timeout=WAIT_MS)
        expect(last).to_contain_text("You discarded Joker")
        ends = [e["action"] for e in api.get(f"{game}/log").json()["entries"] if e["seat"] == -1]
        anns = [move for move in ends[-1]["moves"] if move["seat"] == 0]
        assert [(m["card"], m["action"]["pile"]) for m in anns] == [("JK", 1)]
    assert ann.errors == []
    ann.close()


def choose_and_change_a_draw(ann: Person) -> None:
    """The stock, then Bob's pile in the same call: the page shows the choice that holds."""
    page = ann.page
    choice = page.locator("#call .call-choice")
    page.get_by_role("button", name="Stock").click()
    expect(choice).to_contain_text("Your choice: Draw from the stock", timeout=WAIT_MS)
    expect(page.locator("#players li[data-seat='0']")).to_have_class(re.compile(r"\bhas-chosen\b"))
    expect(page.locator("#piles [data-pile=stock] .card")).to_have_class(CHOSEN)
    page.get_by_role("button", name=re.compile("^Bob pile")).click()
    expect(choice).to_contain_text("Your choice: Take from Bob's discard pile", timeout=WAIT_MS)
    expect(page.locator("#piles [data-pile='discard-1'] .card")).to_have_class(CHOSEN)
    expect(page.locator("#piles [data-pile=stock] .card")).not_to_have_class(CHOSEN)


def choose_the_joker_onto_bobs_pile(ann: Person, plain: str) -> None:
    """The joker onto Bob's pile is a button of its own; the card ``plain`` of the hand replaces
    that choice, and the joker's button, pressed with the keyboard, replaces it again."""
    page = ann.page
    choice = page.locator("#call .call-choice")
    joker = page.get_by_role("button", name="Discard Joker onto Bob's discard pile")
    joker.click()
    expect(choice).to_contain_text("Your choice: Discard Joker onto Bob's", timeout=WAIT_MS)
    expect(joker).to_have_attribute("aria-pressed", "true")
    card = page.locator(f"#hand .card[data-card='{plain}']").first
    card.click()
    expect(joker).to_have_attribute("aria-pressed", "false", timeout=WAIT_MS)
    expect(choice).to_contain_text(f"Your choice: Discard {card_text(plain)}", timeout=WAIT_MS)
    expect(card).to_have_class(CHOSEN)
    joker.focus()
    page.keyboard.press("Enter")
    expect(choice).to_contain_text("Your choice: Discard Joker onto Bob's", timeout=WAIT_MS)
    expect(joker).to_be_focused()  # drawn anew with the view, and still where the person was


def assert_hint_answered(person: Person, answer: httpx.Response) -> None:
    """The hint button in a call: the advice marked where the service gives one, else the
    problem's detail said quietly (no alert)."""
    page = person.page
    page.get_by_role("button", name="Hint").click()
    hint = page.locator("#hint")
    if answer.status_code == 200:
        # The advice in the page's words (its `reason` names cards by code: "Take the 5C").
        advised = "Draw from the stock" if answer.json()["draw"] == "stock" else "Take "
        expect(hint).to_contain_text(advised, timeout=WAIT_MS)
        assert not CARD_CODE.search(hint.inner_text()), hint.inner_text()
        expect(page.locator("#piles .hinted")).to_have_count(1)
    else:
        assert answer.status_code == 409, answer.text
        expect(hint).to_have_text(answer.json()["detail"], timeout=WAIT_MS)
        expect(hint).to_have_class(re.compile(r"\bunavailable\b"))
        expect(page.locator("#problem")).to_be_hidden()
        # The browser logs the 409 itself; the page logs nothing.
        assert [e for e in person.errors if "409" not in e] == []
        person.errors.clear()


@needs_chromium
def test_a_click_pressed_while_another_seats_choice_arrives_is_taken(
    browser: Browser, base: str
) -> None:
    """Ann presses the stock, Bob's choice reaches her page through its stream, and she lets
    go: her draw is taken and the call ends. (A view drawn between a press and its release
    replaced the stock under her pointer, and the click went nowhere: in a speed game other
    seats choose at any moment, so a person, or a test, lost a choice now and then.)"""
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        players = [{"name": "Ann"}, {"name": "Bob"}]
        body = {"players": players, "rules": {"preset": "classic", "turns": "speed"}}
        created = api.post("/v1/games", json={**body, "call_seconds": 3600}).json()
        bob = {"Authorization": f"Bearer {created['seats'][1]['token']}"}
        ann = Person(browser, base, DESKTOP)
        streamed = events_streamed(ann)
        open_seat_here(ann, created)
        page = ann.page
        expect(page.locator("#call")).to_contain_text("Call 1 · everyone draws")
        until_streamed(ann, streamed, "0")  # the stream is live: its snapshot came

        stock = page.locator("#piles [data-pile=stock] .card").bounding_box()
        assert stock is not None
        page.mouse.move(stock["x"] + stock["width"] / 2, stock["y"] + stock["height"] / 2)
        page.mouse.down()
        answer = api.post(
            f"/v1/games/{created['game_id']}/actions",
            headers=bob,
            json={"type": "draw", "source": "stock"},
        )
        assert answer.status_code == 200, answer.text
        until_streamed(ann, streamed, str(answer.json()["version"]))
        page.mouse.up()
        expect(page.locator("#call")).to_contain_text("Call 2 · everyone discards")
    assert ann.errors == []
    ann.close()


def events_streamed(person: Person) -> list[str]:
    """The ids of the events the page's EventSource receives from now on, as Chromium's
    DevTools protocol reports them (the page draws nothing of them while a pointer is down)."""
    ids: list[str] = []
    devtools = person.context.new_cdp_session(person.page)
    devtools.on("Network.eventSourceMessageReceived", lambda event: ids.append(event["eventId"]))
    devtools.send("Network.enable")
    return ids


def until_streamed(person: Person, streamed: list[str], event_id: str) -> None:
    def received() -> bool:
        person.page.evaluate("0")  # a call into the page delivers the protocol's events
        return event_id in streamed

    eventually(received, f"the page's stream to bring event {event_id}", seconds=WAIT_MS / 1000)


AWAY_CALL = """view => import('/play/call.js').then(({ renderCall }) => {
  const box = document.createElement('div');
  renderCall(box, view, null);
  return box.querySelector('.call-choice').textContent;
})"""


@needs_chromium
def test_a_seat_whose_time_ran_out_is_told_a_bot_chooses_until_its_person_does(
    browser: Browser, base: str
) -> None:
    """A seat's real view in a call, as the service shows it once the caller's time ran out on
    it (``away``; a bot's choice held for it): the call says a bot chooses until the person
    does. (Waiting for a real timeout would leave the test a few seconds for each click.)"""
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as api:
        players = [{"name": "Ann"}, {"name": "Bob"}]
        rules = {"preset": "classic", "turns": "speed"}
        created = api.post("/v1/games", json={"players": players, "rules": rules}).json()
        auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        view = api.get(f"/v1/games/{created['game_id']}", headers=auth).json()
    ann = Person(browser, base, DESKTOP)
    view["players"][0]["away"] = True
    view["call"]["choice"] = view["legal"][0]
    said: str = ann.page.evaluate(AWAY_CALL, view)
    assert said == "Your time ran out: a bot chooses for you in every call until you choose."
    view["players"][0]["away"] = False
    said = ann.page.evaluate(AWAY_CALL, view)
    assert said == "Your choice: Draw from the stock. You may change it until the call ends."
    assert ann.errors == []
    ann.close()

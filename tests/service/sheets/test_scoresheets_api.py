"""``/v1/scoresheets`` over HTTP, on the real app: creation (201, Location, the edit token shown
once and kept hashed), the rounds shown before anything is entered, entries by cards and by
points, every refusal (status, problem type and field, the sheet unchanged), the CSV parsed back
with the csv module, and the printable page parsed with html.parser."""

from __future__ import annotations

import asyncio
import csv
import io
from html.parser import HTMLParser
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine.scoresheet import MAX_REPLAYS
from service.games import records as game_records
from service.sheets.store import MemorySheetStore
from tests.service.games.test_games_api import assert_problem

Client = TestClient[Litestar]
Json = dict[str, Any]
PLAYERS = ["Ann", "Bob", "Cy"]


def create(client: Client, **body: Any) -> Json:
    answer = client.post("/v1/scoresheets", json={"players": PLAYERS, **body})
    assert answer.status_code == 201, answer.text
    created: Json = answer.json()
    return created


def put_round(client: Client, created: Json, round_number: int, body: Json) -> Any:
    return client.put(
        f"/v1/scoresheets/{created['sheet_id']}/rounds/{round_number}",
        json=body,
        headers={"Authorization": f"Bearer {created['edit_token']}"},
    )


def points_round(*points: int, out_seat: int | None = None) -> Json:
    return {
        "out_seat": out_seat,
        "entries": [{"seat": s, "points": p} for s, p in enumerate(points)],
    }


def test_creating_a_sheet_answers_201_with_its_location_and_the_token_once(
    client: Client, app: Litestar
) -> None:
    answer = client.post("/v1/scoresheets", json={"players": PLAYERS, "first_dealer": 2})
    assert answer.status_code == 201
    created = answer.json()
    sheet_id, token = created["sheet_id"], created["edit_token"]
    assert answer.headers["location"] == f"/v1/scoresheets/{sheet_id}"
    assert len(token) >= 32
    read = client.get(answer.headers["location"])
    assert read.status_code == 200
    assert read.json() == created["sheet"]
    assert token not in read.text
    # Kept hashed: the stored record holds the token's SHA-256, never the token.
    store: MemorySheetStore = app.state["services"].sheets
    stored = asyncio.run(store.load(sheet_id))
    assert stored is not None
    assert token.encode() not in stored.record
    assert game_records.token_hash(token) in stored.record


def test_every_round_shows_its_wild_and_dealer_before_anything_is_entered(client: Client) -> None:
    sheet = create(client, first_dealer=1, rules={"preset": "classic", "schedule": "up_down"})[
        "sheet"
    ]
    rounds = sheet["rounds"]
    assert len(rounds) == 22
    assert [r["wild"] for r in rounds[:11]] == list("3456789TJQK")
    assert [r["cards_dealt"] for r in rounds[11:]] == list(range(13, 2, -1))
    assert [r["dealer"] for r in rounds[:4]] == [1, 2, 0, 1]
    assert not any(r["entered"] for r in rounds)
    assert sheet["next_round"] == 1
    assert sheet["status"] == "playing"
    assert sheet["totals"] == [0, 0, 0]
    assert sheet["winners"] is None
    assert sheet["players"] == [{"seat": s, "name": n} for s, n in enumerate(PLAYERS)]
    assert sheet["rules"]["schedule"] == "up_down"


def test_a_round_entered_by_cards_shows_the_arrangement_and_its_points(client: Client) -> None:
    created = create(client, rules={"preset": "classic", "going_out_bonus": -10})
    body = {
        "out_seat": 0,
        "entries": [
            {"seat": 2, "points": 7},
            {"seat": 0, "cards": ["4h", "5♥", "6H"]},
            {"seat": 1, "cards": ["KC", "3S", "QD"]},  # threes wild: 3S joins neither
        ],
    }
    answer = put_round(client, created, 1, body)
    assert answer.status_code == 200, answer.text
    sheet = answer.json()
    first = sheet["rounds"][0]
    assert first["entered"]
    assert first["out_seat"] == 0
    ann, bob, cy = first["entries"]
    assert ann["points"] == -10
    assert ann["melds"] == [{"kind": "run", "cards": ["4H", "5H", "6H"], "stands_for": [None] * 3}]
    assert ann["deadwood"] == []
    assert bob["points"] == 23
    assert sorted(bob["deadwood"]) == ["3S", "KC", "QD"]
    assert bob["given"] == "cards"
    assert cy == {
        "seat": 2,
        "points": 7,
        "given": "points",
        "cards": None,
        "melds": None,
        "deadwood": None,
        "deadwood_points": 7,
        "failed_go_outs": 0,
    }
    assert first["totals"] == sheet["totals"] == [-10, 23, 7]
    assert sheet["next_round"] == 2
    assert sheet["version"] == 1


def test_a_correction_changes_the_totals_and_a_finished_sheet_names_its_winners(
    client: Client,
) -> None:
    created = create(client)
    for r in range(1, 12):
        assert put_round(client, created, r, points_round(1, 2, 3)).status_code == 200
    finished = put_round(client, created, 11, points_round(1, 2, 3)).json()
    assert finished["status"] == "finished"
    assert finished["winners"] == [0]
    corrected = put_round(client, created, 4, points_round(30, 2, 3)).json()
    assert corrected["totals"] == [40, 22, 33]
    assert corrected["winners"] == [1]
    assert corrected["version"] == 13


# -- refusals -------------------------------------------------------------------------------------


def _entries(*entries: Json, out_seat: int | None = None) -> Json:
    return {"out_seat": out_seat, "entries": list(entries)}


BAD_ROUND_2 = [  # round 2 deals four cards, fours wild; round 1 is entered, 2 is next
    (
        "seat-not-there",
        _entries({"seat": 0, "points": 1}, {"seat": 1, "points": 1}, {"seat": 3, "points": 1}),
        422,
        "no-such-seat",
        "entries[2].seat",
    ),
    (
        "seat-twice",
        _entries({"seat": 0, "points": 1}, {"seat": 1, "points": 1}, {"seat": 1, "points": 2}),
        422,
        "seat-entered-twice",
        "entries[2].seat",
    ),
    (
        "seat-missing",
        _entries({"seat": 0, "points": 1}, {"seat": 1, "points": 1}),
        422,
        "seat-not-entered",
        "entries",
    ),
    (
        "bad-card-code",
        _entries({"seat": 0, "cards": ["KC", "ZZ", "QD", "JH"]}, {"seat": 1, "points": 1}),
        422,
        "invalid-field",
        "entries[0].cards[1]",
    ),
    (
        "too-many-copies",
        _entries(
            {"seat": 0, "cards": ["KC", "KC", "QD", "JH"]},
            {"seat": 1, "cards": ["KC", "9S", "9D", "AH"]},
            {"seat": 2, "points": 1},
        ),
        422,
        "too-many-copies",
        "entries[1].cards[0]",
    ),
    (
        "hand-too-small",
        _entries(
            {"seat": 0, "points": 1},
            {"seat": 1, "cards": ["KC", "QD", "JH"]},
            {"seat": 2, "points": 1},
        ),
        422,
        "wrong-hand-size",
        "entries[1].cards",
    ),
    (
        "card-not-in-pack",
        _entries(
            {"seat": 0, "cards": ["KC", "QD", "JH", "JK"]},
            {"seat": 1, "points": 1},
            {"seat": 2, "points": 1},
        ),
        422,
        "card-not-in-pack",
        "entries[0].cards[3]",
    ),
    (
        "out-seat-unmelded",
        _entries(
            {"seat": 0, "cards": ["KC", "QD", "JH", "9S"]},
            {"seat": 1, "points": 1},
            {"seat": 2, "points": 1},
            out_seat=0,
        ),
        422,
        "out-seat-not-melded",
        "entries[0].cards",
    ),
    (
        "out-seat-points",
        _entries(
            {"seat": 0, "points": 5}, {"seat": 1, "points": 1}, {"seat": 2, "points": 1}, out_seat=0
        ),
        422,
        "out-seat-not-melded",
        "entries[0].points",
    ),
    (
        "out-seat-not-there",
        _entries(
            {"seat": 0, "points": 0}, {"seat": 1, "points": 1}, {"seat": 2, "points": 1}, out_seat=7
        ),
        422,
        "no-such-seat",
        "out_seat",
    ),
    (
        "cards-and-points",
        _entries(
            {"seat": 0, "points": 1, "cards": ["KC", "QD", "JH", "9S"]},
            {"seat": 1, "points": 1},
            {"seat": 2, "points": 1},
        ),
        422,
        "invalid-field",
        "entries[0].cards",
    ),
    (
        "failed-go-out-under-reject",
        _entries(
            {"seat": 0, "cards": ["KC", "QD", "JH", "9S"], "failed_go_outs": 1},
            {"seat": 1, "points": 1},
            {"seat": 2, "points": 1},
        ),
        422,
        "failed-go-out-not-scored",
        "entries[0].failed_go_outs",
    ),
    (
        "unknown-field",
        _entries({"seat": 0, "points": 1, "bonus": 3}, {"seat": 1, "points": 1}),
        422,
        "invalid-field",
        "entries[0].bonus",
    ),
]


@pytest.mark.parametrize(
    ("body", "status", "kind", "field"),
    [case[1:] for case in BAD_ROUND_2],
    ids=[case[0] for case in BAD_ROUND_2],
)
def test_a_bad_round_is_refused_naming_its_field_and_the_sheet_is_unchanged(
    client: Client, body: Json, status: int, kind: str, field: str
) -> None:
    created = create(client)
    assert put_round(client, created, 1, points_round(1, 2, 3)).status_code == 200
    before = client.get(f"/v1/scoresheets/{created['sheet_id']}").json()
    answer = put_round(client, created, 2, body)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["type"].endswith(kind)
    assert problem["field"] == field
    assert client.get(f"/v1/scoresheets/{created['sheet_id']}").json() == before


def test_a_bad_card_code_is_explained_where_it_stands(client: Client) -> None:
    created = create(client)
    body = _entries({"seat": 0, "cards": ["KC", "1Z", "QD"]}, {"seat": 1, "points": 1})
    problem = put_round(client, created, 1, body).json()
    assert problem["field"] == "entries[0].cards[1]"
    assert "invalid card code '1Z'" in problem["detail"]


def test_a_hand_of_the_wrong_size_says_so_and_names_the_seat(client: Client) -> None:
    created = create(client)
    body = _entries(
        {"seat": 0, "points": 1}, {"seat": 1, "cards": ["KC", "QD"]}, {"seat": 2, "points": 1}
    )
    detail = put_round(client, created, 1, {**body}).json()["detail"]
    assert detail == "seat 1 (Bob) holds 2 cards, but round 1 leaves exactly 3 in each hand"


@pytest.mark.parametrize(
    ("round_number", "status", "kind"),
    [(3, 409, "round-not-open"), (12, 422, "round-out-of-range"), (0, 422, "invalid-field")],
)
def test_a_round_out_of_order_or_out_of_range_is_refused(
    client: Client, round_number: int, status: int, kind: str
) -> None:
    created = create(client)
    assert put_round(client, created, 1, points_round(1, 2, 3)).status_code == 200
    before = client.get(f"/v1/scoresheets/{created['sheet_id']}").json()
    answer = put_round(client, created, round_number, points_round(1, 2, 3))
    assert answer.status_code == status, answer.text
    assert answer.json()["type"].endswith(kind)
    assert answer.json()["field"] == "round"
    assert client.get(f"/v1/scoresheets/{created['sheet_id']}").json() == before


@pytest.mark.parametrize(
    ("authorization", "kind"),
    [
        (None, "missing-edit-token"),
        ("Bearer not-the-token", "wrong-edit-token"),
        ("Basic x", "missing-token"),
    ],
)
def test_writing_without_the_edit_token_is_401_and_changes_nothing(
    client: Client, authorization: str | None, kind: str
) -> None:
    created = create(client)
    headers = {} if authorization is None else {"Authorization": authorization}
    path = f"/v1/scoresheets/{created['sheet_id']}"
    answer = client.put(f"{path}/rounds/1", json=points_round(1, 2, 3), headers=headers)
    assert answer.status_code == 401
    assert answer.json()["type"].endswith(kind)
    assert client.get(path).json() == created["sheet"]


def test_an_unknown_sheet_is_404_everywhere(client: Client) -> None:
    for path in ("", "/export.csv", "/sheet"):
        answer = client.get(f"/v1/scoresheets/no-such-sheet{path}")
        assert answer.status_code == 404
        assert answer.json()["type"].endswith("sheet-not-found")
    answer = client.put(
        "/v1/scoresheets/no-such-sheet/rounds/1",
        json=points_round(1, 2, 3),
        headers={"Authorization": "Bearer x"},
    )
    assert answer.status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": ["Solo"]}, "players"),
        ({"players": [f"P{i}" for i in range(6)], "rules": "online"}, "players"),
        ({"players": PLAYERS, "first_dealer": 3}, "first_dealer"),
        ({"players": PLAYERS, "rules": {"preset": "classic", "aces": "sideways"}}, "rules.aces"),
    ],
)
def test_a_bad_sheet_is_refused_naming_its_field(client: Client, body: Json, field: str) -> None:
    answer = client.post("/v1/scoresheets", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == field


# -- CSV and the printable page -------------------------------------------------------------------


def played_sheet(client: Client) -> Json:
    """Three rounds: one by cards with a seat out, one by points, one replayed (double naughts)
    and played again."""
    created = create(client, first_dealer=0, rules={"preset": "classic", "double_naughts": True})
    cards = {
        "out_seat": 1,
        "entries": [
            {"seat": 0, "cards": ["KC", "QD", "9H"]},
            {"seat": 1, "cards": ["AH", "2H", "3H"]},
            {"seat": 2, "points": 4},
        ],
    }
    assert put_round(client, created, 1, cards).status_code == 200
    assert put_round(client, created, 2, points_round(5, 0, 12)).status_code == 200
    replayed = put_round(client, created, 3, points_round(0, 0, 0, out_seat=2)).json()
    assert replayed["next_round"] == 3
    assert put_round(client, created, 3, points_round(8, 3, 0, out_seat=2)).status_code == 200
    return created


def test_the_csv_has_a_row_per_round_a_column_per_player_and_the_totals(client: Client) -> None:
    created = played_sheet(client)
    answer = client.get(f"/v1/scoresheets/{created['sheet_id']}/export.csv")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0] == ["round", "cards_dealt", "wild", "dealer", "out", *PLAYERS, "note"]
    assert rows[1] == ["1", "3", "3", "Ann", "Bob", "29", "0", "4", ""]
    assert rows[2] == ["2", "4", "4", "Bob", "", "5", "0", "12", ""]
    assert rows[3] == ["3", "5", "5", "Cy", "Cy", "0", "0", "0", "replayed: double naughts"]
    assert rows[4] == ["3", "5", "5", "Cy", "Cy", "8", "3", "0", ""]
    assert [row[0] for row in rows[5:-1]] == [str(r) for r in range(4, 12)]
    assert all(row[8] == "not entered" for row in rows[5:-1])
    assert rows[-1] == ["total", "", "", "", "", "42", "3", "16", ""]


def test_csv_names_are_never_read_as_formulas(client: Client) -> None:
    created = create(client, players=["=HYPERLINK(1)", "Bob"])
    rows = list(
        csv.reader(
            io.StringIO(client.get(f"/v1/scoresheets/{created['sheet_id']}/export.csv").text)
        )
    )
    assert rows[0][5] == "'=HYPERLINK(1)"


class PageParser(HTMLParser):
    """Collects what the tests ask of the page: every tag, the body rows' cells, the SVG's
    lines, and every attribute value."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.rows: list[list[str]] = []
        self.footer: list[str] = []
        self.polylines = 0
        self.style = ""
        self._section = ""
        self._cell: list[str] | None = None
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [value or "" for _, value in attrs]
        if tag in ("tbody", "tfoot", "thead"):
            self._section = tag
        elif tag == "tr" and self._section == "tbody":
            self.rows.append([])
        elif tag == "td":
            self._cell = []
        elif tag == "polyline":
            self.polylines += 1
        elif tag == "style":
            self._in_style = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            text = "".join(self._cell).strip()
            (self.rows[-1] if self._section == "tbody" else self.footer).append(text)
            self._cell = None
        elif tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._in_style:
            self.style += data


def test_the_printable_page_has_its_rows_its_chart_and_nothing_to_fetch(client: Client) -> None:
    created = played_sheet(client)
    answer = client.get(f"/v1/scoresheets/{created['sheet_id']}/sheet")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    page = PageParser()
    page.feed(answer.text)
    # A row per round, with its cards dealt, wild and dealer; the replayed deal too.
    assert len(page.rows) == 11 + 1
    assert page.rows[0][:4] == ["1", "3", "3", "Ann"]
    assert page.rows[0][4] == "29" + "29"  # the score, then the running total
    assert page.rows[2][0].startswith("3")
    assert "replayed" in page.rows[2][0]
    assert page.rows[-1][:4] == ["11", "13", "K", "Bob"]
    assert page.rows[-1][4:] == ["", "", ""], "a round not entered prints empty, for a pencil"
    assert page.footer == ["Total", "42", "3", "16"]
    # One line per player in an inline SVG.
    assert "svg" in page.tags
    assert page.polylines == 3
    # Nothing runs and nothing is fetched.
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(page.tags)
    assert not [v for v in page.attributes if "//" in v or v.startswith(("http", "data:"))]
    assert "url(" not in page.style
    assert "@import" not in page.style
    assert "@page" in page.style
    assert "script-src" not in answer.headers["content-security-policy"]


@pytest.mark.parametrize(("paper", "size"), [("a4", "A4"), ("letter", "letter")])
def test_the_page_asks_for_a4_or_letter(client: Client, paper: str, size: str) -> None:
    created = create(client)
    page = client.get(f"/v1/scoresheets/{created['sheet_id']}/sheet?paper={paper}").text
    assert f"@page {{ size: {size} portrait;" in page


def test_names_on_the_page_are_escaped(client: Client) -> None:
    created = create(client, players=["<b>Ann</b>", "Bob & Co"])
    page = client.get(f"/v1/scoresheets/{created['sheet_id']}/sheet").text
    assert "<b>Ann" not in page
    assert "&lt;b&gt;Ann&lt;/b&gt;" in page
    assert "Bob &amp; Co" in page


def test_the_spec_links_a_created_sheet_to_its_operations(client: Client) -> None:
    """So a client, or schemathesis's stateful phase, can follow a sheet from its creation."""
    document = client.get("/schema/openapi.json").json()
    created = document["paths"]["/v1/scoresheets"]["post"]["responses"]["201"]
    targets = {link["operationId"] for link in created["links"].values()}
    assert targets == {"getScoreSheet", "exportScoreSheet", "printScoreSheet", "enterRound"}
    assert "Location" in created["headers"]
    entered = document["paths"]["/v1/scoresheets/{sheet_id}/rounds/{round}"]["put"]
    assert {"200", "401", "404", "409", "422"} <= set(entered["responses"])
    assert entered["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/EnterRoundRequest"
    }
    schemas = document["components"]["schemas"]
    assert schemas["EnterRoundRequest"]["additionalProperties"] is False
    assert schemas["EntryIn"]["additionalProperties"] is False


def test_a_tie_under_the_tiebreak_rule_adds_a_round_among_the_tied(client: Client) -> None:
    created = create(client, first_dealer=0, rules={"preset": "classic", "tie": "tiebreak"})
    for r in range(1, 12):
        put_round(client, created, r, points_round(2, 2, 5))
    sheet = client.get(f"/v1/scoresheets/{created['sheet_id']}").json()
    assert sheet["status"] == "playing"
    assert sheet["next_round"] == 12
    tiebreak = sheet["rounds"][-1]
    assert tiebreak["tiebreak"]
    assert (tiebreak["cards_dealt"], tiebreak["wild"], tiebreak["seats"]) == (13, "K", [0, 1])
    entries = {"entries": [{"seat": 0, "points": 9}, {"seat": 1, "points": 4}]}
    done = put_round(client, created, 12, entries).json()
    assert done["winners"] == [1]
    assert done["totals"] == [22, 22, 55], "the tie-break round adds nothing to the totals"
    page = PageParser()
    page.feed(client.get(f"/v1/scoresheets/{created['sheet_id']}/sheet").text)
    assert page.rows[-1][0] == "12tie-break"
    assert page.rows[-1][4:] == ["9", "4", "\u2013"], "the untied seat did not play it"


def test_a_round_dealt_again_past_the_bound_is_a_409_naming_the_entries(client: Client) -> None:
    """Finding 2 of issue 32: round 1 re-entered as a double naught 1,500 times grew the sheet
    without end. A sheet keeps ``MAX_REPLAYS`` of a round; the one after is refused, unwritten."""
    created = create(client, first_dealer=0, rules={"preset": "classic", "double_naughts": True})
    naught = points_round(0, 0, 0, out_seat=0)
    for _ in range(MAX_REPLAYS):
        assert put_round(client, created, 1, naught).status_code == 200
    refused = put_round(client, created, 1, naught)
    body = assert_problem(refused, 409, "too-many-replays")
    assert body["field"] == "entries"
    sheet = client.get(f"/v1/scoresheets/{created['sheet_id']}").json()
    assert sheet["version"] == MAX_REPLAYS
    assert put_round(client, created, 1, points_round(4, 0, 2, out_seat=1)).status_code == 200

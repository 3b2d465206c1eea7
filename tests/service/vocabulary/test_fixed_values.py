"""The wire's fixed sets are the engine's (docs/architecture.md, "Fixed values: one source
each"): where the wire writes one out for the type checker, or a page lists it, each test here
fails as soon as either side moves. The committed OpenAPI document stands for the served one
(tests/service/app/test_openapi_document.py keeps the two equal)."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from prometheus_client import REGISTRY

import engine
from engine import bots, rule_checks, rules
from engine.cards import parse_card
from engine.errors import DealError
from engine.game import ACTION_NAMES, Deal, EndLayOff, new_game
from engine.game.dealing import MAX_NAME
from engine.names import MAX_DISPLAY_NAME
from service.games import action_wire, log_wire
from service.games.level_wire import BotLevel
from service.games.to_engine import action_from_wire
from service.http.problems import EXCEPTION_MAP
from service.operations.metrics import count_action
from service.vocabulary.wire import PresetName, RulesOverrides

ROOT = Path(__file__).resolve().parents[3]
DOCUMENT: dict[str, Any] = json.loads((ROOT / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]
PAGES = ROOT / "service" / "play" / "static"
RULES_PAGE = ROOT / "docs" / "rules.md"


def enum_of(schema: dict[str, Any]) -> set[object]:
    """Every value a schema's enums allow, through ``anyOf`` (null left out)."""
    values = set(schema.get("enum", ()))
    for part in schema.get("anyOf", ()):
        values |= enum_of(part)
    return values


# -- bot levels -----------------------------------------------------------------------------------


def test_the_wire_type_of_a_level_is_the_engines_levels() -> None:
    assert get_args(BotLevel) == tuple(bots.LEVELS)


def test_the_document_lists_the_engines_levels_in_and_out() -> None:
    seat_in = SCHEMAS["PlayerIn"]["properties"]["bot"]
    assert seat_in["enum"] == list(bots.LEVELS)
    assert all(f"`{level}`" in seat_in["description"] for level in bots.LEVELS)
    assert enum_of(SCHEMAS["PlayerOut"]["properties"]["bot"]) == set(bots.LEVELS)


def test_the_play_page_offers_every_level_weakest_first() -> None:
    offered = re.findall(r'\["(\w+)", "Bot: \1"\]', (PAGES / "start.js").read_text())
    assert offered == list(bots.LEVELS)


# -- presets and rule options ---------------------------------------------------------------------


def options_of_the_wire() -> dict[str, Any]:
    """Each field of ``RulesOverrides`` and its type, with ``UnsetType`` and None left out."""
    hints = get_type_hints(RulesOverrides, include_extras=True)
    out = {}
    for name, hint in hints.items():
        parts = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
        kept = [p for p in parts if p not in (msgspec.UnsetType, type(None))]
        assert len(kept) == 1, name
        out[name] = kept[0]
    return out


def test_the_wire_names_every_option_of_the_engine_and_no_other() -> None:
    assert list(options_of_the_wire()) == ["preset", *rules.WIRE_FIELDS]


@pytest.mark.parametrize("option", sorted(rules.CHOICES))
def test_an_option_of_a_few_values_takes_the_engines_values(option: str) -> None:
    values = rules.CHOICES[option]
    assert get_args(options_of_the_wire()[option]) == values
    assert enum_of(SCHEMAS["RulesOverrides"]["properties"][option]) == set(values)
    for value in values:  # each one the engine accepts, with the options it needs beside it
        needs = {"discard_piles": "per_player"} if value == "any_pile" else {}
        assert getattr(rules.Rules.from_spec({option: value, **needs}), option) == value


def test_every_option_that_takes_a_few_values_is_listed() -> None:
    """An option the wire types as a ``Literal`` is one of ``rules.CHOICES``: a new option of a
    few values cannot be written out on the wire alone."""
    literal = {name for name, hint in options_of_the_wire().items() if get_origin(hint) is Literal}
    assert literal == {"preset", *rules.CHOICES}


def test_the_rules_page_documents_every_option_and_its_values() -> None:
    """docs/rules.md's table of options: one row per option (the players' pair shares one),
    and each value of an option of a few values in its row."""
    rows = re.findall(r"^\| (`\w+`(?:, `\w+`)*) \| ([^|]+) \|", RULES_PAGE.read_text(), re.M)
    documented = {name: values for names, values in rows for name in re.findall(r"`(\w+)`", names)}
    assert set(documented) == set(rules.WIRE_FIELDS)
    for option, values in rules.CHOICES.items():
        shown = {v.strip('"') for v in re.findall(r"`([^`]+)`", documented[option])}
        assert shown == {str(v) for v in values}, option
    for option, (low, high) in BOUNDS.items():
        assert f"{low}\N{EN DASH}{high}" in documented[option], option


BOUNDS = {
    "decks": (1, rule_checks.MAX_DECKS),
    "jokers": (0, rule_checks.MAX_JOKERS),
    "max_players": (rule_checks.MIN_SEATS, rule_checks.MAX_SEATS),
    "max_wilds_per_meld": (1, rule_checks.MAX_WILDS_PER_MELD),
    **dict.fromkeys(
        ("ace_points", "joker_points", "wild_points", "failed_go_out_penalty"),
        (0, rule_checks.MAX_POINTS),
    ),
}
"""The engine's bounds that docs/rules.md states, each as its low and high ends joined by an
en dash."""


def test_the_presets_are_the_engines() -> None:
    assert get_args(PresetName) == rules.PRESET_NAMES == tuple(rules.PRESETS)
    preset = SCHEMAS["RulesOverrides"]["properties"]["preset"]
    assert set(preset["enum"]) == set(rules.PRESETS)


def test_the_play_page_offers_every_preset_and_both_ways_to_play() -> None:
    """Each choice of rules on the page (a new table, quick play, a challenge) offers every
    preset, in the engine's order."""
    page = (PAGES / "index.html").read_text()
    choices = re.findall(r'<select name="rules">(.*?)</select>', page, re.DOTALL)
    assert len(choices) >= 1
    for presets in choices:
        assert re.findall(r'<option value="([\w-]+)"', presets) == list(rules.PRESETS)
    assert re.findall(r'name="turns" value="(\w+)"', page) == list(rules.CHOICES["turns"])


def test_the_play_page_takes_a_name_as_long_as_the_wire_does() -> None:
    page = (PAGES / "index.html").read_text()
    lengths = re.findall(r'<input name="name" required maxlength="(\d+)"', page)
    assert len(lengths) >= 2  # a seat's name, and a player's
    assert set(lengths) == {str(MAX_DISPLAY_NAME)}
    assert SCHEMAS["PlayerIn"]["properties"]["name"]["maxLength"] == MAX_DISPLAY_NAME
    assert MAX_DISPLAY_NAME <= MAX_NAME  # every name the wire takes, a game seats


def test_a_listed_tables_way_to_play_is_the_engines() -> None:
    turns = SCHEMAS["TableOut"]["properties"]["turns"]
    assert set(turns["enum"]) == set(rules.CHOICES["turns"])


# -- bounds ---------------------------------------------------------------------------------------


def test_a_round_number_reaches_the_longest_schedule_and_no_further() -> None:
    longest = max(rules.Rules.from_spec({"schedule": s}).rounds for s in rules.CHOICES["schedule"])
    assert SCHEMAS["DealIn"]["properties"]["round"]["maximum"] == longest
    deals = SCHEMAS["CreateGameRequest"]["properties"]["deal"]["anyOf"][0]
    assert deals["maxItems"] == longest
    entry = DOCUMENT["paths"]["/v1/scoresheets/{sheet_id}/rounds/{round}"]["put"]
    (path_round,) = [p for p in entry["parameters"] if p["name"] == "round"]
    assert path_round["schema"]["maximum"] == longest + 1  # the tie-break round


def test_a_games_hand_for_advice_is_the_largest_dealt_and_its_draw() -> None:
    largest = max(
        rules.Rules.from_spec({"schedule": s}).hand_size(rnd)
        for s in rules.CHOICES["schedule"]
        for rnd in range(1, rules.Rules.from_spec({"schedule": s}).rounds + 1)
    )
    hand = SCHEMAS["AdviseRequest"]["properties"]["hand"]
    assert hand["maxItems"] == largest + 1
    assert f"1 to {largest + 1} cards" in hand["description"]
    assert f"at most {largest}." in hand["description"]


def test_the_rules_bounds_in_the_document_are_the_engines() -> None:
    options = SCHEMAS["RulesOverrides"]["properties"]
    assert enum_of(options["max_wilds_per_meld"]) == set()
    (limit,) = [p for p in options["max_wilds_per_meld"]["anyOf"] if p["type"] == "integer"]
    assert limit["maximum"] == rule_checks.MAX_WILDS_PER_MELD
    assert options["face_points"]["minItems"] == options["face_points"]["maxItems"] == 3
    assert len(rules.Rules().face_points) == rule_checks.FACE_CARDS == 3


# -- action names ---------------------------------------------------------------------------------

BODIES = [
    action_wire.DrawAction(source="stock"),
    action_wire.DiscardAction(card="7H"),
    action_wire.LayOffAction(card="7H", seat=1, meld=0),
]


@pytest.mark.parametrize("body", BODIES, ids=lambda b: type(b).__name__)
def test_a_request_bodys_type_is_its_engine_actions_name(body: action_wire.ActionRequest) -> None:
    assert body.__struct_config__.tag == ACTION_NAMES[type(action_from_wire(body))]


def test_a_log_entrys_type_is_its_engine_actions_name() -> None:
    for struct in get_args(get_type_hints(log_wire.LogEntryOut)["action"]):
        assert struct.__struct_config__.tag in ACTION_NAMES.values(), struct


def applied(kind: str) -> float:
    value = REGISTRY.get_sample_value("three_thirteen_actions_applied_total", {"type": kind})
    return value or 0.0


@pytest.mark.parametrize("body", BODIES, ids=lambda b: type(b).__name__)
def test_an_action_is_counted_under_its_request_bodys_type(body: action_wire.ActionRequest) -> None:
    """A person's action and one the service makes for a seat are counted alike
    (``count_action``), under the name a request body gives the action."""
    kind = str(body.__struct_config__.tag)
    before = applied(kind)
    count_action(action_from_wire(body))
    assert applied(kind) == before + 1


def test_the_end_of_laying_off_is_counted_under_its_own_name() -> None:
    """The bots' table once counted it as a lay-off."""
    before, lay_offs = applied("end_lay_off"), applied("lay_off")
    count_action(EndLayOff())
    assert (applied("end_lay_off"), applied("lay_off")) == (before + 1, lay_offs)


# -- a given deal's field -------------------------------------------------------------------------

ROUND_2 = {
    "round": 2,
    "hands": [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]],
    "upcard": "5S",
}
TWO_ACES = {"round": 1, "hands": [["AC", "2C", "3C"], ["AC", "2D", "3D"]], "upcard": "5D"}
"""Round 1 comes second in the body, and its second hand holds the one-deck pack's ace of clubs
again."""


def engine_deal(given: dict[str, Any]) -> Deal:
    hands = tuple(tuple(parse_card(code) for code in hand) for hand in given["hands"])
    return Deal(hands, parse_card(given["upcard"]))


def test_a_deal_the_service_refuses_is_named_by_its_place_in_the_body(
    client: TestClient[Litestar],
) -> None:
    players = [{"name": "A"}, {"name": "B"}]
    answer = client.post("/v1/games", json={"players": players, "deal": [ROUND_2, TWO_ACES]})
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == "deal[1].hands[1]"


def test_a_deal_the_engine_refuses_as_it_deals_is_named_alike() -> None:
    """The other path to a ``DealError``'s field: the engine refusing a deal as ``new_game``
    deals it (past the service's check), answered by the exception map."""
    deals = {2: engine_deal(ROUND_2), 1: engine_deal(TWO_ACES)}  # in the body's order
    with pytest.raises(DealError) as refused:
        new_game(["A", "B"], engine.Rules(), seed=1, deals=deals)
    answer = EXCEPTION_MAP[DealError](refused.value)
    assert answer.extra == {"field": "deal[1].hands[1]"}

"""Rules: presets, packs, the round schedules, overrides and the options that cannot go together."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cards import JOKER, format_rank, parse_card
from engine.errors import RulesError
from engine.rules import PRESETS, WIRE_FIELDS, Rules


@pytest.mark.parametrize(
    ("players", "decks"), [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4)]
)
def test_classic_deals_one_deck_per_two_players(players: int, decks: int) -> None:
    pack = Rules.from_spec("classic").pack(players)
    assert len(pack) == 52 * decks
    assert Counter(pack)[parse_card("AS")] == decks


def test_online_pack_is_two_decks_and_four_jokers() -> None:
    pack = Rules.from_spec("online").pack(5)
    assert len(pack) == 108
    assert Counter(pack)[JOKER] == 4


def test_five_crowns_pack_has_five_suits_no_aces_or_twos_and_six_jokers() -> None:
    pack = Rules.from_spec("five-crowns").pack(7)
    assert len(pack) == 116
    assert Counter(pack)[JOKER] == 6
    assert Counter(pack)[parse_card("3X")] == 2
    assert parse_card("AS") not in pack
    assert parse_card("2H") not in pack


@pytest.mark.parametrize(
    ("preset", "low", "high"), [("classic", 2, 8), ("online", 2, 5), ("five-crowns", 2, 7)]
)
def test_player_counts_per_preset(preset: str, low: int, high: int) -> None:
    rules = Rules.from_spec(preset)
    rules.check_players(low)
    rules.check_players(high)
    for bad in (low - 1, high + 1):
        with pytest.raises(RulesError, match=f"{bad} players"):
            rules.check_players(bad)


def test_a_pack_too_small_for_the_table_is_refused() -> None:
    rules = Rules.from_spec({"preset": "classic", "decks": 1})
    with pytest.raises(RulesError, match="add decks"):
        rules.check_players(4)


def test_the_standard_schedule_makes_the_dealt_count_wild() -> None:
    rules = Rules.from_spec("classic")
    assert rules.rounds == 11
    assert [rules.hand_size(r) for r in range(1, 12)] == list(range(3, 14))
    assert "".join(format_rank(rules.wild_rank(r)) for r in range(1, 12)) == "3456789TJQK"


def test_the_longer_schedules() -> None:
    down = Rules.from_spec({"preset": "classic", "schedule": "down"})
    assert down.hand_sizes == tuple(range(13, 2, -1))
    assert down.wild_rank(1) == 13
    up_down = Rules.from_spec({"preset": "classic", "schedule": "up_down"})
    assert up_down.rounds == 22
    assert up_down.hand_sizes[:11] == tuple(range(3, 14))
    assert up_down.hand_sizes[11:] == tuple(range(13, 2, -1))
    extended = Rules.from_spec({"preset": "classic", "schedule": "extended"})
    assert extended.rounds == 13
    assert extended.hand_size(12) == 14
    assert extended.wild_rank(12) == 1  # aces wild
    assert extended.hand_size(13) == 15
    assert extended.wild_rank(13) == 2  # twos wild


def test_a_round_outside_the_schedule_is_refused() -> None:
    with pytest.raises(RulesError, match="round 12"):
        Rules.from_spec("classic").wild_rank(12)


def test_penalties_per_preset() -> None:
    classic, online, crowns = PRESETS["classic"], PRESETS["online"], PRESETS["five-crowns"]
    ks = parse_card("KS")
    assert [classic.points(parse_card(c), None) for c in ("AS", "7S", "TS", "JS", "QS", "KS")] == [
        1,
        7,
        10,
        10,
        10,
        10,
    ]
    assert [online.points(parse_card(c), None) for c in ("AS", "7S", "JS", "QS", "KS", "JK")] == [
        15,
        7,
        11,
        12,
        13,
        50,
    ]
    assert online.points(ks, 13) == 50  # an unmatched wild
    assert classic.points(ks, 13) == 10  # its ordinary value
    assert crowns.points(parse_card("KX"), 13) == 20
    assert crowns.points(JOKER, 13) == 50


def test_overrides_apply_on_top_of_a_preset_and_round_trip() -> None:
    rules = Rules.from_spec(
        {"preset": "online", "aces": "low", "face_points": [10, 10, 10], "jokers": 2}
    )
    assert rules.preset == "online"
    assert rules.aces == "low"
    assert rules.face_points == (10, 10, 10)
    assert Rules.from_spec(rules.to_spec()) == rules
    assert set(rules.to_spec()) == {*WIRE_FIELDS, "preset"}


def test_one_wild_per_meld_switches_off_all_wild_melds_unless_both_are_asked_for() -> None:
    assert Rules.from_spec({"preset": "classic", "max_wilds_per_meld": 1}).all_wild_melds is False
    with pytest.raises(RulesError, match="all_wild_melds") as raised:
        Rules.from_spec({"preset": "classic", "max_wilds_per_meld": 1, "all_wild_melds": True})
    assert "max_wilds_per_meld" in str(raised.value)


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ("poker", "preset"),
        ({"preset": "gin"}, "preset"),
        ({"preset": "classic", "colour": "red"}, "colour"),
        ({"preset": "classic", "aces": "high"}, "aces"),
        ({"preset": "classic", "jokers": "two"}, "jokers"),
        ({"preset": "classic", "jokers": -1}, "jokers"),
        ({"preset": "classic", "all_wild_melds": 1}, "all_wild_melds"),
        ({"preset": "classic", "face_points": [10, 10]}, "face_points"),
        ({"preset": "classic", "going_out_bonus": -7}, "going_out_bonus"),
        ({"preset": "classic", "max_wilds_per_meld": 0}, "max_wilds_per_meld"),
        ({"preset": "five-crowns", "aces": "high_or_low"}, "aces"),
        ({"preset": "five-crowns", "schedule": "extended"}, "schedule"),
    ],
)
def test_bad_rules_name_the_field(spec: object, field: str) -> None:
    with pytest.raises(RulesError) as raised:
        Rules.from_spec(spec)  # type: ignore[arg-type]
    assert raised.value.field == field
    assert field in str(raised.value)

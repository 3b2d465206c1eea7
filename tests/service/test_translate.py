"""``service.translate``: what it remembers between requests changes nothing it answers."""

from __future__ import annotations

import msgspec
import pytest

import engine
from engine.cards import ACE, KING
from service import translate, wire
from service.problems import InvalidField


def overrides(body: bytes) -> wire.RulesOverrides:
    return msgspec.json.decode(body, type=wire.RulesOverrides)


def test_equal_rules_objects_share_one_rules_value() -> None:
    first = translate.rules_from_wire(overrides(b'{"preset": "online", "face_points": [1, 2, 3]}'))
    again = translate.rules_from_wire(overrides(b'{"face_points": [1, 2, 3], "preset": "online"}'))
    assert again is first
    assert first == engine.Rules.from_spec({"preset": "online", "face_points": [1, 2, 3]})
    other = translate.rules_from_wire(overrides(b'{"preset": "online", "face_points": [1, 2, 4]}'))
    assert other.face_points == (1, 2, 4)


def test_rules_that_clash_are_refused_every_time() -> None:
    clash = overrides(b'{"preset": "classic", "low_rank": 3, "schedule": "extended"}')
    for _ in range(2):
        with pytest.raises(engine.RulesError):
            translate.rules_from_wire(clash)


def test_a_bad_code_is_named_by_its_place() -> None:
    assert translate.cards_from_codes(["4h", "10♥", "JK"], "hand") == [
        engine.parse_card(c) for c in ("4H", "TH", "JK")
    ]
    with pytest.raises(InvalidField) as raised:
        translate.cards_from_codes(["4H", "4H", "ZZ"], "hand")
    assert raised.value.field == "hand[2]"
    assert "ZZ" in raised.value.detail


def test_cards_come_back_in_canonical_codes() -> None:
    every_card = list(range(engine.JOKER + 1))
    assert translate.card_codes(every_card) == [engine.format_card(c) for c in every_card]
    assert translate.optional_card_code(None) is None
    assert translate.optional_card_code(engine.JOKER) == "JK"
    every_rank = range(ACE, KING + 1)
    assert [translate.rank_code(r) for r in every_rank] == [
        engine.format_rank(r) for r in every_rank
    ]
    assert translate.rank_code(None) is None

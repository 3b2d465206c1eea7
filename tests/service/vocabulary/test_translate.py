"""``service.vocabulary.to_engine`` and ``to_wire``: what they remember between requests
changes nothing they answer."""

from __future__ import annotations

import msgspec
import pytest

import engine
from engine.analysis import analysis_document, build_document
from engine.cards import ACE, KING
from engine.rules import RulesSpec
from service.analysis.to_wire import analysis_to_wire
from service.analysis.wire import AnalyseResponse, DiscardOut
from service.http.problems import InvalidField
from service.vocabulary import to_engine, to_wire
from service.vocabulary.wire import RulesOverrides


def overrides(body: bytes) -> RulesOverrides:
    return msgspec.json.decode(body, type=RulesOverrides)


def test_equal_rules_objects_share_one_rules_value() -> None:
    first = to_engine.rules_from_wire(overrides(b'{"preset": "online", "face_points": [1, 2, 3]}'))
    again = to_engine.rules_from_wire(overrides(b'{"face_points": [1, 2, 3], "preset": "online"}'))
    assert again is first
    assert first == engine.Rules.from_spec({"preset": "online", "face_points": [1, 2, 3]})
    other = to_engine.rules_from_wire(overrides(b'{"preset": "online", "face_points": [1, 2, 4]}'))
    assert other.face_points == (1, 2, 4)


def test_rules_that_clash_are_refused_every_time() -> None:
    clash = overrides(b'{"preset": "classic", "low_rank": 3, "schedule": "extended"}')
    for _ in range(2):
        with pytest.raises(engine.RulesError):
            to_engine.rules_from_wire(clash)


def test_a_bad_code_is_named_by_its_place() -> None:
    assert to_engine.cards_from_codes(["4h", "10♥", "JK"], "hand") == [
        engine.parse_card(c) for c in ("4H", "TH", "JK")
    ]
    with pytest.raises(InvalidField) as raised:
        to_engine.cards_from_codes(["4H", "4H", "ZZ"], "hand")
    assert raised.value.field == "hand[2]"
    assert "ZZ" in raised.value.detail


def test_cards_come_back_in_canonical_codes() -> None:
    every_card = list(range(engine.JOKER + 1))
    assert to_wire.card_codes(every_card) == [engine.format_card(c) for c in every_card]
    assert to_wire.optional_card_code(None) is None
    assert to_wire.optional_card_code(engine.JOKER) == "JK"
    every_rank = range(ACE, KING + 1)
    assert [to_wire.rank_code(r) for r in every_rank] == [engine.format_rank(r) for r in every_rank]
    assert to_wire.rank_code(None) is None


ANALYSED = [
    ("4H 8S 6H KD", 6, "classic"),  # deadwood, no meld
    ("AH 2H 3H 5S 5D 5C 9C TC JC QD KD 4S 7H 8H", 13, "online"),  # melds and wilds
    ("QC 5S JH JC 8S TH JD JH JS AD 7C", 11, {"preset": "online", "max_wilds_per_meld": 1}),
    ("TD 3C 3D 4C", 3, {"preset": "classic", "max_wilds_per_meld": 1}),  # 3C as itself
    ("JK JK JK", None, "online"),  # an all-wild meld, nothing to discard but a joker
    ("KS", 13, "classic"),  # one card: one discard
]


@pytest.mark.parametrize(("hand", "wild", "rules"), ANALYSED)
def test_the_wire_answer_is_the_engine_s_analysis_document(
    hand: str, wild: int | None, rules: RulesSpec
) -> None:
    """The HTTP answer and the CLI's document are one shape: the service's structs carry
    exactly the engine document's fields and values (a field with a default on one side alone
    would show here), and the document meets the published schema's constraints."""
    analysis = engine.analyse(hand.split(), wild, rules)
    document = analysis_document(analysis)
    assert msgspec.to_builtins(analysis_to_wire(analysis)) == document
    assert msgspec.convert(document, AnalyseResponse) == analysis_to_wire(analysis)
    assert msgspec.json.decode(msgspec.json.encode(document)) == document  # plain JSON values


def test_a_document_field_the_wire_lacks_fails_at_once() -> None:
    """The wire structs are the document's constructors: a field added on one side alone is
    an error on the first analysis, not a field silently dropped."""

    class Narrower(msgspec.Struct):
        kind: str
        cards: list[str]

    analysis = engine.analyse(["AH", "2H", "3H"], None, "classic")
    with pytest.raises(TypeError):
        build_document(analysis, AnalyseResponse, Narrower, DiscardOut)

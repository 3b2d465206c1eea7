"""Card codes: every accepted spelling, the canonical output, and errors that say what is wrong."""

from __future__ import annotations

import pytest

from engine.cards import (
    JOKER,
    card,
    format_card,
    format_rank,
    parse_card,
    parse_cards,
    parse_rank,
    rank_of,
    suit_of,
)
from engine.errors import CardCodeError


@pytest.mark.parametrize(
    ("code", "canonical"),
    [
        ("TH", "TH"),
        ("10H", "TH"),
        ("th", "TH"),
        ("10♥", "TH"),
        ("A♠", "AS"),
        ("2♣", "2C"),
        ("K♦", "KD"),
        ("7X", "7X"),
        ("7★", "7X"),
        ("jk", "JK"),
        ("JK", "JK"),
        (" qs ", "QS"),
    ],
)
def test_every_spelling_parses_to_the_canonical_card(code: str, canonical: str) -> None:
    assert format_card(parse_card(code)) == canonical


def test_ints_are_suit_major_and_the_joker_is_65() -> None:
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AD") == 13
    assert parse_card("KX") == 64
    assert parse_card("JK") == JOKER == 65
    assert rank_of(parse_card("TS")) == 10
    assert suit_of(parse_card("TS")) == 3
    assert card(12, 2) == parse_card("QH")


def test_every_card_round_trips() -> None:
    for c in range(JOKER + 1):
        assert parse_card(format_card(c)) == c


@pytest.mark.parametrize("code", ["", "H", "1H", "11H", "ZH", "AZ", "JOKER", "KK", "10", "A"])
def test_a_bad_code_names_itself_and_says_what_is_valid(code: str) -> None:
    with pytest.raises(CardCodeError) as raised:
        parse_card(code)
    assert repr(code) in str(raised.value)
    assert "rank" in str(raised.value)
    assert "suit" in str(raised.value)


def test_non_strings_and_out_of_range_ints_are_refused() -> None:
    with pytest.raises(CardCodeError):
        parse_card(7)  # type: ignore[arg-type]
    with pytest.raises(CardCodeError, match="66"):
        parse_cards([66])
    with pytest.raises(CardCodeError):
        format_card(-1)
    assert parse_cards(["AS", 13, "JK"]) == [39, 13, 65]


@pytest.mark.parametrize(("code", "rank"), [("A", 1), ("8", 8), ("t", 10), ("10", 10), ("K", 13)])
def test_ranks_parse_and_format(code: str, rank: int) -> None:
    assert parse_rank(code) == rank
    assert parse_rank(format_rank(rank)) == rank


@pytest.mark.parametrize("code", ["", "1", "11", "X", "8H"])
def test_bad_ranks_are_refused_with_their_code(code: str) -> None:
    with pytest.raises(CardCodeError, match="rank"):
        parse_rank(code)

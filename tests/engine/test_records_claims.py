"""Import checks every claim a record makes against its replay: each round's score lines (melds,
deadwood, points), its out seats and the order of its scores, a speed deal's upcard, the totals,
the winners; and the players' names obey the rule names obey everywhere (``engine.names``).

Each doctored record is made from a real game's whole record, changed in one claim only (a card
swapped for the same rank in another suit keeps every score's points), then imported in both
forms: the text notation, whose error names the line, and the JSON form, whose error names the
path.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable

import pytest

from engine.analysis import Meld
from engine.cards import JOKER, card, format_card, rank_of, suit_of
from engine.errors import NotationError, RecordNotLegal
from engine.game import RoundResult, SeatResult
from engine.names import MAX_COMBINING_MARKS, MAX_DISPLAY_NAME, name_fault
from engine.records.importing import import_json, import_record
from engine.records.json_form import record_json
from engine.records.notation import print_record
from engine.records.parsing import parse_located
from engine.records.record import GameRecord, record_of
from tests.engine.test_records import played
from tests.engine.test_records_speed import SPEED, speed_played


def other_suit(c: int) -> int:
    """The card of the same rank in the next of the four common suits (same points)."""
    return card(rank_of(c), (suit_of(c) + 1) % 4)


Refusal = RecordNotLegal | NotationError


def text_refusal(record: GameRecord) -> tuple[Refusal, str]:
    """The error importing the record's text raises, and the line it names."""
    text = print_record(record)
    with pytest.raises((RecordNotLegal, NotationError)) as raised:
        import_record(*parse_located(text))
    error = raised.value
    assert isinstance(error, RecordNotLegal | NotationError)
    assert error.line is not None, error
    return error, text.split("\n")[error.line - 1]


def json_refusal(record: GameRecord) -> Refusal:
    wire = json.loads(json.dumps(record_json(record)))
    with pytest.raises((RecordNotLegal, NotationError)) as raised:
        import_json(wire)
    assert isinstance(raised.value, RecordNotLegal | NotationError)
    assert raised.value.line is None
    return raised.value


def with_result(record: GameRecord, index: int, result: RoundResult) -> GameRecord:
    rounds = list(record.rounds)
    rounds[index] = dataclasses.replace(rounds[index], result=result)
    return GameRecord(record.headers, tuple(rounds))


def with_score(record: GameRecord, index: int, number: int, score: SeatResult) -> GameRecord:
    result = record.rounds[index].result
    assert result is not None
    scores = list(result.results)
    scores[number] = score
    return with_result(record, index, dataclasses.replace(result, results=tuple(scores)))


def changed_meld(melds: tuple[Meld, ...]) -> tuple[Meld, ...] | None:
    """The melds with one natural card swapped for another suit's; None without one."""
    for k, meld in enumerate(melds):
        for i, c in enumerate(meld.cards):
            if c != JOKER and meld.stands_for[i] is None:
                cards = (*meld.cards[:i], other_suit(c), *meld.cards[i + 1 :])
                return (*melds[:k], Meld(meld.kind, cards, meld.stands_for), *melds[k + 1 :])
    return None


def changed_deadwood(deadwood: tuple[int, ...]) -> tuple[int, ...] | None:
    natural = [i for i, c in enumerate(deadwood) if c != JOKER]
    if not natural:
        return None
    i = natural[0]
    return (*deadwood[:i], other_suit(deadwood[i]), *deadwood[i + 1 :])


Doctor = Callable[[SeatResult], SeatResult | None]


def doctor_melds(score: SeatResult) -> SeatResult | None:
    melds = changed_meld(score.melds)
    return None if melds is None else dataclasses.replace(score, melds=melds)


def doctor_deadwood(score: SeatResult) -> SeatResult | None:
    deadwood = changed_deadwood(score.deadwood)
    return None if deadwood is None else dataclasses.replace(score, deadwood=deadwood)


def doctored_scores(
    record: GameRecord, doctor: Doctor, rng: random.Random
) -> list[tuple[int, int, SeatResult, SeatResult]]:
    """Every score the doctor can change: (round index, score number, as played, doctored)."""
    found = []
    for index, entry in enumerate(record.rounds):
        for number, score in enumerate(entry.result.results if entry.result else ()):
            changed = doctor(score)
            if changed is not None:
                found.append((index, number, score, changed))
    rng.shuffle(found)
    return found


# -- score lines ----------------------------------------------------------------------------------


def test_a_meld_the_hand_did_not_hold_is_refused_at_its_score_line() -> None:
    """Issue 44's record: a set's 4H changed to 4D (the hand held 4H; the points stay)."""
    record = record_of(played("classic", 2, 4, 4))
    result = record.rounds[2].result
    assert result is not None
    score = result.results[0]
    assert [format_card(c) for c in score.melds[0].cards] == ["4C", "4H", "4S"]
    melds = (
        Meld(
            "set",
            (*score.melds[0].cards[:1], card(4, 1), score.melds[0].cards[2]),
            score.melds[0].stands_for,
        ),
    )
    doctored = with_score(record, 2, 0, dataclasses.replace(score, melds=melds))
    error, line = text_refusal(doctored)
    assert isinstance(error, RecordNotLegal)
    assert line == "score 0 14 set(4C 4D 4S) deadwood 6S 8S"
    assert "seat 0's melds are set(4C 4H 4S) in the replay, not set(4C 4D 4S)" in str(error)
    error = json_refusal(doctored)
    assert isinstance(error, RecordNotLegal)
    assert error.path == "rounds[2].result.scores[0].melds"


@pytest.mark.parametrize(
    ("doctor", "claim"), [(doctor_melds, "melds"), (doctor_deadwood, "deadwood")]
)
@pytest.mark.parametrize(("rules", "players"), [("classic", 2), ("online", 3), ("five-crowns", 4)])
def test_a_doctored_meld_or_deadwood_card_is_refused_in_both_forms(
    doctor: Doctor, claim: str, rules: str, players: int
) -> None:
    """In random games of each preset, a score line's melds or deadwood with one card of another
    suit (the points unchanged) is refused at that line and at that path."""
    rng = random.Random(f"{rules}/{claim}")
    for seed in range(2):
        record = record_of(played(rules, players, seed, seed))
        for index, number, score, changed in doctored_scores(record, doctor, rng)[:2]:
            doctored = with_score(record, index, number, changed)
            error, line = text_refusal(doctored)
            assert isinstance(error, RecordNotLegal)
            assert line.startswith(f"score {score.seat} {score.points} ")
            assert f"seat {score.seat}'s {claim}" in str(error)
            error = json_refusal(doctored)
            assert isinstance(error, RecordNotLegal)
            assert error.path == f"rounds[{index}].result.scores[{number}].{claim}"


def test_scores_in_another_order_than_the_replay_s_are_refused() -> None:
    record = record_of(played("classic", 3, 2, 2))
    result = record.rounds[0].result
    assert result is not None
    doctored = with_result(record, 0, dataclasses.replace(result, results=result.results[::-1]))
    error, line = text_refusal(doctored)
    assert line.startswith("score 2 ")
    assert "the replay scores seat 0 here" in str(error)
    assert isinstance(json_refusal(doctored), RecordNotLegal)


def test_out_seats_the_replay_does_not_reach_are_refused() -> None:
    record = record_of(played("classic", 3, 2, 2))
    result = record.rounds[0].result
    assert result is not None
    assert result.out_seat is not None
    others = tuple(s for s in range(3) if s != result.out_seat)
    doctored = with_result(
        record, 0, dataclasses.replace(result, out_seats=(result.out_seat, others[0]))
    )
    error, line = text_refusal(doctored)
    assert line.startswith(f"out {result.out_seat} {others[0]}")
    assert "out seat" in str(error)
    error = json_refusal(doctored)
    assert isinstance(error, RecordNotLegal)
    assert error.path == "rounds[0].result.out_seats"


def test_a_speed_deal_s_first_upcard_must_be_its_upcards_first() -> None:
    """The JSON form states a speed deal's upcard twice (``upcard``, ``upcards[0]``)."""
    record = record_of(speed_played(SPEED, 3, 11, 11))
    wire = json.loads(json.dumps(record_json(record)))
    first = wire["rounds"][0]
    first["upcard"] = next(c for c in first["hands"][0] if c != first["upcards"][0])
    with pytest.raises(RecordNotLegal) as raised:
        import_json(wire)
    assert raised.value.path == "rounds[0].upcard"


# -- totals and winners ---------------------------------------------------------------------------


@pytest.mark.parametrize("claim", ["totals", "winners"])
def test_doctored_totals_and_winners_are_refused_in_both_forms(claim: str) -> None:
    record = record_of(played("classic", 2, 4, 4))
    h = record.headers
    assert h.winners is not None
    change = (
        {"totals": (h.totals[0] + 1, h.totals[1])}
        if claim == "totals"
        else {"winners": tuple(s for s in range(2) if s not in h.winners)}
    )
    doctored = GameRecord(dataclasses.replace(h, **change), record.rounds)
    error, line = text_refusal(doctored)
    assert isinstance(error, RecordNotLegal)
    assert line.startswith(f"[{claim.capitalize()} ")
    assert f"the replay's {claim} are" in str(error)
    error = json_refusal(doctored)
    assert isinstance(error, RecordNotLegal)
    assert error.path == claim


# -- names ----------------------------------------------------------------------------------------

BAD_NAMES = {
    "a NUL": "ann\x00",
    "a bidi override": "ann\u202egnp.exe",
    "a zero-width space": "a\u200bnn",
    "a newline": "ann\nbob",
    "a private-use character": "ann\ue000",
    "a blank Braille pattern": "\u2800",
    "only spaces": "   ",
    "spaces at its ends": " ann",
    "a decomposed accent (not NFC)": "Jose\u0301",
    "too many combining marks": "q" + "\u0301\u0302\u0303\u0304",
    "too many characters": "a" * (MAX_DISPLAY_NAME + 1),
}
GOOD_NAMES = [
    "ann",
    "José",
    "Nguyễn",
    'bob "the dealer"',
    "cy; not a comment",
    "🃏\ufe0f",
    "a" * 40,
]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_names_shown_everywhere_are_accepted(name: str) -> None:
    assert name_fault(name) is None


@pytest.mark.parametrize(("what", "name"), BAD_NAMES.items())
def test_names_that_render_as_something_else_are_refused(what: str, name: str) -> None:
    assert name_fault(name) is not None, what


def test_the_combining_marks_bound_is_per_letter() -> None:
    """``q`` has no precomposed accented form: NFC keeps its marks apart."""
    marked = "q" + "\u0301" * MAX_COMBINING_MARKS
    assert name_fault(marked) is None
    assert name_fault(marked * 3) is None
    assert name_fault(marked + "\u0301") is not None


@pytest.mark.parametrize(
    ("what", "name"), [(w, BAD_NAMES[w]) for w in ("a NUL", "a bidi override")]
)
def test_a_record_s_bad_player_name_is_refused_at_its_header_and_path(what: str, name: str) -> None:
    record = record_of(played("classic", 2, 4, 4))
    doctored = GameRecord(dataclasses.replace(record.headers, players=("ann", name)), record.rounds)
    error, line = text_refusal(doctored)
    assert isinstance(error, NotationError), what
    assert line.startswith("[Player1 ")
    assert "Player1" in str(error)
    error = json_refusal(doctored)
    assert isinstance(error, NotationError), what
    assert error.path == "players[1]"

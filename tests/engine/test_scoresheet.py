"""Score sheets for games played with real cards: the rounds' shapes, each scoring option on
hands drawn here as card codes, double naughts, ties and the tie-break round, corrections, every
refusal (naming its field), each preset, and a whole 11-round sheet checked against the slow
reference analyser."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.errors import (
    CardNotInPack,
    FailedGoOutNotScored,
    NoSuchSeat,
    OutSeatNotMelded,
    ReplayConflict,
    RoundNotOpen,
    RoundOutOfRange,
    RulesError,
    SeatEnteredTwice,
    SeatNotEntered,
    SheetError,
    TooManyCopies,
    TooManyReplays,
    WrongHandSize,
)
from engine.rules import PRESETS, Rules
from engine.scoresheet import (
    MAX_REPLAYS,
    CardsEntry,
    Entry,
    PointsEntry,
    Sheet,
    enter_round,
    new_sheet,
    restore,
)
from tests.engine.reference import reference_min_deadwood

PLAYERS = ("Ann", "Bob", "Cy")


def cards(*codes: str) -> tuple[int, ...]:
    return tuple(parse_cards(list(codes)))


def hand(seat: int, *codes: str, failed: int = 0) -> CardsEntry:
    return CardsEntry(seat, cards(*codes), failed)


def sheet_of(rules: Any = "classic", players: Sequence[str] = PLAYERS, dealer: int = 0) -> Sheet:
    return new_sheet(list(players), rules, dealer)


def at_round(sheet: Sheet, round_number: int) -> Sheet:
    """``sheet`` with the rounds before ``round_number`` entered as points (1, 2, 3 a seat)."""
    for r in range(1, round_number):
        sheet = enter_round(
            sheet, r, None, [PointsEntry(s, s + 1) for s in range(len(sheet.players))]
        )
    return sheet


def score_one(rules: Any, round_number: int, entry: Entry, out_seat: int | None = None) -> int:
    """What ``entry`` (seat 0) scores in ``round_number``, the other seats entering points."""
    sheet = at_round(sheet_of(rules), round_number)
    others = [PointsEntry(s, 0 if s == out_seat else 5) for s in (1, 2)]
    sheet = enter_round(sheet, round_number, out_seat, [entry, *others])
    return sheet.counted[round_number].points_of(0)


# -- the rounds before anything is entered --------------------------------------------------------


@pytest.mark.parametrize(
    ("schedule", "sizes", "wilds"),
    [
        ("up", list(range(3, 14)), list(range(3, 14))),
        ("down", list(range(13, 2, -1)), list(range(13, 2, -1))),
        ("up_down", [*range(3, 14), *range(13, 2, -1)], [*range(3, 14), *range(13, 2, -1)]),
        ("extended", list(range(3, 16)), [*range(3, 14), 1, 2]),
    ],
)
def test_every_round_shows_cards_dealt_wild_and_dealer_before_anything_is_entered(
    schedule: str, sizes: list[int], wilds: list[int]
) -> None:
    """The schedules of RULES.md (22 rounds for 3…13…3; 3…15 with aces wild at 14 cards and
    twos at 15), the deal passing left from the first dealer."""
    sheet = sheet_of({"preset": "classic", "schedule": schedule}, dealer=2)
    shapes = sheet.shapes()
    assert [s.cards_dealt for s in shapes] == sizes
    assert [s.wild for s in shapes] == wilds
    assert [s.dealer for s in shapes] == [(2 + i) % 3 for i in range(len(sizes))]
    assert sheet.next_round == 1
    assert sheet.status == "playing"
    assert sheet.totals == (0, 0, 0)


def test_the_first_dealer_is_drawn_at_random_when_not_given() -> None:
    """Over many sheets every seat deals first some time (a fixed choice would fail this with
    certainty; a fair draw fails it with probability below 1e-17)."""
    dealers = {new_sheet(list(PLAYERS), "classic").first_dealer for _ in range(100)}
    assert dealers == {0, 1, 2}


# -- scoring, option by option --------------------------------------------------------------------


def test_classic_deadwood_is_the_least_over_every_arrangement() -> None:
    """Round 3, fives wild: 5S fills 4H _ 6H, leaving KC QD (10 + 10); with a second five,
    the two fives make a set of kings with KC instead (4H and QD left: 4 + 10)."""
    assert score_one("classic", 3, hand(0, "4H", "6H", "5S", "KC", "QD")) == 20
    assert score_one("classic", 3, hand(0, "4H", "5H", "5S", "KC", "QD")) == 14


def test_ace_and_face_points_follow_the_rules() -> None:
    entry = hand(0, "AC", "KD", "JH")  # round 1: threes wild, nothing melds
    assert score_one("classic", 1, entry) == 1 + 10 + 10
    assert score_one("online", 1, entry) == 15 + 13 + 11
    assert score_one({"preset": "classic", "ace_points": 20}, 1, entry) == 20 + 10 + 10
    faces = {"preset": "classic", "face_points": [11, 12, 13]}
    assert score_one(faces, 1, entry) == 1 + 13 + 11


def test_aces_high_or_low_make_queen_king_ace_a_run() -> None:
    entry = hand(0, "QH", "KH", "AH", "9C")  # round 2: fours wild
    assert score_one("classic", 2, entry) == 10 + 10 + 1 + 9
    assert score_one({"preset": "classic", "aces": "high_or_low"}, 2, entry) == 9


def test_unmatched_wilds_and_jokers_cost_their_penalty() -> None:
    """Round 1, threes wild: the 3C and the joker cannot meld with KD alone."""
    entry = hand(0, "3C", "KD", "7H")
    assert score_one("classic", 1, entry) == 3 + 10 + 7
    assert score_one("online", 1, entry) == 50 + 13 + 7
    assert score_one({"preset": "classic", "wild_points": 25}, 1, entry) == 25 + 10 + 7
    joker = hand(0, "JK", "KD", "7H")
    assert score_one("online", 1, joker) == 50 + 13 + 7
    assert score_one({"preset": "classic", "jokers": 2, "joker_points": 30}, 1, joker) == 47
    five_crowns = hand(0, "3X", "KX", "JK")  # a round wild (20) and a joker (50)
    assert score_one("five-crowns", 1, hand(0, "3X", "KX", "7D")) == 20 + 13 + 7
    assert score_one("five-crowns", 1, five_crowns) == 0  # two wilds make a meld with KX


def test_wilds_per_meld_and_all_wild_melds() -> None:
    """Round 1, threes wild: JK JK 3C is a meld, but not with at most one wild per meld. Three
    jokers are an all-wild meld where allowed."""
    two_wilds = hand(0, "JK", "JK", "3C")
    jokers = {"preset": "classic", "jokers": 4}
    assert score_one(jokers, 1, two_wilds) == 0
    assert score_one({**jokers, "max_wilds_per_meld": 1}, 1, two_wilds) == 20 + 20 + 3
    three_jokers = hand(0, "JK", "JK", "JK")
    assert score_one(jokers, 1, three_jokers) == 0
    assert score_one({**jokers, "all_wild_melds": False}, 1, three_jokers) == 60


@pytest.mark.parametrize(
    ("bonus", "round_number", "expected"),
    [(0, 1, 0), (-5, 1, -5), (-10, 1, -10), ("minus_wild", 3, -5), ("minus_wild", 10, -10)],
)
def test_the_seat_that_went_out_scores_the_going_out_bonus(
    bonus: object, round_number: int, expected: int
) -> None:
    """From its melded cards or from 0 points alike; minus the wild: fives in round 3, queens
    (10 points in classic) in round 10."""
    rules = {"preset": "classic", "going_out_bonus": bonus}
    size = round_number + 2
    run = hand(0, *[f"{r}H" for r in "A23456789TJQK"[:size]])
    assert score_one(rules, round_number, run, out_seat=0) == expected
    assert score_one(rules, round_number, PointsEntry(0, 0), out_seat=0) == expected


def test_doubled_late_rounds_double_the_jacks_queens_and_kings_rounds() -> None:
    rules = {"preset": "classic", "doubled_late_rounds": True, "going_out_bonus": -10}
    ten_cards = hand(0, "AC", "2D", "4H", "5S", "6C", "7D", "8H", "9S", "QC", "KD")  # tens wild
    assert score_one(rules, 8, ten_cards) == 1 + 2 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10
    eleven = hand(0, "AC", "2D", "4H", "5S", "6C", "7D", "8H", "9S", "QC", "KD", "TS")  # jacks
    assert score_one(rules, 9, eleven) == 2 * (1 + 2 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10)
    assert score_one(rules, 9, PointsEntry(0, 0), out_seat=0) == -20
    assert score_one(rules, 9, PointsEntry(0, 33)) == 33  # points are taken as given


def test_a_failed_go_out_adds_its_penalty_after_doubling() -> None:
    rules = {"preset": "classic", "failed_go_out": "penalty", "doubled_late_rounds": True}
    eleven = hand(0, "AC", "2D", "4H", "5S", "6C", "7D", "8H", "9S", "QC", "KD", "TS", failed=1)
    assert score_one(rules, 9, eleven) == 2 * 72 + 20
    twice = hand(0, "AC", "KD", "QH", failed=2)
    assert score_one({**rules, "failed_go_out_penalty": 15}, 1, twice) == 21 + 30
    run = hand(0, "AH", "2H", "3H", failed=1)  # failed once, then went out
    assert score_one(rules, 1, run, out_seat=0) == 0 + 20


def test_a_failed_go_out_is_refused_where_it_scores_nothing() -> None:
    with pytest.raises(FailedGoOutNotScored) as refused:
        score_one("classic", 1, hand(0, "AC", "KD", "QH", failed=1))
    assert refused.value.field == "entries[0].failed_go_outs"
    assert "reject" in str(refused.value)
    with pytest.raises(FailedGoOutNotScored) as given:
        score_one({"preset": "classic", "failed_go_out": "penalty"}, 1, PointsEntry(0, 9, 1))
    assert given.value.field == "entries[0].failed_go_outs"


def test_the_seat_marked_out_must_meld_every_card_or_enter_zero() -> None:
    with pytest.raises(OutSeatNotMelded) as unmelded:
        score_one("classic", 1, hand(0, "AH", "2H", "KC"), out_seat=0)
    assert unmelded.value.field == "entries[0].cards"
    assert "13 points of deadwood (KC AH 2H)" in str(unmelded.value)
    with pytest.raises(OutSeatNotMelded) as points:
        score_one("classic", 1, PointsEntry(0, 4), out_seat=0)
    assert points.value.field == "entries[0].points"


def test_under_redemption_a_hand_may_hold_fewer_cards_than_dealt() -> None:
    """Cards laid off on others' melds leave the hand."""
    assert score_one({"preset": "classic", "redemption": True}, 3, hand(0, "KC", "2D")) == 12
    with pytest.raises(WrongHandSize):
        score_one("classic", 3, hand(0, "KC", "2D"))


@st.composite
def scored_hands(draw: st.DrawFn) -> tuple[Rules, int, tuple[int, ...], bool]:
    """Rules with random scoring options, a round, a hand of its size from the pack, and
    whether it is the hand of the seat that went out (then melded: a run of clubs)."""
    preset = draw(st.sampled_from(["classic", "online", "five-crowns"]))
    spec: dict[str, object] = {
        "preset": preset,
        "going_out_bonus": draw(st.sampled_from([0, -5, -10, "minus_wild"])),
        "doubled_late_rounds": draw(st.booleans()),
        "wild_points": draw(st.sampled_from([None, 0, 20, 50])),
        "joker_points": draw(st.sampled_from([0, 20, 50])),
        "face_points": draw(st.sampled_from([[10, 10, 10], [11, 12, 13]])),
        "schedule": draw(st.sampled_from(["up", "down"])),
    }
    if preset != "five-crowns":
        spec["ace_points"] = draw(st.sampled_from([1, 13, 15, 20]))
        spec["aces"] = draw(st.sampled_from(["low", "high_or_low"]))
    rules = Rules.from_spec(spec)
    round_number = draw(st.integers(1, rules.rounds))
    size = rules.hand_size(round_number)
    went_out = draw(st.booleans()) and size <= rules.max_run_length
    if went_out:
        low = rules.low_rank
        held = tuple(range(low - 1, low - 1 + size))  # clubs from the lowest rank: a run
    else:
        pack = rules.pack(3)
        held = tuple(draw(st.permutations(pack))[:size])
    return rules, round_number, held, went_out


@settings(max_examples=40, deadline=None)
@given(scored_hands())
def test_a_cards_entry_scores_as_the_rules_say_against_the_reference(
    case: tuple[Rules, int, tuple[int, ...], bool],
) -> None:
    """Deadwood from the slow reference (or the going-out bonus: 0, -5, -10 or minus the wild
    rank's value), doubled in the J Q K rounds when the option is on."""
    rules, round_number, held, went_out = case
    wild = rules.wild_rank(round_number)
    if went_out:
        bonus = rules.going_out_bonus
        points = -rules.rank_value(wild) if bonus == "minus_wild" else int(bonus)
    else:
        points = reference_min_deadwood(held, wild, rules)
    if rules.doubled_late_rounds and wild >= 11:
        points *= 2
    sheet = at_round(new_sheet(list(PLAYERS), rules, 0), round_number)
    others = [PointsEntry(1, 0), PointsEntry(2, 0)]
    entered = enter_round(
        sheet, round_number, 0 if went_out else None, [CardsEntry(0, held), *others]
    )
    assert entered.counted[round_number].points_of(0) == points


# -- double naughts, ties, corrections ------------------------------------------------------------


def test_a_double_naught_is_dealt_again_and_counts_for_nothing() -> None:
    rules = {"preset": "classic", "double_naughts": True, "going_out_bonus": -10}
    sheet = at_round(sheet_of(rules), 2)
    naughts: list[Entry] = [hand(0, "4H", "5H", "6H", "7H"), PointsEntry(1, 0), PointsEntry(2, 0)]
    replayed = enter_round(sheet, 2, 0, naughts)
    assert replayed.next_round == 2, "the round is played again"
    assert replayed.totals == sheet.totals
    assert replayed.shape(2).dealer == sheet.shape(2).dealer
    assert [d.round for d in replayed.replays_of(2)] == [2]
    played = enter_round(replayed, 2, 0, [naughts[0], PointsEntry(1, 8), PointsEntry(2, 0)])
    assert played.next_round == 3
    assert played.totals == (1 - 10, 2 + 8, 3)
    # Without the option, the same round counts.
    plain = enter_round(at_round(sheet_of("classic"), 2), 2, 0, naughts)
    assert plain.next_round == 3


def test_a_round_is_dealt_again_at_most_max_replays_times_and_old_sheets_still_restore() -> None:
    rules = {"preset": "classic", "double_naughts": True}
    naughts: list[Entry] = [PointsEntry(0, 0), PointsEntry(1, 0), PointsEntry(2, 0)]
    sheet = sheet_of(rules)
    for _ in range(MAX_REPLAYS):
        sheet = enter_round(sheet, 1, 0, naughts)
    with pytest.raises(TooManyReplays) as refused:
        enter_round(sheet, 1, 0, naughts)
    assert refused.value.field == "entries"
    counted = enter_round(sheet, 1, 0, [PointsEntry(0, 0), PointsEntry(1, 4), PointsEntry(2, 0)])
    assert len(counted.replays_of(1)) == MAX_REPLAYS
    assert counted.next_round == 2
    # A sheet stored before the bound, with more replays, is still read as it was entered.
    rounds = [(1, 0, naughts)] * (3 * MAX_REPLAYS) + [
        (1, 0, [e.entry for e in counted.deals[-1].entries])
    ]
    restored = restore(list(PLAYERS), rules, 0, rounds)
    assert len(restored.replays_of(1)) == 3 * MAX_REPLAYS
    assert restored.totals == counted.totals
    assert restored.next_round == 2


def test_restore_rebuilds_a_sheet_with_replays_tie_breaks_and_corrections_as_entered() -> None:
    rules = {"preset": "classic", "double_naughts": True, "tie": "tiebreak"}
    naughts: list[Entry] = [PointsEntry(0, 0), PointsEntry(1, 0), PointsEntry(2, 0)]
    sheet = enter_round(sheet_of(rules), 1, 0, naughts)
    sheet = at_round(enter_round(sheet, 1, None, [PointsEntry(s, 1) for s in range(3)]), 11)
    sheet = enter_round(sheet, 11, 0, naughts)
    sheet = enter_round(
        sheet, 11, None, [PointsEntry(0, 20), PointsEntry(1, 10), PointsEntry(2, 0)]
    )
    assert sheet.tiebreak_due
    sheet = enter_round(sheet, 12, 0, naughts)  # a naught again
    sheet = enter_round(sheet, 12, 1, [PointsEntry(0, 3), PointsEntry(1, 0), PointsEntry(2, 4)])
    sheet = enter_round(sheet, 2, None, [PointsEntry(s, s + 3) for s in range(3)])  # still tied
    assert [d.replayed for d in sheet.deals].count(True) == 3
    rounds = [(d.round, d.out_seat, [e.entry for e in d.entries]) for d in sheet.deals]
    assert restore(list(PLAYERS), rules, 0, rounds) == sheet


def test_ties_share_the_win() -> None:
    sheet = at_round(sheet_of("classic"), 11)
    finished = enter_round(
        sheet, 11, None, [PointsEntry(0, 20), PointsEntry(1, 0), PointsEntry(2, 0)]
    )
    # Totals: 1 * 10 + 20, 2 * 10 + 0, 3 * 10 + 0.
    assert finished.totals == (30, 20, 30)
    assert finished.winners == (1,)
    tied = enter_round(sheet, 11, None, [PointsEntry(0, 10), PointsEntry(1, 0), PointsEntry(2, 0)])
    assert tied.status == "finished"
    assert tied.winners == (0, 1)


def test_the_tiebreak_option_adds_one_round_among_the_tied() -> None:
    """Dealt like the last round (13 cards, kings wild) by the next dealer; its lowest score
    wins; it adds nothing to the totals; a correction that ends the tie drops it."""
    sheet = at_round(sheet_of({"preset": "classic", "tie": "tiebreak"}), 11)
    tied = enter_round(sheet, 11, None, [PointsEntry(0, 10), PointsEntry(1, 0), PointsEntry(2, 0)])
    assert tied.status == "playing"
    assert tied.next_round == 12
    shape = tied.shape(12)
    assert (shape.cards_dealt, shape.wild, shape.seats, shape.tiebreak) == (13, 13, (0, 1), True)
    assert shape.dealer == (0 + 11) % 3
    with pytest.raises(NoSuchSeat) as untied:
        enter_round(tied, 12, None, [PointsEntry(0, 1), PointsEntry(1, 2), PointsEntry(2, 0)])
    assert untied.value.field == "entries[2].seat"
    done = enter_round(tied, 12, None, [PointsEntry(0, 4), PointsEntry(1, 9)])
    assert done.status == "finished"
    assert done.winners == (0,)
    assert done.totals == tied.totals
    untie = enter_round(done, 11, None, [PointsEntry(0, 30), PointsEntry(1, 0), PointsEntry(2, 0)])
    assert untie.winners == (1,)
    assert untie.last_round == 11
    assert all(d.round <= 11 for d in untie.deals)


def test_entering_an_earlier_round_again_corrects_it() -> None:
    sheet = at_round(sheet_of("classic"), 4)
    corrected = enter_round(
        sheet, 2, None, [PointsEntry(0, 40), PointsEntry(1, 0), PointsEntry(2, 3)]
    )
    assert corrected.totals == (1 + 40 + 1, 2 + 0 + 2, 3 + 3 + 3)
    assert corrected.next_round == 4
    assert len(corrected.deals) == len(sheet.deals)


def test_a_correction_into_a_double_naught_waits_for_no_later_round() -> None:
    rules = {"preset": "classic", "double_naughts": True}
    zeros = [PointsEntry(0, 0), PointsEntry(1, 0), PointsEntry(2, 0)]
    sheet = at_round(sheet_of(rules), 4)
    with pytest.raises(ReplayConflict) as conflict:
        enter_round(sheet, 2, None, zeros)
    assert conflict.value.field == "entries"
    last = enter_round(sheet, 3, None, zeros)
    assert last.next_round == 3
    assert [d.replayed for d in last.deals] == [False, False, True]


def test_rounds_are_entered_in_order_and_only_those_on_the_sheet() -> None:
    sheet = at_round(sheet_of("classic"), 3)
    with pytest.raises(RoundNotOpen) as early:
        enter_round(sheet, 4, None, [PointsEntry(s, 0) for s in range(3)])
    assert early.value.field == "round"
    for bad in (0, 12, -1):
        with pytest.raises(RoundOutOfRange):
            enter_round(sheet, bad, None, [PointsEntry(s, 0) for s in range(3)])


# -- refusals, each naming its field --------------------------------------------------------------

ROUND_3 = at_round(sheet_of("classic", players=("Ann", "Bob")), 3)  # five cards, fives wild


@pytest.mark.parametrize(
    ("out_seat", "entries", "error", "field", "says"),
    [
        (None, [PointsEntry(0, 1), PointsEntry(2, 1)], NoSuchSeat, "entries[1].seat", "seat 2"),
        (5, [PointsEntry(0, 1), PointsEntry(1, 1)], NoSuchSeat, "out_seat", "out_seat 5"),
        (
            None,
            [PointsEntry(0, 1), PointsEntry(0, 2)],
            SeatEnteredTwice,
            "entries[1].seat",
            "two entries",
        ),
        (None, [PointsEntry(1, 1)], SeatNotEntered, "entries", "seat 0 (Ann) has no entry"),
        (
            None,
            [hand(0, "KC", "QD", "JH", "9S"), PointsEntry(1, 0)],
            WrongHandSize,
            "entries[0].cards",
            "seat 0 (Ann) holds 4 cards, but round 3 leaves exactly 5",
        ),
        (
            None,
            [hand(0, "KC", "QD", "JH", "9S", "JK"), PointsEntry(1, 0)],
            CardNotInPack,
            "entries[0].cards[4]",
            "JK is not a card of the classic pack",
        ),
        (
            None,
            [hand(0, "KC", "QD", "JH", "9S", "2C"), hand(1, "KC", "AD", "AH", "7S", "8D")],
            TooManyCopies,
            "entries[1].cards[0]",
            "seat 1's KC",
        ),
        (
            1,
            [PointsEntry(0, 7), hand(1, "KC", "AD", "AH", "7S", "8D")],
            OutSeatNotMelded,
            "entries[1].cards",
            "seat 1 went out",
        ),
    ],
)
def test_a_bad_entry_is_refused_naming_its_field(
    out_seat: int | None,
    entries: list[Entry],
    error: type[SheetError],
    field: str,
    says: str,
) -> None:
    with pytest.raises(error) as refused:
        enter_round(ROUND_3, 3, out_seat, entries)
    assert refused.value.field == field
    assert says in str(refused.value)
    assert ROUND_3.next_round == 3


# -- presets --------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_takes_two_to_its_limit_and_deals_from_its_own_pack(preset: str) -> None:
    rules = Rules.preset_named(preset)
    names = [f"P{i}" for i in range(rules.max_players)]
    sheet = new_sheet(names, preset, 0)
    assert len(sheet.shapes()) == 11
    for count in (1, rules.max_players + 1):
        with pytest.raises(RulesError):
            new_sheet([f"P{i}" for i in range(count)], preset, 0)
    # Round 1 for every seat: three cards of a suit's run each, scored 0.
    suits = "CDHSX"[: rules.suits]
    low = "A" if rules.low_rank == 1 else "3"
    run = ["4", "5", "6"] if low == "3" else ["A", "2", "3"]
    entries: list[Entry] = [
        hand(s, *[f"{r}{suits[s % len(suits)]}" for r in run]) for s in range(len(names))
    ]
    assert enter_round(sheet, 1, 0, entries).totals == (0,) * len(names)
    stranger = "2C" if preset == "five-crowns" else "7X"
    with pytest.raises(CardNotInPack):
        enter_round(sheet, 1, None, [hand(0, "KD", "QD", stranger), *entries[1:]])


def test_copies_follow_the_decks_of_the_pack() -> None:
    """Classic: one deck for two players, two for three or four."""
    pair = [hand(0, "KC", "QD", "JH"), hand(1, "KC", "QS", "JD")]
    with pytest.raises(TooManyCopies):
        enter_round(sheet_of("classic", players=("A", "B")), 1, None, pair)
    three = sheet_of("classic")
    assert enter_round(three, 1, None, [*pair, PointsEntry(2, 0)]).totals == (30, 30, 0)
    with pytest.raises(TooManyCopies):
        enter_round(three, 1, None, [*pair, hand(2, "KC", "2D", "4D")])


# -- a whole sheet --------------------------------------------------------------------------------


def test_a_whole_eleven_round_sheet_with_every_kind_of_entry_and_a_correction() -> None:
    """Three players, going out -10, J Q K rounds doubled, failed go-outs +20. Ann always
    enters her cards, Bob his points, Cy alternates; the seat out rotates (melded cards or 0
    points); Ann fails a go-out in round 5; round 5 is corrected after round 7. Every score is
    checked against the rules applied by hand to the slow reference analyser's deadwood."""
    spec = {
        "preset": "classic",
        "going_out_bonus": -10,
        "doubled_late_rounds": True,
        "failed_go_out": "penalty",
    }
    rules = Rules.from_spec(spec)
    sheet = new_sheet(list(PLAYERS), spec, 1)
    deal_rng = random.Random(21)
    expected_rounds: dict[int, list[int]] = {}

    def play(round_number: int, bob_points: int) -> None:
        nonlocal sheet
        size, wild = round_number + 2, round_number + 2
        out = round_number % 3
        pack = [c for c in rules.pack(3) if not (c // 13 == 2 and c % 13 < size)]
        deal_rng.shuffle(pack)
        run = cards(*[f"{r}H" for r in "A23456789TJQK"[:size]])  # a melded hand: a heart run
        entries: list[Entry] = []
        scores = []
        for seat in range(3):
            failed = 1 if (seat, round_number) == (0, 5) else 0
            by_cards = seat == 0 or (seat == 2 and round_number % 2)
            if seat == out:
                entry: Entry = CardsEntry(seat, run, failed) if by_cards else PointsEntry(seat, 0)
                deadwood = 0
            elif by_cards:
                held = tuple(pack.pop() for _ in range(size))
                entry = CardsEntry(seat, held, failed)
                deadwood = reference_min_deadwood(held, wild, rules)
            else:
                entry = PointsEntry(seat, bob_points if seat == 1 else 3 * round_number)
                deadwood = entry.points
            entries.append(entry)
            doubled = 2 if wild >= 11 else 1
            if seat == out:
                scores.append(-10 * doubled + 20 * failed)
            elif isinstance(entry, PointsEntry):
                scores.append(entry.points)
            else:
                scores.append(deadwood * doubled + 20 * failed)
        sheet = enter_round(sheet, round_number, out, entries[::-1])  # any order
        expected_rounds[round_number] = scores
        assert [sheet.counted[round_number].points_of(s) for s in range(3)] == scores

    for r in range(1, 8):
        play(r, bob_points=5 * r)
    play(5, bob_points=99)  # the correction: Bob's round 5 was 99, not 25
    assert sheet.next_round == 8
    for r in range(8, 12):
        play(r, bob_points=5 * r)

    totals = tuple(sum(expected_rounds[r][s] for r in range(1, 12)) for s in range(3))
    assert sheet.totals == totals
    assert sheet.status == "finished"
    assert sheet.winners == tuple(s for s in range(3) if totals[s] == min(totals))
    assert sheet.counted[5].points_of(1) == 99
    assert sheet.counted[5].entries[0].entry.failed_go_outs == 1
    assert [d.round for d in sheet.deals] == list(range(1, 12))
    # What the store keeps (the entries as given) rebuilds the same sheet.
    again = restore(
        list(PLAYERS),
        rules.to_spec(),
        1,
        [(d.round, d.out_seat, [e.entry for e in d.entries]) for d in sheet.deals],
    )
    assert again == sheet

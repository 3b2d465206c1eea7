"""Pairing (``service.tournaments.pairing``) and scoring (``service.tournaments.standings``):
pure functions, checked by properties over many fields, table sizes and histories, the Swiss's
"no repeat when avoidable" against a brute-force search of every pairing."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.tournaments.pairing import (
    Pairing,
    met,
    round_robin,
    round_robin_length,
    swiss,
)
from service.tournaments.records import RoundRecord, TableRecord
from service.tournaments.standings import place_of, seat_halves, standings


def assert_a_round(pairing: Pairing, entrants: int, table_size: int) -> None:
    """Every entrant once: at one table of ``table_size``, or sitting out; as few out as the
    tables leave over."""
    seated = [e for table in pairing.tables for e in table]
    assert all(len(table) == table_size for table in pairing.tables)
    assert sorted(seated + list(pairing.byes)) == list(range(entrants))
    assert len(pairing.byes) == entrants % table_size


def assert_byes_fair(history: list[Pairing], entrants: int) -> None:
    """After every round, nobody has a second bye while anyone has none."""
    had = Counter[int]()
    for pairing in history:
        had.update(pairing.byes)
        counts = [had[e] for e in range(entrants)]
        assert max(counts) - min(counts) <= 1, counts


fields = st.integers(2, 8).flatmap(lambda k: st.tuples(st.integers(k, 24), st.just(k)))


@settings(max_examples=60, deadline=None)
@given(fields)
def test_a_round_robin_seats_everyone_once_a_round_until_every_two_have_met(
    field: tuple[int, int],
) -> None:
    entrants, table_size = field
    history: list[Pairing] = []
    while (pairing := round_robin(entrants, table_size, history)) is not None:
        assert_a_round(pairing, entrants, table_size)
        history.append(pairing)
    assert len(history) == round_robin_length(entrants, table_size)
    assert met(history) == {frozenset(p) for p in combinations(range(entrants), 2)}
    assert_byes_fair(history, entrants)


@pytest.mark.parametrize("entrants", range(2, 17))
def test_a_round_robin_at_tables_of_two_is_the_circle_each_pair_exactly_once(
    entrants: int,
) -> None:
    history: list[Pairing] = []
    while (pairing := round_robin(entrants, 2, history)) is not None:
        history.append(pairing)
    assert len(history) == entrants - 1 + entrants % 2
    pairs = Counter(frozenset(t) for p in history for t in p.tables)
    assert set(pairs.values()) == {1}
    assert len(pairs) == entrants * (entrants - 1) // 2
    assert sorted(b for p in history for b in p.byes) == (
        list(range(entrants)) if entrants % 2 else []
    )


@settings(max_examples=80, deadline=None)
@given(fields, st.integers(1, 6), st.randoms(use_true_random=False))
def test_swiss_rounds_seat_everyone_once_and_give_byes_fairly(
    field: tuple[int, int], rounds: int, rng: random.Random
) -> None:
    entrants, table_size = field
    history: list[Pairing] = []
    for _ in range(rounds):
        ranking = rng.sample(range(entrants), entrants)
        pairing = swiss(ranking, table_size, history)
        assert_a_round(pairing, entrants, table_size)
        history.append(pairing)
    assert_byes_fair(history, entrants)


def _repeat_free_exists(players: list[int], seen: set[frozenset[int]]) -> bool:
    """Slow and obviously right: some pairing of ``players`` in twos meets nobody twice."""
    if not players:
        return True
    head, rest = players[0], players[1:]
    return any(
        frozenset((head, mate)) not in seen
        and _repeat_free_exists([p for p in rest if p != mate], seen)
        for mate in rest
    )


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 10), st.integers(1, 6), st.randoms(use_true_random=False))
def test_swiss_never_pairs_two_again_when_a_pairing_without_that_exists(
    entrants: int, rounds: int, rng: random.Random
) -> None:
    history: list[Pairing] = []
    for _ in range(rounds):
        ranking = rng.sample(range(entrants), entrants)
        pairing = swiss(ranking, 2, history)
        seen = met(history)
        seated = sorted(e for t in pairing.tables for e in t)
        repeats = [t for t in pairing.tables if frozenset(t) in seen]
        if _repeat_free_exists(seated, seen):
            assert repeats == [], (history, pairing)
        history.append(pairing)


def test_swiss_heads_each_table_with_the_best_placed_still_to_seat() -> None:
    first = swiss([3, 1, 0, 2, 5, 4, 7, 6], 4, [])
    assert first.tables == ((3, 1, 0, 2), (5, 4, 7, 6))
    # Round 2 of 8 at tables of 4: meeting someone again is unavoidable; as few as can be.
    second = swiss([3, 1, 0, 2, 5, 4, 7, 6], 4, [first])
    assert all(
        sum(frozenset(p) in met([first]) for p in combinations(t, 2)) == 2 for t in second.tables
    )


def test_a_seat_scores_one_point_a_seat_below_it_and_half_a_point_a_seat_level() -> None:
    scores = (40, 12, 40, 75)
    assert [seat_halves(scores, s) for s in range(4)] == [3, 6, 3, 0]
    assert [place_of(scores, s) for s in range(4)] == [2, 1, 2, 4]
    assert sum(seat_halves(scores, s) for s in range(4)) == 4 * 3  # k (k - 1) / 2 points


def test_standings_order_by_points_then_buchholz_then_wins_then_total_then_entry() -> None:
    # Round 1: 0 beats 1, 2 beats 3. Round 2: 0 beats 2, 3 beats 1. 4 sits out both rounds
    # at tables of 2 (a bye scores half a point).
    played = (
        RoundRecord(
            (TableRecord("g1", (0, 1), (10, 20)), TableRecord("g2", (2, 3), (5, 9))), (4,), 0
        ),
        RoundRecord(
            (TableRecord("g3", (0, 2), (1, 2)), TableRecord("g4", (3, 1), (7, 7))), (4,), 0
        ),
    )
    rows = standings(5, 2, played)
    assert [(r.entrant, r.halves) for r in rows] == [(0, 4), (2, 2), (4, 2), (1, 1), (3, 1)]
    # 2 and 4 level on points: 2 met 3 and 0 (Buchholz 5 halves), 4 met nobody.
    assert rows[1].buchholz_halves == 5
    assert rows[2].byes == 2
    # 1 and 3 level on points: 1 met 0 and 3 (Buchholz 5 halves), 3 met 2 and 1 (3 halves).
    assert [(r.entrant, r.buchholz_halves) for r in rows[3:]] == [(1, 5), (3, 3)]


def test_level_on_points_and_buchholz_the_wins_decide_then_the_lower_total() -> None:
    # Three at one table twice: 0 shares the win with 1, then with 2.
    played = (
        RoundRecord((TableRecord("g1", (0, 1, 2), (10, 10, 30)),), (), 0),
        RoundRecord((TableRecord("g2", (0, 1, 2), (5, 50, 5)),), (), 0),
    )
    rows = standings(3, 3, played)
    # Halves: 0 = 3 + 3 = 6, 1 = 3 + 0 = 3, 2 = 0 + 3 = 3; 1 and 2 have one shared win each
    # and the same Buchholz: the lower total (1: 60, 2: 35) puts 2 first.
    assert [(r.entrant, r.halves, r.wins, r.total) for r in rows] == [
        (0, 6, 2, 15),
        (2, 3, 1, 35),
        (1, 3, 1, 60),
    ]

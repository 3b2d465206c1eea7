"""The review (engine.records.review): each decision's points lost and grade against a plain
brute force (tests/engine/review_reference.py) over the small rounds of purposeful random games,
scripted missed go-outs, and the totals per seat and per round."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.game import Deal, Discard, Draw, GameState, apply, new_game, public_log, view
from engine.game.actions import CallEnd
from engine.records.record import record_of
from engine.records.review import GRADES, Decision, GameReview, grade_of, review_game
from engine.rules import Rules
from engine.seen import sight
from tests.engine.game_scenarios import choose
from tests.engine.review_reference import expected, speed_seen
from tests.engine.review_reference import expected_speed as speed_expected
from tests.engine.test_game_properties import NO_SHRINK, configurations
from tests.engine.test_records_speed import speed_played


def played_rounds(rules: str, seed: int, last_round: int) -> GameState:
    state = new_game(["a", "b"], rules, seed)
    rng = random.Random(seed)
    while state.status == "playing" and state.round <= last_round:
        state = apply(state, state.turn, choose(state, rng))
    return state


@pytest.mark.parametrize("rules", ["classic", "online", "five-crowns"])
def test_grades_and_points_lost_match_a_brute_force_in_small_rounds(rules: str) -> None:
    grades: Counter[str] = Counter()
    checked = 0
    for seed in range(6):
        state = played_rounds(rules, seed, last_round=2)
        decisions = {d.version: d for d in review_game(state).decisions}
        upcards = {r.deal: r.upcard for r in record_of(state).rounds}
        game = new_game(["a", "b"], rules, seed)
        deal_start = 0
        for record in state.history:
            # Small positions only: rounds 1 and 2, first deals, no reshuffled stock.
            if game.round <= 2 and game.deal == game.round and len(game.shuffles) == game.deal:
                want = expected(game, record.action, upcards[game.deal], deal_start)
                got = decisions[game.version + 1]
                assert got.lost == pytest.approx(want.lost), (seed, game.version)
                assert got.grade == want.grade, (seed, game.version)
                grades[got.grade] += 1
                checked += 1
            deal = game.deal
            game = apply(game, record.seat, record.action)
            if game.deal != deal:
                deal_start = game.version
    assert checked > 50
    # Purposeful random play errs: every grade shows up, each checked.
    assert set(grades) == set(GRADES), grades


def test_the_review_sees_what_the_hint_sees_from_the_whole_public_log() -> None:
    """The review reads the public log from the deal's first action on: the seat's sight is
    the same as from the whole log, which the hint reads."""
    state = played_rounds("online", 3, last_round=4)
    game = new_game(["a", "b"], "online", 3)
    deal_start = 0
    for record in state.history:
        seat = record.seat
        whole = sight(view(game, seat), public_log(game, seat), seat, game.rules)
        part = sight(view(game, seat), public_log(game, seat, since=deal_start), seat, game.rules)
        assert part == whole
        deal = game.deal
        game = apply(game, seat, record.action)
        if game.deal != deal:
            deal_start = game.version


# -- scripted positions ---------------------------------------------------------------------------


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text.split()))


def scripted(hands: tuple[str, str], upcard: str, actions: list[tuple[int, object]]) -> GameReview:
    """Seat 1 plays first (seat 0 deals); the stock's top is 9C then 2D."""
    deal = Deal((cards(hands[0]), cards(hands[1])), cards(upcard)[0], cards("9C 2D"))
    state = new_game(["a", "b"], "classic", 1, first_dealer=0, deals={1: deal})
    for seat, action in actions:
        assert isinstance(action, Draw | Discard)
        state = apply(state, seat, action)
    return review_game(state)


def only(decisions: tuple[Decision, ...], version: int) -> Decision:
    return next(d for d in decisions if d.version == version)


def test_taking_the_stock_when_the_upcard_goes_out_is_a_missed_go_out() -> None:
    result = scripted(("TS JS QD", "4H 5H KS"), "6H", [(1, Draw("stock"))])
    draw = only(result.decisions, 1)
    assert draw.grade == "missed_go_out"
    assert draw.best == Draw("discard")
    assert draw.best_go_out_chance == 1.0
    assert draw.best_expected == 0.0
    assert draw.lost == pytest.approx(draw.expected)
    assert draw.accuracy == 0.0


def test_not_declaring_a_go_out_is_a_missed_go_out_and_declaring_it_is_best() -> None:
    missed = scripted(
        ("TS JS QD", "4H 5H KS"), "6H", [(1, Draw("discard")), (1, Discard(cards("KS")[0]))]
    )
    assert only(missed.decisions, 1).grade == "best"
    discard = only(missed.decisions, 2)
    assert discard.grade == "missed_go_out"
    assert discard.lost == 0.0
    assert discard.best == Discard(cards("KS")[0], go_out=True)
    out = scripted(
        ("TS JS QD", "4H 5H KS"),
        "6H",
        [(1, Draw("discard")), (1, Discard(cards("KS")[0], go_out=True))],
    )
    assert only(out.decisions, 2).grade == "best"


def test_keeping_a_king_over_an_ace_is_a_blunder() -> None:
    """AH 2H KS QS after the draw: the AH's discard keeps 22 points, the KS's or QS's 13."""
    result = scripted(
        ("TS JS QD", "AH 2H KS"), "QS", [(1, Draw("discard")), (1, Discard(cards("AH")[0]))]
    )
    discard = only(result.decisions, 2)
    assert (discard.expected, discard.best_expected, discard.lost) == (22.0, 13.0, 9.0)
    assert discard.grade == "blunder"
    assert isinstance(discard.best, Discard)
    assert discard.best.card in cards("KS QS")
    assert discard.accuracy == pytest.approx(10.0)


def test_totals_per_seat_and_round_add_up() -> None:
    state = played_rounds("classic", 5, last_round=11)
    result = review_game(state)
    assert state.status == "finished"
    for tally in result.seats:
        mine = [d for d in result.decisions if d.seat == tally.seat]
        assert tally.decisions == len(mine)
        assert tally.lost == pytest.approx(sum(d.lost for d in mine))
        assert sum(n for _, n in tally.grades) == len(mine)
        assert [g for g, _ in tally.grades] == list(GRADES)
        assert tally.accuracy == pytest.approx(sum(d.accuracy for d in mine) / len(mine))
        per_round = [t for r in result.rounds for t in r.seats if t.seat == tally.seat]
        assert sum(t.lost for t in per_round) == pytest.approx(tally.lost)
        assert sum(t.decisions for t in per_round) == tally.decisions
    assert len({r.deal for r in result.rounds}) == len(result.rounds) >= 11


@settings(
    max_examples=10,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configurations(), st.integers(0, 2**32))
def test_every_draw_and_discard_is_reviewed_under_every_preset_and_option(
    configuration: tuple[Rules, int, int | None], policy: int
) -> None:
    """Per-player piles, redemption's lay-offs, failed go-outs, deals again: each draw and
    discard with a choice gets a decision whose figures agree with its grade."""
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()!r} players={players} seed={seed} policy={policy}")
    state = new_game([f"p{i}" for i in range(players)], rules, seed)
    rng = random.Random(policy)
    while state.status == "playing" and state.version < 600:
        state = apply(state, state.turn, choose(state, rng))
    decisions = review_game(state).decisions
    choices = [r for r in state.history if isinstance(r.action, Draw | Discard)]
    assert 0 < len(decisions) <= len(choices)
    for d in decisions:
        assert d.lost == pytest.approx(max(0.0, d.expected - d.best_expected))
        if d.grade != "missed_go_out":
            assert d.grade == grade_of(
                d.lost, missed_go_out=False, gave_up_chance=d.go_out_chance < d.best_go_out_chance
            )


def test_speed_grades_and_points_lost_match_a_brute_force_in_small_rounds() -> None:
    """Each seat's choice in each speed call, judged from what it knew at the call's start,
    against the brute force of tests/engine/review_reference.py (rounds 1 and 2, first deals,
    no reshuffle)."""
    grades: Counter[str] = Counter()
    checked = 0
    for seed in range(6):
        state = speed_played(
            {"preset": "classic", "turns": "speed"},
            2 + seed % 2,
            seed,
            seed,
            until=lambda s: s.round > 2,
        )
        decisions = {(d.version, d.seat): d for d in review_game(state).decisions}
        game = new_game(state.players, state.rules, seed)
        start, upcards = game, {s: game.piles[s][-1] for s in game.active}
        calls: list[CallEnd] = []
        for version, record in enumerate(state.history, 1):
            game = apply(game, record.seat, record.action)
            if not isinstance(record.action, CallEnd):
                continue
            small = (
                start.round <= 2 and start.deal == start.round and len(start.shuffles) == start.deal
            )
            for move in record.action.moves if small else ():
                seen = speed_seen(start, move.seat, upcards, calls)
                want = speed_expected(start, move.seat, move.action, seen)
                got = decisions[version, move.seat]
                assert got.lost == pytest.approx(want.lost), (seed, version, move)
                assert got.grade == want.grade, (seed, version, move)
                grades[got.grade] += 1
                checked += 1
            calls.append(record.action)
            if game.deal != start.deal:
                upcards, calls = {s: game.piles[s][-1] for s in game.active}, []
            start = game
    assert checked > 100
    assert {"best", "blunder", "missed_go_out"} <= set(grades), grades

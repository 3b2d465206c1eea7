"""Every option of RULES.md, each shown changing a game the way the rules say.

Most tests deal chosen hands (two seats, dealer 0, so seat 1 plays first) and play a few turns.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import parse_card
from engine.errors import CannotGoOut, IllegalAction, WrongPhase
from engine.game import (
    Discard,
    Draw,
    GameState,
    LayOff,
    apply,
    legal_actions,
    new_game,
    public_view,
    replay,
)
from engine.game.state import Shuffles
from engine.rules import Rules
from tests.engine.game_scenarios import cards, choose, last_card, stacked, stacked_pack

C = parse_card


def classic(**options: Any) -> dict[str, Any]:
    return {"preset": "classic", **options}


def scenario(**options: Any) -> GameState:
    """Seat 1 holds 4H 5H 6H and will draw KS; seat 0 holds 9C KD QS and will draw 7C."""
    return stacked(
        ["9C KD QS", "4H 5H 6H"], upcard="2D", stock="KS 7C 8D 8S 2C 2H", rules=classic(**options)
    )


def draw_and_discard(state: GameState, card: str, *, go_out: bool = False) -> GameState:
    seat = state.turn
    return apply(apply(state, seat, Draw("stock")), seat, Discard(C(card), go_out=go_out))


def points_by_seat(state: GameState) -> dict[int, int]:
    assert state.last_round is not None
    return {r.seat: r.points for r in state.last_round.results}


def play_scenario_round(**options: Any) -> GameState:
    """Seat 1 goes out throwing KS; seat 0's last turn draws 7C and throws 9C (KD QS 7C: 27)."""
    state = draw_and_discard(scenario(**options), "KS", go_out=True)
    return draw_and_discard(state, "9C")


# -- going-out bonus ------------------------------------------------------------------------------


@pytest.mark.parametrize(("bonus", "expected"), [(0, 0), (-5, -5), (-10, -10), ("minus_wild", -3)])
def test_the_going_out_bonus_is_the_score_of_whoever_goes_out(bonus: Any, expected: int) -> None:
    state = play_scenario_round(going_out_bonus=bonus)
    assert points_by_seat(state) == {0: 27, 1: expected}
    assert public_view(state).players[1].score == expected


# -- failed go-out --------------------------------------------------------------------------------


def test_a_failed_go_out_is_rejected_by_default_and_nothing_happens() -> None:
    state = apply(scenario(), 1, Draw("stock"))
    with pytest.raises(CannotGoOut) as refused:
        apply(state, 1, Discard(C("4H"), go_out=True))
    assert refused.value.deadwood_points == 5 + 6 + 10
    assert Discard(C("4H"), go_out=True) not in legal_actions(state, 1)


def test_a_failed_go_out_costs_the_penalty_under_the_penalty_rule() -> None:
    rules = classic(failed_go_out="penalty")
    state = stacked(["8C 8D 8S", "4H 5H 6H"], upcard="2D", stock="KS 7C 2C 2H", rules=rules)
    state = apply(state, 1, Draw("stock"))
    assert Discard(C("4H"), go_out=True) in legal_actions(state, 1)
    state = apply(state, 1, Discard(C("4H"), go_out=True))
    # Not out: the discard stands and play goes on.
    assert state.out_seat is None
    assert state.turn == 0
    assert public_view(state).discard_top == C("4H")
    state = draw_and_discard(state, "7C", go_out=True)  # seat 0 goes out for real
    state = draw_and_discard(state, "2C")  # seat 1's last turn: 5H 6H KS left
    assert points_by_seat(state) == {0: 0, 1: 5 + 6 + 10 + 20}


# -- first lap ------------------------------------------------------------------------------------


def test_without_first_lap_go_outs_nobody_goes_out_before_a_full_lap() -> None:
    state = apply(scenario(first_lap_go_out=False), 1, Draw("stock"))
    assert Discard(C("KS"), go_out=True) not in legal_actions(state, 1)
    with pytest.raises(IllegalAction, match="full turn"):
        apply(state, 1, Discard(C("KS"), go_out=True))
    state = apply(state, 1, Discard(C("KS")))
    state = draw_and_discard(state, "7C")
    state = draw_and_discard(state, "8D", go_out=True)
    assert state.out_seat == 1
    # By default the first player may go out at once.
    assert draw_and_discard(scenario(), "KS", go_out=True).out_seat == 1


# -- doubled late rounds --------------------------------------------------------------------------


def kings_round(doubled: bool) -> GameState:
    """The 13…3 schedule starts with thirteen cards, kings wild: a late round."""
    rules = classic(schedule="down", doubled_late_rounds=doubled)
    hands = ["AH 3H 5H 7H 9H JH 2S 4S 6S 8S TS QS JD", "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"]
    state = stacked(hands, upcard="AD", stock="5D 3D", rules=rules)
    assert state.wild == 13
    state = draw_and_discard(state, "5D", go_out=True)
    return draw_and_discard(state, "3D")


def test_doubled_late_rounds_double_the_jacks_queens_and_kings_rounds() -> None:
    plain = 1 + 3 + 5 + 7 + 9 + 10 + 2 + 4 + 6 + 8 + 10 + 10 + 10
    assert points_by_seat(kings_round(doubled=False))[0] == plain
    assert points_by_seat(kings_round(doubled=True))[0] == 2 * plain
    # The threes round is not a late one.
    assert points_by_seat(play_scenario_round(doubled_late_rounds=True))[0] == 27


# -- round schedules ------------------------------------------------------------------------------

UP = list(range(3, 14))
SCHEDULES = {
    "up": [(n, n) for n in UP],
    "down": [(n, n) for n in reversed(UP)],
    "up_down": [(n, n) for n in UP] + [(n, n) for n in reversed(UP)],
    "extended": [(n, n) for n in UP] + [(14, 1), (15, 2)],
}


@pytest.mark.parametrize("schedule", list(SCHEDULES))
def test_every_round_schedule_deals_and_wilds_as_the_rules_say(schedule: str) -> None:
    rng = random.Random(2)
    state = new_game(["a", "b"], classic(schedule=schedule), 5)
    dealt = [(len(state.hands[0]), public_view(state).wild)]
    while state.status == "playing":
        before = state.round
        state = apply(state, state.turn, choose(state, rng))
        if state.status == "playing" and state.round != before:
            dealt.append((len(state.hands[0]), public_view(state).wild))
    assert dealt == SCHEDULES[schedule]
    assert len(public_view(state).players[0].round_scores) == len(SCHEDULES[schedule])


def test_aces_are_wild_in_the_fourteen_card_round_of_the_extended_schedule() -> None:
    rules = Rules.from_spec(classic(schedule="extended"))
    state = new_game(["a", "b"], rules, 1)
    rng = random.Random(1)
    while state.round < 12:
        state = apply(state, state.turn, choose(state, rng))
    assert (state.wild, len(state.hands[0])) == (1, 14)
    # Deal round 12 again from a stacked pack (same dealer), replaying the game up to there.
    hands = [
        "AS AD 5C 5D 5S 3H 4H 6H 7H 8H 9H TH JH QH",
        "2C 3C 4C 6C 7C 8C 9C TC JC QC KC 2D 3D 4D",
    ]
    pack = stacked_pack(rules, 2, state.dealer, hands, upcard="2S", stock="7D 6D")
    record = Shuffles(state.first_dealer, (*state.shuffles[:-1], pack))
    state = replay(["a", "b"], rules, record, state.log)
    assert sorted(state.hands[0]) == sorted(cards(hands[0]))
    # AS and AD are wild: one fills the 5H gap of 3H…QH, the other extends it.
    seat = state.turn
    state = apply(state, seat, Draw("stock"))
    if seat == 0:
        assert Discard(C("7D"), go_out=True) in legal_actions(state, 0)


# -- double naughts -------------------------------------------------------------------------------


def all_melded_round(**options: Any) -> GameState:
    state = stacked(["8C 8D 8S", "4H 5H 6H"], upcard="2D", stock="KS 7C", rules=classic(**options))
    state = draw_and_discard(state, "KS", go_out=True)
    return draw_and_discard(state, "7C")


def test_double_naughts_replays_a_round_that_everybody_melded() -> None:
    state = all_melded_round(double_naughts=True)
    assert state.last_round is not None
    assert state.last_round.replayed
    assert (state.round, state.dealer, state.deal) == (1, 0, 2)
    assert [len(h) for h in state.hands] == [3, 3]
    assert [p.round_scores for p in public_view(state).players] == [(), ()]
    # Without it the round counts: both score 0 and round 2 follows.
    state = all_melded_round()
    assert state.last_round is not None
    assert not state.last_round.replayed
    assert (state.round, state.dealer) == (2, 1)
    assert [p.round_scores for p in public_view(state).players] == [(0,), (0,)]


def test_double_naughts_looks_at_deadwood_so_a_going_out_bonus_does_not_count() -> None:
    state = all_melded_round(double_naughts=True, going_out_bonus=-5)
    assert state.last_round is not None
    assert state.last_round.replayed
    assert state.round == 1


# -- per-player discard piles ---------------------------------------------------------------------


def test_per_player_piles_take_the_top_of_any_pile() -> None:
    state = scenario(discard_piles="per_player")
    v = public_view(state)
    # The upcard starts the dealer's pile.
    assert (v.discard_top, v.discard_tops) == (None, (C("2D"), None))
    assert Draw("discard", 0) in legal_actions(state, 1)
    assert Draw("discard", 1) not in legal_actions(state, 1)
    with pytest.raises(IllegalAction, match="empty"):
        apply(state, 1, Draw("discard"))  # seat 1's own pile
    with pytest.raises(IllegalAction, match="no discard pile 5"):
        apply(state, 1, Draw("discard", 5))
    state = apply(state, 1, Draw("discard", 0))
    state = apply(state, 1, Discard(C("KS") if C("KS") in state.hands[1] else C("2D")))
    assert public_view(state).discard_tops == (None, C("2D"))
    state = apply(state, 0, Draw("discard", 1))
    assert C("2D") in state.hands[0]


# -- redemption -----------------------------------------------------------------------------------


def redemption_round(redemption: bool) -> GameState:
    rules = classic(redemption=redemption)
    state = stacked(["7H 9C KD", "4H 5H 6H"], upcard="2D", stock="KS QC", rules=rules)
    return draw_and_discard(state, "KS", go_out=True)


def test_redemption_lays_deadwood_off_on_the_melds_of_whoever_went_out() -> None:
    state = redemption_round(redemption=True)
    view = public_view(state)
    assert view.table is not None
    assert [m.cards for m in view.table[1]] == [tuple(cards("4H 5H 6H"))]
    with pytest.raises(WrongPhase, match="a lay_off is not allowed in the 'draw' phase"):
        apply(state, 0, LayOff(C("7H"), 1, 0))  # before drawing
    state = apply(state, 0, Draw("stock"))  # QC
    assert LayOff(C("7H"), 1, 0) in legal_actions(state, 0)
    assert LayOff(C("9C"), 1, 0) not in legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="does not extend"):
        apply(state, 0, LayOff(C("9C"), 1, 0))
    with pytest.raises(IllegalAction, match="no meld 3"):
        apply(state, 0, LayOff(C("7H"), 1, 3))
    with pytest.raises(IllegalAction, match="other seats"):
        apply(state, 0, LayOff(C("7H"), 0, 0))
    state = apply(state, 0, LayOff(C("7H"), 1, 0))
    assert public_view(state).table == ((), (state.table[1][0],))
    assert state.table[1][0].cards == tuple(cards("4H 5H 6H 7H"))
    state = apply(state, 0, Discard(C("KD")))
    assert points_by_seat(state) == {0: 9 + 10, 1: 0}
    assert state.last_round is not None
    melds_of_1 = state.last_round.results[1].melds
    assert [m.cards for m in melds_of_1] == [tuple(cards("4H 5H 6H 7H"))]
    # Without redemption the same turn keeps 7H: 7 + 9 + 10.
    plain = draw_and_discard(redemption_round(redemption=False), "KD")
    assert points_by_seat(plain) == {0: 7 + 9 + 10, 1: 0}


def test_a_lay_off_keeps_a_card_the_turn_may_discard() -> None:
    """With the upcard rule, laying off every other card would leave only the card just taken
    from the discard pile, which may not be thrown back: that last lay-off is refused."""
    rules = classic(redemption=True, discard_drawn_upcard=False)
    state = stacked(["7H 8H 3H", "4H 5H 6H"], upcard="2D", stock="KS QC", rules=rules)
    state = draw_and_discard(state, "KS", go_out=True)
    state = apply(state, 0, Draw("discard"))  # KS
    state = apply(state, 0, LayOff(C("7H"), 1, 0))
    state = apply(state, 0, LayOff(C("8H"), 1, 0))
    assert LayOff(C("3H"), 1, 0) not in legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="no card this turn may discard"):
        apply(state, 0, LayOff(C("3H"), 1, 0))
    assert legal_actions(state, 0) == [Discard(C("3H"))]


def test_cards_are_laid_off_only_after_someone_went_out() -> None:
    state = apply(scenario(redemption=True), 1, Draw("stock"))
    with pytest.raises(IllegalAction, match="after someone has gone out"):
        apply(state, 1, LayOff(C("4H"), 0, 0))
    assert not [a for a in legal_actions(state, 1) if isinstance(a, LayOff)]


# -- stock exhausted ------------------------------------------------------------------------------


def run_the_stock_dry(rule: str) -> tuple[GameState, GameState]:
    """Both seats draw from the stock and throw the card drawn until the stock is empty."""
    rules = classic(stock_exhausted=rule)
    state = stacked(["9C KD QS", "2H 7S JC"], upcard="2D", rules=rules)
    assert public_view(state).stock_count == 52 - 6 - 1
    for _ in range(44):
        state = apply(state, state.turn, Draw("stock"))
        state = apply(state, state.turn, Discard(last_card(state)))
    last = apply(state, state.turn, Draw("stock"))
    assert public_view(last).stock_count == 0
    return last, apply(last, last.turn, Discard(last_card(last)))


def test_an_empty_stock_is_reshuffled_from_the_discards_but_the_top_card() -> None:
    before, after = run_the_stock_dry("reshuffle")
    assert after.round == 1
    v = public_view(after)
    # The upcard and 45 discards: all but the top one make the new stock.
    assert v.stock_count == 45
    assert len(after.piles[0]) == 1
    assert after.piles[0][0] == last_card(before)
    assert len(after.shuffles) == 2


def test_an_empty_stock_ends_the_round_under_the_end_round_rule() -> None:
    _, after = run_the_stock_dry("end_round")
    assert after.round == 2
    assert after.last_round is not None
    assert after.last_round.out_seat is None
    assert points_by_seat(after) == {0: 9 + 10 + 10, 1: 2 + 7 + 10}


# -- ties -----------------------------------------------------------------------------------------

CLUBS = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]
DIAMONDS = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]
SCATTERED = "AH 3H 5H 7H 9H JH 2S 4S 6S 8S TS QS JD"


def tied_game(tie: str) -> GameState:
    """Eleven rounds in which both seats are dealt a run and both score 0, then (under the
    tie-break rule) one more round that seat 0 wins."""
    rules = Rules.from_spec(classic(tie=tie))
    packs = []
    for round_number in range(1, 12):
        size = round_number + 2
        hands = [" ".join(CLUBS[:size]), " ".join(DIAMONDS[:size])]
        dealer = (round_number - 1) % 2
        packs.append(stacked_pack(rules, 2, dealer, hands, upcard="KH", stock="2S 3S"))
    # The tie-break round is dealt by seat (0 + 11) % 2 = 1, so seat 0 plays first.
    tiebreak = [" ".join(CLUBS), SCATTERED]
    packs.append(stacked_pack(rules, 2, 1, tiebreak, upcard="KH", stock="5D 3D"))
    state = replay(["a", "b"], rules, Shuffles(0, tuple(packs)), [])
    while state.status == "playing":
        drawn = state.stock[-1]
        state = apply(state, state.turn, Draw("stock"))
        state = apply(state, state.turn, Discard(drawn, go_out=state.out_seat is None))
    return state


def test_a_tie_is_a_shared_win_by_default() -> None:
    state = tied_game("shared")
    v = public_view(state)
    assert [p.score for p in v.players] == [0, 0]
    assert v.winners == (0, 1)
    assert v.round == 11


def test_the_tiebreak_rule_plays_one_more_round_among_the_tied() -> None:
    state = tied_game("tiebreak")
    v = public_view(state)
    assert v.winners == (0,)
    assert state.last_round is not None
    assert state.last_round.tiebreak
    assert state.last_round.round == 12
    assert {r.seat: r.points for r in state.last_round.results} == {0: 0, 1: 85}
    # The tie-break decides the winners; the totals stay those of the eleven rounds.
    assert [p.score for p in v.players] == [0, 0]
    assert [len(p.round_scores) for p in v.players] == [11, 11]


# -- discarding the upcard just drawn -------------------------------------------------------------


def test_the_upcard_just_drawn_may_be_thrown_back_unless_the_rules_forbid_it() -> None:
    state = apply(scenario(), 1, Draw("discard"))
    assert Discard(C("2D")) in legal_actions(state, 1)
    apply(state, 1, Discard(C("2D")))
    state = apply(scenario(discard_drawn_upcard=False), 1, Draw("discard"))
    assert Discard(C("2D")) not in legal_actions(state, 1)
    with pytest.raises(IllegalAction, match="just drawn"):
        apply(state, 1, Discard(C("2D")))
    # With two decks, the other 2D in the hand may go.
    rules = classic(decks=2, discard_drawn_upcard=False)
    state = stacked(["9C KD QS", "4H 5H 2D"], upcard="2D", rules=rules)
    state = apply(state, 1, Draw("discard"))
    assert Discard(C("2D")) in legal_actions(state, 1)


# -- meld options seen in a game: all-wild melds, one wild per meld, jokers ---------------------


def go_out_with(hand: str, **options: Any) -> GameState:
    state = stacked(["9C KD QS", hand], upcard="2D", stock="KS 7C", rules=classic(**options))
    return draw_and_discard(state, "KS", go_out=True)


def test_an_all_wild_meld_goes_out_unless_the_rules_forbid_it() -> None:
    assert go_out_with("JK JK JK", jokers=4).out_seat == 1
    with pytest.raises(CannotGoOut):
        go_out_with("JK JK JK", jokers=4, all_wild_melds=False)


def test_three_cards_of_the_wild_rank_are_a_set_whatever_the_rules() -> None:
    # Threes are wild in round 1, and each may play as itself: a set of threes with no wild.
    assert go_out_with("3C 3D 3H").out_seat == 1
    assert go_out_with("3C 3D 3H", all_wild_melds=False).out_seat == 1
    assert go_out_with("3C 3D 3H", max_wilds_per_meld=1).out_seat == 1


def test_a_wild_rank_card_in_its_own_run_counts_as_no_wild() -> None:
    # 3C 4C and 3D as the wild (2C or 5C): one wild in the meld.
    assert go_out_with("4C 3C 3D", max_wilds_per_meld=1).out_seat == 1


def test_one_wild_per_meld_refuses_a_meld_of_one_natural_and_two_wilds() -> None:
    assert go_out_with("4H 3C 3D").out_seat == 1
    with pytest.raises(CannotGoOut):
        go_out_with("4H 3C 3D", max_wilds_per_meld=1)


def test_jokers_are_wild_and_cost_their_penalty_when_unmatched() -> None:
    assert go_out_with("4H 5H JK", jokers=2).out_seat == 1
    rules = classic(jokers=2)
    state = stacked(["9C KD JK", "4H 5H 6H"], upcard="2D", stock="KS 7C", rules=rules)
    state = draw_and_discard(state, "KS", go_out=True)
    state = draw_and_discard(state, "7C")
    assert points_by_seat(state) == {0: 9 + 10 + 20, 1: 0}

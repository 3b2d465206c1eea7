"""The end of a round: an empty stock restocked, the hands laid out and scored, the next deal,
a tie-break round, or the end of the game with its winners."""

from __future__ import annotations

from engine.analysis import Meld
from engine.cards import Card, Rank
from engine.game.dealing import deal, shuffle
from engine.game.evolve import evolve
from engine.game.melding import (
    arrange,
)
from engine.game.scoring import seat_score
from engine.game.state import (
    GameState,
    RoundResult,
    SeatResult,
)


def restock(state: GameState) -> GameState:
    """The stock is empty at the start of a turn: reshuffle all discards but each pile's top card
    into a new stock, or (``stock_exhausted: end_round``, or nothing to reshuffle) end the round."""
    under = [c for pile in state.piles for c in pile[:-1]]
    if state.rules.stock_exhausted == "end_round" or not under:
        return end_round(state)
    state, order = shuffle(state, under)
    return evolve(state, stock=order, piles=tuple(pile[-1:] for pile in state.piles))


def end_round(state: GameState) -> GameState:
    rules = state.rules
    n = len(state.players)
    result = round_result(state)
    tiebreak = result.tiebreak
    results = result.results
    state = evolve(state, last_round=result, results=(*state.results, result))
    if result.replayed:
        return deal(state, state.round, state.active)
    if not tiebreak:
        by_seat = {r.seat: r.points for r in results}
        state = evolve(
            state,
            round_scores=tuple(
                (*scores, by_seat.get(seat, 0)) for seat, scores in enumerate(state.round_scores)
            ),
        )
    if state.round < rules.rounds:
        return deal(state, state.round + 1, tuple(range(n)))
    if tiebreak:
        lowest = min(r.points for r in results)
        return finish(state, tuple(r.seat for r in results if r.points == lowest))
    totals = state.totals
    tied = tuple(seat for seat in range(n) if totals[seat] == min(totals))
    if len(tied) > 1 and rules.tie == "tiebreak":
        return deal(state, rules.rounds + 1, tied)
    return finish(state, tied)


def round_result(state: GameState) -> RoundResult:
    """Every hand dealt in laid out and scored; each seat that went out scores as one."""
    rules = state.rules
    wild = state.wild
    out_seats = state.out_seats or (() if state.out_seat is None else (state.out_seat,))
    results = []
    all_melded = True
    for seat in state.active:
        melds, deadwood, points = lay_out_hand(state, seat, wild)
        all_melded = all_melded and points == 0
        score = seat_score(
            rules, wild, points, went_out=seat in out_seats, penalty=state.penalties[seat]
        )
        results.append(SeatResult(seat, melds, deadwood, score))
    return RoundResult(
        state.round,
        state.out_seat,
        tuple(results),
        replayed=rules.double_naughts and all_melded,
        tiebreak=state.round > rules.rounds,
        out_seats=out_seats,
    )


def lay_out_hand(
    state: GameState, seat: int, wild: Rank
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """A seat's best arrangement at the end of a round. Under redemption a seat that has laid
    its melds on the table keeps only deadwood in its hand; its melds are the table's."""
    melds, deadwood, points = arrange(state.hands[seat], wild, state.rules)
    laid = state.table[seat]
    return (*laid, *melds), deadwood, points


def finish(state: GameState, winners: tuple[int, ...]) -> GameState:
    # The last round's cards stay where they lie, so the pack can still be accounted for.
    return evolve(state, status="finished", winners=winners)

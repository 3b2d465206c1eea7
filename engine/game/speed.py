"""3-13 Speed (``turns: speed``): play in calls, every seat choosing at once.

A call is a draw call or a discard call. Each seat still in the round (dealt in, not gone out)
makes one secret choice per call, and may replace it until the call ends. The call ends when
the last of them chooses, or when the caller's time runs out (``CallTimeout``: every seat that
has not chosen draws from the stock, or discards the card it just drew). Then every choice is
applied at once and recorded in one ``CallEnd``:

- draws: a seat takes the top of the stock, or of the pile of the seat on its right (the
  previous seat in play, whose discards pass to it); stock cards are dealt in play order, from
  the dealer's left. Each pile has one drawer, so the order changes nothing else.
- discards: each onto the seat's own pile, or a joker onto another seat's pile under
  ``joker_discards: any_pile``; the cards land in play order. Any seat whose hand melds but for
  its discard may go out, several on one call; every other seat then has one more draw call and
  discard call, and the round is scored with each seat that went out scoring as one.
- a draw call opens only with a stock that can serve every seat choosing: otherwise the
  discards under each pile's top are shuffled in beneath what is left (``reshuffle``) or the
  round ends (``end_round``, or too few cards either way).
"""

from __future__ import annotations

from engine.cards import Card
from engine.errors import (
    CannotGoOut,
    IllegalAction,
    NotNeighboursPile,
    SeatHasGoneOut,
    SeatNotDealtIn,
    WrongCall,
)
from engine.game.actions import (
    CALLER,
    DISCARD_PHASE,
    DISCARDS,
    DRAW_PHASE,
    GO_OUTS,
    STOCK_DRAW,
    Action,
    CallEnd,
    CallTimeout,
    Choice,
    Discard,
    Draw,
    Move,
    action_name,
)
from engine.game.dealing import seats_after, shuffle
from engine.game.discarding import checked_discard, discard_pile, go_out_refusal, legal_discards
from engine.game.drawing import check_source
from engine.game.evolve import evolve, is_int, recorded, replace_at, state_from
from engine.game.melding import deadwood_points, without
from engine.game.round_end import end_round
from engine.game.state import GameState, Record

# -- who chooses, and what ------------------------------------------------------------------------


def choosers(state: GameState) -> list[int]:
    """The seats that choose in the open call, in play order (from the dealer's left)."""
    n = len(state.players)
    out = state.out_seats
    return [s for s in seats_after(state.dealer, state.active, n) if s not in out]


def right_neighbour(state: GameState, seat: int) -> int:
    """The seat whose pile ``seat`` draws from: the previous seat dealt in."""
    n = len(state.players)
    before = (seat - 1) % n
    while before not in state.active:
        before = (before - 1) % n
    return before


def check_chooser(state: GameState, seat: int) -> None:
    """Raises why ``seat`` makes no choice this round: it was not dealt in, or it went out."""
    if seat not in state.active:
        raise SeatNotDealtIn(seat)
    if seat in state.out_seats:
        raise SeatHasGoneOut(seat)


def legal_choices(state: GameState, seat: int) -> list[Action]:
    """Every choice ``seat`` may make in the open call (none if it makes no choice in it)."""
    if seat not in state.active or seat in state.out_seats:
        return []
    if state.phase is DRAW_PHASE:
        neighbour = right_neighbour(state, seat)
        if state.piles[neighbour]:
            return [STOCK_DRAW, Draw("discard", neighbour)]
        return [STOCK_DRAW]
    return legal_discards(_as_seat_on_turn(state, seat), seat)


def _as_seat_on_turn(state: GameState, seat: int) -> GameState:
    """The state as the discard rules of a turn read it: ``upcard`` the seat's own."""
    fields = dict(state.__dict__)
    fields["upcard"] = state.upcards[seat]
    return state_from(fields)


# -- a choice -------------------------------------------------------------------------------------


def apply_speed(state: GameState, seat: int, action: Action) -> GameState:
    """``apply`` in a speed game: a seat's choice, or the caller's timeout."""
    if seat == CALLER:
        return _caller(state, action)
    n = len(state.players)
    if not is_int(seat) or not 0 <= seat < n:
        raise IllegalAction(f"no seat {seat!r}: seats are 0 to {n - 1}")
    seat = int(seat)
    check_chooser(state, seat)
    match action:
        case Draw():
            choice: Choice = _checked_draw(state, seat, action)
        case Discard():
            choice = _checked_discard(state, seat, action)
        case CallTimeout():
            raise IllegalAction("only the caller times a call out", field="type")
        case _:
            raise IllegalAction(f"not a choice in a speed call: {action!r}")
    fields = dict(state.__dict__)
    fields["choices"] = replace_at(state.choices, seat, choice)
    fields["version"] = state.version + 1
    card = choice.card if type(choice) is Discard else None
    fields["records"] = recorded(state.records, Record(seat, choice, card, state.deal))
    state = state_from(fields)
    if all(state.choices[s] is not None for s in choosers(state)):
        return _end_call(state, timed_out=False)
    return state


def _caller(state: GameState, action: Action) -> GameState:
    """The caller's actions: a timeout, or a call's end read back from a game's records (see
    ``CallEnd``)."""
    if type(action) is CallTimeout:
        return time_out(state)
    if type(action) is CallEnd:
        if action.timed_out:
            return time_out(state)
        if action == state.last_record_action:
            return state  # made by the choice before it, which ended the call
        raise IllegalAction("a call ends by itself once every seat has chosen", field="type")
    raise IllegalAction(f"the caller only times a call out, not {action!r}", field="type")


def _checked_draw(state: GameState, seat: int, action: Draw) -> Draw:
    if state.phase is not DRAW_PHASE:
        raise WrongCall(state.phase.value, action, kind=action_name(action))
    check_source(action)
    if action.source == "stock":
        return STOCK_DRAW
    neighbour = right_neighbour(state, seat)
    if action.pile is not None and action.pile != neighbour:
        raise NotNeighboursPile(action.pile, neighbour)
    if not state.piles[neighbour]:
        raise IllegalAction(f"discard pile {neighbour} is empty", field="source")
    return Draw("discard", neighbour)


def _checked_discard(state: GameState, seat: int, action: Discard) -> Discard:
    if state.phase is not DISCARD_PHASE:
        raise WrongCall(state.phase.value, action, kind=action_name(action))
    card = checked_discard(state, seat, action, state.upcards[seat])
    pile = discard_pile(state, seat, action.pile, card)
    if action.go_out:
        refusal = go_out_refusal(state)
        if refusal is not None:
            raise IllegalAction(refusal, field="go_out")
        left = deadwood_points(without(state.hands[seat], card), state.wild, state.rules)
        if left and state.rules.failed_go_out == "reject":
            raise CannotGoOut(left)
    if pile == seat:
        return (GO_OUTS if action.go_out else DISCARDS)[card]
    return Discard(card, action.go_out, pile)


# -- the end of a call ----------------------------------------------------------------------------


def time_out(state: GameState) -> GameState:
    """The caller's time ran out: defaults for every seat that has not chosen, and the call ends."""
    choices = list(state.choices)
    for seat in choosers(state):
        if choices[seat] is None:
            choices[seat] = default_choice(state, seat)
    return _end_call(evolve(state, choices=tuple(choices)), timed_out=True)


def default_choice(state: GameState, seat: int) -> Choice:
    """A draw from the stock; a discard of the card just drawn, or where the rules forbid
    discarding it again, of the first card of the hand that they allow."""
    if state.phase is DRAW_PHASE:
        return STOCK_DRAW
    drawn = state.drawn[seat]
    hand = state.hands[seat]
    upcard = state.upcards[seat]
    if drawn is None or (
        not state.rules.discard_drawn_upcard and drawn == upcard and hand.count(drawn) == 1
    ):
        drawn = next(c for c in hand if c != upcard or hand.count(c) > 1)
    return DISCARDS[drawn]


def _end_call(state: GameState, *, timed_out: bool) -> GameState:
    last_call = bool(state.out_seats)  # the last discard call after a go-out, if one
    if state.phase is DRAW_PHASE:
        state, moves = _draws_applied(state)
    else:
        state, moves = _discards_applied(state)
    end = CallEnd(state.calls + 1, state.phase, tuple(moves), timed_out)
    ended = evolve(
        state,
        version=state.version + 1,
        records=recorded(state.records, Record(CALLER, end, None, state.deal)),
        calls=state.calls + 1,
        choices=(None,) * len(state.players),
        phase=DISCARD_PHASE if state.phase is DRAW_PHASE else DRAW_PHASE,
    )
    if ended.phase is DISCARD_PHASE:
        return ended
    if last_call or (ended.out_seats and not ended.last_turns):
        return end_round(ended)  # after the last calls, or when every seat went out at once
    return _open_draw_call(ended)


def _draws_applied(state: GameState) -> tuple[GameState, list[Move]]:
    stock = list(state.stock)
    piles = list(state.piles)
    hands = list(state.hands)
    drawn: list[Card | None] = [None] * len(state.players)
    upcards: list[Card | None] = [None] * len(state.players)
    moves = []
    for seat in choosers(state):
        action = state.choices[seat]
        assert type(action) is Draw
        if action.pile is None:
            card = stock.pop()
        else:
            card = piles[action.pile][-1]
            piles[action.pile] = piles[action.pile][:-1]
            upcards[seat] = card
        drawn[seat] = card
        hands[seat] = tuple(sorted((*hands[seat], card)))
        moves.append(Move(seat, action, card))
    changed = evolve(
        state,
        stock=tuple(stock),
        piles=tuple(piles),
        hands=tuple(hands),
        drawn=tuple(drawn),
        upcards=tuple(upcards),
    )
    return changed, moves


def _discards_applied(state: GameState) -> tuple[GameState, list[Move]]:
    piles = list(state.piles)
    hands = list(state.hands)
    penalties = list(state.penalties)
    rules = state.rules
    went_out = []
    moves = []
    for seat in choosers(state):
        action = state.choices[seat]
        assert type(action) is Discard
        card = action.card
        hands[seat] = without(hands[seat], card)
        pile = seat if action.pile is None else action.pile
        piles[pile] = (*piles[pile], card)
        if action.go_out:
            if deadwood_points(hands[seat], state.wild, rules) == 0:
                went_out.append(seat)
            else:  # failed_go_out: penalty (a refused one never became a choice)
                penalties[seat] += rules.failed_go_out_penalty
        moves.append(Move(seat, action, card))
    playing = len(moves)
    changed = evolve(
        state,
        piles=tuple(piles),
        hands=tuple(hands),
        penalties=tuple(penalties),
        turns_done=state.turns_done + playing,
        upcards=(None,) * len(state.players),
    )
    if went_out and not state.out_seats:
        changed = evolve(
            changed,
            out_seats=tuple(went_out),
            out_seat=went_out[0],
            last_turns=playing - len(went_out),
        )
    return changed, moves


def _open_draw_call(state: GameState) -> GameState:
    """A draw call opens with a stock that serves every seat choosing, or the round ends."""
    needed = len(choosers(state))
    if len(state.stock) >= needed:
        return state
    under = [c for pile in state.piles for c in pile[:-1]]
    if state.rules.stock_exhausted == "end_round" or len(state.stock) + len(under) < needed:
        return end_round(state)
    state, order = shuffle(state, under)
    return evolve(state, stock=order + state.stock, piles=tuple(pile[-1:] for pile in state.piles))

"""The discard that ends a turn, perhaps going out; then play moves on to the next seat, a
restock, or the end of the round."""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import JOKER, Card
from engine.errors import (
    CannotGoOut,
    CardNotInHand,
    IllegalAction,
    NotAJoker,
    OptionNotEnabled,
    WrongPhase,
)
from engine.game.actions import (
    DISCARD_PHASE,
    DISCARDS,
    DRAW_PHASE,
    GO_OUTS,
    Action,
    Discard,
    action_name,
    shared,
)
from engine.game.dealing import next_seat
from engine.game.evolve import is_int, recorded, replace_at, state_from
from engine.game.melding import (
    arrange,
    deadwood_points,
    going_out_discards,
    without,
)
from engine.game.round_end import end_round, restock
from engine.game.state import (
    GameState,
    Record,
)


def legal_discards(state: GameState, seat: int) -> list[Action]:
    hand = state.hands[seat]
    distinct = dict.fromkeys(hand)  # sorted, as the hand is
    rules = state.rules
    upcard = state.upcard
    if upcard is not None and not rules.discard_drawn_upcard and hand.count(upcard) == 1:
        del distinct[upcard]
    actions: list[Action] = [DISCARDS[c] for c in distinct]
    outs: Iterable[Card] = ()
    if go_out_refusal(state) is None:
        if rules.failed_go_out == "penalty":
            outs = distinct
        else:
            out = going_out_discards(hand, state.wild, rules)
            if out:
                outs = [c for c in distinct if c in out]
        actions += [GO_OUTS[c] for c in outs]
    if JOKER in distinct and rules.joker_discards == "any_pile":
        going_out = JOKER in outs
        for pile in state.active:
            if pile != seat:
                actions.append(Discard(JOKER, pile=pile))
                if going_out:
                    actions.append(Discard(JOKER, go_out=True, pile=pile))
    return actions


def apply_discard(state: GameState, seat: int, action: Discard) -> GameState:
    if state.phase is not DISCARD_PHASE:
        raise WrongPhase(state.phase.value, action, kind=action_name(action))
    card = checked_discard(state, seat, action, state.upcard)
    index = discard_pile(state, seat, action.pile, card)
    rest = without(state.hands[seat], card)
    penalties, out_seat, last_turns = _going_out(state, seat, action, rest)
    if out_seat is not None and out_seat != seat:
        last_turns -= 1
    hands = replace_at(state.hands, seat, rest)
    table = state.table
    if out_seat is not None and state.rules.redemption:
        # Whoever goes out lays its melds on the table, and so does each seat after its last
        # turn; deadwood stays in the hand, and later seats may lay off on the melds.
        melds, deadwood, _ = arrange(rest, state.wild, state.rules)
        table = replace_at(table, seat, melds)
        hands = replace_at(hands, seat, deadwood)
    # One new state per action: apply runs thousands of times a game.
    fields = dict(state.__dict__)
    fields["hands"] = hands
    fields["piles"] = replace_at(state.piles, index, (*state.piles[index], card))
    fields["penalties"] = penalties
    fields["out_seat"] = out_seat
    fields["last_turns"] = last_turns
    fields["table"] = table
    fields["turns_done"] = state.turns_done + 1
    fields["upcard"] = None
    fields["phase"] = DRAW_PHASE
    fields["turn"] = next_seat(seat, state.active, len(state.players))
    fields["version"] = state.version + 1
    fields["records"] = recorded(state.records, Record(seat, shared(action), card, state.deal))
    state = state_from(fields)
    if out_seat is not None and last_turns == 0:
        return end_round(state)
    if not state.stock:
        return restock(state)
    return state


def checked_discard(state: GameState, seat: int, action: Discard, upcard: Card | None) -> int:
    """The card ``action`` discards from ``seat``'s hand, as a plain int, once the discard's
    own fields are checked (the card is held, ``go_out`` is a bool, the drawn upcard rule for
    ``upcard``, the card the seat took from a pile)."""
    hand = state.hands[seat]
    card = action.card
    if not (type(card) is int or is_int(card)) or card not in hand:
        raise CardNotInHand(card)
    card = int(card)  # a plain int, as in apply
    if not isinstance(action.go_out, bool):
        raise IllegalAction(f"go_out must be true or false, not {action.go_out!r}", field="go_out")
    if not state.rules.discard_drawn_upcard and card == upcard and hand.count(card) == 1:
        raise IllegalAction(
            f"card {card} was just drawn from a discard pile: the rules do not allow "
            "discarding it again this turn",
            field="card",
        )
    return card


def discard_pile(state: GameState, seat: int, pile: object, card: Card) -> int:
    """The index of the pile a discard of ``card`` by ``seat`` onto ``pile`` lands on: the shared
    pile, the seat's own, or under ``joker_discards: any_pile`` another dealt-in seat's pile for a
    joker."""
    rules = state.rules
    if rules.discard_piles != "per_player":
        if pile is not None:
            raise OptionNotEnabled("discard_piles", field="pile")
        return 0
    if pile is None or pile == seat:
        return seat
    if not is_int(pile) or pile not in state.active:
        raise IllegalAction(
            f"no discard pile {pile!r} in play: the seats dealt in are {list(state.active)}",
            field="pile",
        )
    if card != JOKER:
        raise NotAJoker(card, pile)
    if rules.joker_discards != "any_pile":
        raise OptionNotEnabled("joker_discards", field="pile")
    return pile


def _going_out(
    state: GameState, seat: int, action: Discard, rest: tuple[Card, ...]
) -> tuple[tuple[int, ...], int | None, int]:
    """The penalties, the seat out and the last turns to play once ``action`` is discarded,
    leaving ``rest`` in the hand: a go-out checked, a failed one penalised or refused."""
    penalties = state.penalties
    if not action.go_out:
        return penalties, state.out_seat, state.last_turns
    refusal = go_out_refusal(state)
    if refusal is not None:
        raise IllegalAction(refusal, field="go_out")
    rules = state.rules
    left = deadwood_points(rest, state.wild, rules)
    if left == 0:
        return penalties, seat, len(state.active) - 1
    if rules.failed_go_out == "reject":
        raise CannotGoOut(left)
    penalties = replace_at(penalties, seat, penalties[seat] + rules.failed_go_out_penalty)
    return penalties, state.out_seat, state.last_turns


def go_out_refusal(state: GameState) -> str | None:
    """Why nobody may declare a go-out now, or None if they may."""
    if state.out_seat is not None:
        return f"seat {state.out_seat} has already gone out this round"
    if not state.rules.first_lap_go_out and state.turns_done < len(state.active):
        return (
            "nobody may go out before every seat has had one full turn this round "
            "(first_lap_go_out is off)"
        )
    return None

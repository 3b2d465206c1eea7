"""Redemption: on a last turn after a go-out, cards laid off on the melds on the table."""

from __future__ import annotations

from engine.cards import Card
from engine.errors import (
    CardNotInHand,
    IllegalAction,
    OptionNotEnabled,
    WrongPhase,
)
from engine.game.actions import (
    DISCARD_PHASE,
    Action,
    LayOff,
    action_name,
    shared,
)
from engine.game.evolve import evolve, is_int, recorded, replace_at
from engine.game.melding import (
    lay_out_meld,
    without,
)
from engine.game.state import (
    GameState,
    Record,
)


def legal_lay_offs(state: GameState, seat: int) -> list[Action]:
    if not lay_off_open(state, seat):
        return []
    wild = state.wild
    hand = state.hands[seat]
    actions: list[Action] = []
    for c in sorted(set(hand)):
        if not keeps_a_discard(state, without(hand, c)):
            continue
        for owner, melds in enumerate(state.table):
            if owner == seat:
                continue
            for index, meld in enumerate(melds):
                if lay_out_meld((*meld.cards, c), wild, state.rules) is not None:
                    actions.append(LayOff(c, owner, index))
    return actions


def apply_lay_off(state: GameState, seat: int, action: LayOff) -> GameState:
    rules = state.rules
    if not rules.redemption:
        raise OptionNotEnabled("redemption", field="type")
    if state.phase is not DISCARD_PHASE:
        raise WrongPhase(state.phase.value, action, kind=action_name(action))
    if not lay_off_open(state, seat):
        raise IllegalAction("cards are laid off only on a last turn, after someone has gone out")
    hand = state.hands[seat]
    if not is_int(action.card) or action.card not in hand:
        raise CardNotInHand(action.card)
    if not keeps_a_discard(state, without(hand, action.card)):
        raise IllegalAction(
            f"laying off card {action.card} would leave no card this turn may discard: "
            "the turn ends with a discard",
            field="card",
        )
    owner = action.seat
    if owner == seat:
        raise IllegalAction(
            "cards are laid off on other seats' melds, not on your own", field="seat"
        )
    if not is_int(owner) or not 0 <= owner < len(state.players):
        raise IllegalAction(f"no seat {owner!r} to lay off on", field="seat")
    melds = state.table[owner]
    if not is_int(action.meld) or not 0 <= action.meld < len(melds):
        raise IllegalAction(f"seat {owner} has no meld {action.meld!r} on the table", field="meld")
    card = int(action.card)  # a plain int, as in apply
    extended = lay_out_meld((*melds[action.meld].cards, card), state.wild, rules)
    if extended is None:
        raise IllegalAction(
            f"card {card} does not extend seat {owner}'s meld {action.meld} into a meld",
            field="card",
        )
    table = replace_at(state.table, owner, replace_at(melds, action.meld, extended))
    return evolve(
        state,
        hands=replace_at(state.hands, seat, without(hand, card)),
        table=table,
        version=state.version + 1,
        records=recorded(state.records, Record(seat, shared(action), card, state.deal)),
    )


def lay_off_open(state: GameState, seat: int) -> bool:
    return (
        state.rules.redemption
        and state.out_seat is not None
        and state.out_seat != seat
        and state.phase is DISCARD_PHASE
    )


def keeps_a_discard(state: GameState, hand: tuple[Card, ...]) -> bool:
    """Whether ``hand`` still holds a card the seat on turn may discard to end its turn."""
    upcard = state.upcard
    if state.rules.discard_drawn_upcard or upcard is None:
        return bool(hand)
    return any(c != upcard for c in hand) or hand.count(upcard) > 1

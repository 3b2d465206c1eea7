"""The draw that starts a turn: from the stock, or from the top of a discard pile."""

from __future__ import annotations

import bisect

from engine.errors import (
    IllegalAction,
    OptionNotEnabled,
    WrongPhase,
)
from engine.game.actions import (
    DISCARD_DRAW,
    DISCARD_PHASE,
    DRAW_PHASE,
    STOCK_DRAW,
    Action,
    Draw,
    action_name,
    shared,
)
from engine.game.evolve import is_int, recorded, replace_at, state_from
from engine.game.state import (
    GameState,
    Record,
)


def legal_draws(state: GameState) -> list[Action]:
    actions: list[Action] = [STOCK_DRAW]
    if state.rules.discard_piles == "per_player":
        actions += [Draw("discard", k) for k, pile in enumerate(state.piles) if pile]
    elif state.piles[0]:
        actions.append(DISCARD_DRAW)
    return actions


def apply_draw(state: GameState, seat: int, action: Draw) -> GameState:
    if state.phase is not DRAW_PHASE:
        raise WrongPhase(state.phase.value, action, kind=action_name(action))
    check_source(action)
    if action.source == "stock":
        card = state.stock[-1]
        stock, piles, upcard = state.stock[:-1], state.piles, None
    else:
        index = pile_index(state, seat, action.pile)
        pile = state.piles[index]
        if not pile:
            raise IllegalAction(f"discard pile {index} is empty", field="source")
        card = pile[-1]
        stock, upcard = state.stock, card
        piles = replace_at(state.piles, index, pile[:-1])
    hand = state.hands[seat]
    at = bisect.bisect(hand, card)
    fields = dict(state.__dict__)
    fields["hands"] = replace_at(state.hands, seat, (*hand[:at], card, *hand[at:]))
    fields["stock"] = stock
    fields["piles"] = piles
    fields["upcard"] = upcard
    fields["phase"] = DISCARD_PHASE
    fields["version"] = state.version + 1
    fields["records"] = recorded(state.records, Record(seat, shared(action), card, state.deal))
    return state_from(fields)


def check_source(action: Draw) -> None:
    """A draw is from the stock, which takes no pile, or from a discard pile."""
    if action.source == "stock":
        if action.pile is not None:
            raise IllegalAction(
                f"a draw from the stock takes no pile, not pile {action.pile!r}", field="pile"
            )
    elif action.source != "discard":
        raise IllegalAction(
            f"draw source must be 'stock' or 'discard', not {action.source!r}", field="source"
        )


def pile_index(state: GameState, seat: int, pile: int | None) -> int:
    if state.rules.discard_piles != "per_player":
        if pile is not None:
            raise OptionNotEnabled("discard_piles", field="pile")
        return 0
    if pile is None:
        return seat
    if not is_int(pile) or not 0 <= pile < len(state.piles):
        raise IllegalAction(
            f"no discard pile {pile!r}: piles are 0 to {len(state.piles) - 1}", field="pile"
        )
    return pile

"""Wire → engine for games: an action request as the engine's action."""

from __future__ import annotations

from engine.game.actions import Action, Discard, Draw, LayOff
from service.games.action_wire import ActionRequest, DiscardAction, DrawAction, LayOffAction
from service.vocabulary.to_engine import card_from_code


def action_from_wire(request: ActionRequest) -> Action:
    match request:
        case DrawAction():
            return Draw(request.source, request.pile)
        case DiscardAction():
            return Discard(card_from_code(request.card, "card"), request.go_out, request.pile)
        case LayOffAction():
            return LayOff(card_from_code(request.card, "card"), request.seat, request.meld)
    raise AssertionError(request)  # pragma: no cover - the union above is exhaustive

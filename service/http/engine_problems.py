"""The problem each engine error answers with, keyed by the error's class: one row per class of
``engine.errors`` (a test checks that every class has its row, and that docs/contract.md lists
the same), so renaming or adding an engine error cannot silently change an answer.

Turn order, phase and a finished game conflict with the game's state (409), as does a sheet's
round entered out of order; anything else a rule forbids is an unprocessable request (422), its
``field`` naming what broke it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine import errors


def _no_field(_: Any) -> str | None:
    return None


def _own_field(exc: Any) -> str | None:
    field: str | None = exc.field
    return field


def _rules_field(exc: Any) -> str | None:
    # Rules arrive under "rules" in every body, but a players count is a top-level field.
    if exc.field is None:
        return "rules"
    if exc.field in ("players", "round"):
        return str(exc.field)
    return f"rules.{exc.field}"


def _record_place(exc: Any) -> str | None:
    # A record's first bad place: its line in the text notation, else its path in the JSON form.
    line = getattr(exc, "line", None)
    if line is not None:
        return f"line {line}"
    path: str | None = getattr(exc, "path", None)
    return path


def deal_field(error: errors.DealError) -> str:
    """Where a given deal is at fault, as the body names it (docs/records.md): the deal by its
    place in ``deal`` and the part of it, ``deal[0].hands[1]``; a deal not placed in ``deal``
    is named ``deal``, and a field of ``deal_from``'s by its own name (``rotate_seats``). The
    one spelling, for a deal the service checks (``service.records.given``) and for one the
    engine refuses as it deals (the map below)."""
    field: str = error.field
    index: int | None = getattr(error, "index", None)  # an error made without its constructor
    whole = field in ("round", "deal")
    if index is None:
        return "deal" if whole or getattr(error, "round", None) is not None else field
    at = f"deal[{index}]"
    return at if whole else f"{at}.{field}"


def _named(field: str) -> Callable[[Any], str | None]:
    return lambda _: field


@dataclass(frozen=True, slots=True)
class EngineProblem:
    status: int
    kind: str
    title: str
    field: Callable[[Any], str | None] = _no_field


_ILLEGAL: Final = EngineProblem(422, "illegal", "The request breaks a rule")

ENGINE_PROBLEMS: Final[dict[type[errors.EngineError], EngineProblem]] = {
    errors.EngineError: _ILLEGAL,
    errors.CardCodeError: EngineProblem(422, "bad-card", "A card or rank code is invalid"),
    errors.RulesError: EngineProblem(422, "bad-rules", "The rules are invalid", _rules_field),
    errors.HandError: EngineProblem(422, "bad-hand", "The hand is invalid", _named("hand")),
    # Advice for cards the pack cannot hold, or with nothing left unseen: the field named
    # (``hand``, ``upcard`` or ``seen``), as any invalid field of the request.
    errors.PackError: EngineProblem(422, "invalid-field", "A request field is invalid", _own_field),
    errors.NothingUnseen: EngineProblem(
        422, "invalid-field", "A request field is invalid", _own_field
    ),
    errors.NotYourTurn: EngineProblem(409, "not-your-turn", "It is not this seat's turn"),
    errors.WrongPhase: EngineProblem(
        409, "wrong-phase", "The action does not fit the turn's phase", _named("type")
    ),
    errors.GameFinished: EngineProblem(409, "game-finished", "The game is over"),
    errors.CardNotInHand: EngineProblem(
        422, "card-not-in-hand", "The card is not in the seat's hand", _named("card")
    ),
    errors.CannotGoOut: EngineProblem(
        422, "cannot-go-out", "The hand is not melded", _named("go_out")
    ),
    errors.OptionNotEnabled: EngineProblem(
        422, "option-not-enabled", "A house rule is off in this game", _own_field
    ),
    errors.IllegalAction: EngineProblem(
        422, "illegal-action", "The action is not allowed", _own_field
    ),
    # Speed games: a choice the open call does not take, or from a seat that has none to make
    # (409: the game's state); a pile the rules do not allow (422 naming ``pile``).
    errors.NotAJoker: EngineProblem(
        422, "not-a-joker", "Only a joker goes onto another seat's pile", _named("pile")
    ),
    errors.WrongCall: EngineProblem(
        409, "wrong-call", "The choice does not fit the open call", _named("type")
    ),
    errors.SeatHasGoneOut: EngineProblem(
        409, "seat-has-gone-out", "The seat went out this round: it makes no more choices"
    ),
    errors.SeatNotDealtIn: EngineProblem(
        409, "seat-not-dealt-in", "The seat is not dealt in this round"
    ),
    errors.NotNeighboursPile: EngineProblem(
        422, "not-neighbours-pile", "A draw takes from the right neighbour's pile", _named("pile")
    ),
    # Raised where the service checks its input first, or for a stored state it cannot read
    # (caught where games load): the generic answer, as for any rule broken.
    errors.GameSetupError: _ILLEGAL,
    errors.StateFormatError: _ILLEGAL,
    errors.UnknownBotLevel: _ILLEGAL,
    errors.SheetError: _ILLEGAL,
    errors.RoundOutOfRange: EngineProblem(
        422, "round-out-of-range", "The sheet has no such round", _own_field
    ),
    errors.RoundNotOpen: EngineProblem(
        409, "round-not-open", "An earlier round is not entered yet", _own_field
    ),
    errors.ReplayConflict: EngineProblem(
        409, "replay-conflict", "The correction would replay a round", _own_field
    ),
    errors.TooManyReplays: EngineProblem(
        409, "too-many-replays", "The round has been dealt again too often", _own_field
    ),
    errors.NoSuchSeat: EngineProblem(422, "no-such-seat", "No such seat in this round", _own_field),
    errors.SeatEnteredTwice: EngineProblem(
        422, "seat-entered-twice", "A seat has two entries", _own_field
    ),
    errors.SeatNotEntered: EngineProblem(
        422, "seat-not-entered", "A seat has no entry", _own_field
    ),
    errors.CardNotInPack: EngineProblem(
        422, "card-not-in-pack", "The card is not in the pack", _own_field
    ),
    errors.TooManyCopies: EngineProblem(
        422, "too-many-copies", "More copies than the pack holds", _own_field
    ),
    errors.WrongHandSize: EngineProblem(
        422, "wrong-hand-size", "A hand of the wrong size", _own_field
    ),
    errors.OutSeatNotMelded: EngineProblem(
        422, "out-seat-not-melded", "The seat that went out is unmelded", _own_field
    ),
    errors.FailedGoOutNotScored: EngineProblem(
        422,
        "failed-go-out-not-scored",
        "A failed go-out these rules or this entry do not score",
        _own_field,
    ),
    errors.DealError: EngineProblem(422, "bad-deal", "The given deal does not fit", deal_field),
    errors.NotationError: EngineProblem(
        422, "bad-record", "The record cannot be read", _record_place
    ),
    errors.RecordNotLegal: EngineProblem(
        422, "record-not-legal", "The record does not replay under its rules", _record_place
    ),
}

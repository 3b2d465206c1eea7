"""One exception class per rule broken; each carries the offending value in its message.

The service maps these to problem-details responses in one place, so every class here says
which part of the input or which rule it is about.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on bad input or an illegal action."""


class CardCodeError(EngineError, ValueError):
    """A card or rank code could not be parsed."""

    def __init__(self, code: object, expected: str) -> None:
        self.code = code
        super().__init__(f"invalid card code {code!r}: {expected}")


class RulesError(EngineError, ValueError):
    """A rules value is unknown, out of range, or combines options that cannot go together."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


class HandError(EngineError, ValueError):
    """A hand is empty, too large, or holds a card the rules' pack cannot contain."""


# -- advice (engine/advice.py) --------------------------------------------------------------------


class PackError(HandError):
    """Advice asked for cards that the pack cannot hold: more copies than it has, or cards it
    has none of. ``field`` names the input (``hand``, ``upcard`` or ``seen``)."""

    def __init__(self, message: str, *, field: str) -> None:
        self.field = field
        super().__init__(message)


class NothingUnseen(PackError):
    """Draw-phase advice for a hand whose own cards, upcard and seen cards take the whole pack:
    no card is left for the stock, so no stock figure can be given (``field`` is ``seen``)."""


# -- the game (engine/game) -----------------------------------------------------------------------


class NotYourTurn(EngineError):
    """A seat acted while another seat has the turn."""

    def __init__(self, seat: int, turn: int | None) -> None:
        self.seat = seat
        self.turn = turn
        super().__init__(f"seat {seat} cannot act: it is seat {turn}'s turn")


class WrongPhase(EngineError):
    """An action that the current phase of the turn does not take (a discard before drawing).
    ``kind`` is the action's name (``engine.game.ACTION_NAMES``: the game imports this module,
    not the other way)."""

    def __init__(self, phase: str, action: object, *, kind: str) -> None:
        self.phase = phase
        self.action = action
        hint = _PHASE_HINTS.get(phase)
        super().__init__(
            f"a {kind} is not allowed in the {phase!r} phase" + (f": {hint}" if hint else "")
        )


_PHASE_HINTS = {
    "draw": "the seat on turn draws first, from the stock or a discard pile",
    "discard": "the seat on turn has drawn, and ends its turn with a discard",
}


class CardNotInHand(EngineError, ValueError):
    """A discard or lay-off named a card the seat does not hold."""

    def __init__(self, card: int) -> None:
        # engine.cards imports this module, so the import waits until an error is raised.
        from engine.cards import format_card  # noqa: PLC0415

        self.card = card
        try:
            shown = repr(card) if isinstance(card, bool) else format_card(card)
        except (CardCodeError, TypeError):
            shown = repr(card)
        super().__init__(f"card {shown} is not in the hand")


class CannotGoOut(EngineError, ValueError):
    """A declared go-out whose hand, after the discard, is not fully melded."""

    def __init__(self, deadwood_points: int) -> None:
        self.deadwood_points = deadwood_points
        super().__init__(
            f"cannot go out: the hand left after the discard has {deadwood_points} "
            "points of deadwood"
        )


class OptionNotEnabled(EngineError, ValueError):
    """An action that only a house rule allows, in a game that does not play that rule."""

    def __init__(self, option: str, *, field: str) -> None:
        self.option = option
        self.field = field
        """The action's field that asked for the option."""
        super().__init__(f"the rules option {option!r} is not enabled in this game")


class GameFinished(EngineError):
    """An action on a game that is over."""

    def __init__(self) -> None:
        super().__init__("the game is finished: no more actions")


class IllegalAction(EngineError, ValueError):
    """Any other illegal action; the reason says which rule it breaks, ``field`` which of the
    action's fields (``type`` when it is the action itself)."""

    def __init__(self, reason: str, *, field: str = "type") -> None:
        self.reason = reason
        self.field = field
        super().__init__(reason)


class NotAJoker(EngineError, ValueError):
    """A card other than a joker discarded onto another seat's pile (only jokers may go there,
    under ``joker_discards: any_pile``)."""

    def __init__(self, card: int, pile: int) -> None:
        from engine.cards import format_card  # noqa: PLC0415 (see CardNotInHand)

        self.card = card
        self.pile = pile
        self.field = "pile"
        super().__init__(
            f"card {format_card(card)} cannot go onto pile {pile}: only a joker may be "
            "discarded onto another seat's pile"
        )


# -- speed games (engine/game/speed.py) -----------------------------------------------------------


class WrongCall(EngineError):
    """A choice that the open call does not take (a discard on a draw call, or the reverse);
    ``kind`` is the choice's name, as in ``WrongPhase``."""

    def __init__(self, phase: str, action: object, *, kind: str) -> None:
        self.phase = phase
        self.action = action
        self.field = "type"
        super().__init__(
            f"a {kind} is not a choice on a {phase} call: every seat "
            + ("draws" if phase == "draw" else "discards")
            + " on this call"
        )


class SeatHasGoneOut(EngineError):
    """A choice from a seat that went out this round: it has no more calls to answer."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(f"seat {seat} has gone out this round: it makes no more choices")


class SeatNotDealtIn(EngineError):
    """A choice from a seat that plays no part in this round (a tie-break among other seats)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(f"seat {seat} is not dealt in this round")


class NotNeighboursPile(EngineError, ValueError):
    """A speed draw from a pile other than the right neighbour's (the previous seat's)."""

    def __init__(self, pile: object, neighbour: int) -> None:
        self.pile = pile
        self.neighbour = neighbour
        self.field = "pile"
        super().__init__(
            f"a draw takes the top of pile {neighbour} (the seat on your right), not pile {pile!r}"
        )


class GameSetupError(EngineError, ValueError):
    """A new game or a replay was given bad players, a bad seed or a bad record of shuffles."""


class StateFormatError(EngineError, ValueError):
    """Serialised game state that cannot be read: wrong format version, or damaged data."""


class UnknownBotLevel(EngineError, ValueError):
    """A computer player of a level that does not exist."""

    def __init__(self, level: object, levels: tuple[str, ...]) -> None:
        self.level = level
        self.levels = levels
        super().__init__(f"unknown bot level {level!r}: expected one of {', '.join(levels)}")


# -- score sheets (engine/scoresheet/) -----------------------------------------------------------


class SheetError(EngineError, ValueError):
    """A round entered on a score sheet that cannot be, for the reason its class names.
    ``field`` is the path of the offending input, such as ``entries[2].cards``."""

    def __init__(self, message: str, *, field: str) -> None:
        self.field = field
        super().__init__(message)


class RoundOutOfRange(SheetError):
    """A round number the sheet's schedule does not have (nor its tie-break round)."""


class RoundNotOpen(SheetError):
    """A round entered before every round before it."""


class ReplayConflict(SheetError):
    """A correction that would make a round a double naught (replayed) once later rounds are in."""


class TooManyReplays(SheetError):
    """One more double naught of a round dealt again ``MAX_REPLAYS`` times already: a sheet
    keeps a bounded history."""


class NoSuchSeat(SheetError):
    """An entry or out seat for a seat that is not at the sheet, or not in its tie-break."""


class SeatEnteredTwice(SheetError):
    """Two entries for one seat in one round."""


class SeatNotEntered(SheetError):
    """A round entered without an entry for a seat that played it."""


class CardNotInPack(SheetError):
    """A card the sheet's pack does not hold (a two in five-crowns, a joker in classic)."""


class TooManyCopies(SheetError):
    """More copies of a card across a round's hands than the pack holds."""


class WrongHandSize(SheetError):
    """A hand of another size than the round leaves in every hand."""


class OutSeatNotMelded(SheetError):
    """The seat marked out, whose cards do not meld completely (or whose points are not 0)."""


class FailedGoOutNotScored(SheetError):
    """A failed go-out entered where it scores nothing: the rules reject failed go-outs, or the
    entry gives its points as they are."""


# -- given deals and game records (engine/game/dealing.py, engine/records) ------------------------


class DealError(EngineError, ValueError):
    """A given deal that cannot be dealt: a round the schedule does not have, hands of the wrong
    number or size, a card the pack does not hold or holds fewer copies of. ``round`` is the
    deal's round, ``field`` the part of it at fault (``hands[1]``, ``upcard``, ``stock``), and
    ``index`` the deal's place among the deals given, in the order given (None: not one of
    them, as ``deal_from``'s own fields)."""

    def __init__(
        self, message: str, *, round: int | None, field: str, index: int | None = None
    ) -> None:
        self.round = round
        self.field = field
        self.index = index
        super().__init__(message)


class NotationError(EngineError, ValueError):
    """A game record that cannot be read: the first bad ``line`` (1-based) of the text notation,
    or for the JSON form the ``path`` of the bad value; the message says what is wrong."""

    def __init__(self, message: str, *, line: int | None = None, path: str | None = None) -> None:
        self.line = line
        self.path = path
        where = f"line {line}: " if line is not None else f"{path}: " if path else ""
        self.reason = message
        super().__init__(where + message)


class RecordNotLegal(EngineError, ValueError):
    """A record that does not replay under its rules: the first action that is not legal (a card
    not in hand, out of turn, a draw that took another card), or a recorded score or result the
    replay does not reach. ``line`` is its line in the text notation (None for the JSON form),
    ``path`` its place in the JSON form (``rounds[2].actions[5]``)."""

    def __init__(self, message: str, *, line: int | None, path: str) -> None:
        self.line = line
        self.path = path
        self.reason = message
        super().__init__(f"{'line ' + str(line) if line is not None else path}: {message}")

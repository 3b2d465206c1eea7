"""The phases of a turn and the actions a seat can take: small frozen values."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final, Literal

from engine.cards import JOKER, Card

DrawSource = Literal["stock", "discard"]


class Phase(enum.StrEnum):
    DRAW = "draw"
    DISCARD = "discard"
    """After drawing: discard (perhaps going out); under redemption, on a last turn after a
    go-out, lay deadwood off on the table's melds first."""


# The phases as plain module constants: an enum member read through its class costs several
# times a global, and apply and legal_actions read them every action.
DRAW_PHASE: Final = Phase.DRAW
DISCARD_PHASE: Final = Phase.DISCARD


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock, or of a discard pile.

    ``pile`` names whose pile to take from when every seat has its own (``discard_piles:
    per_player``); None means the shared pile, or the drawer's own one.
    """

    source: DrawSource
    pile: int | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``card``; with ``go_out`` the seat declares the rest of its hand fully melded.

    ``pile`` is the seat whose pile takes the card when every seat has its own: None (or the
    seat's own number) for its own pile, another seat's only for a joker under
    ``joker_discards: any_pile``.
    """

    card: Card
    go_out: bool = False
    pile: int | None = None


@dataclass(frozen=True, slots=True)
class LayOff:
    """Redemption: lay ``card`` off on meld number ``meld`` that ``seat`` has on the table."""

    card: Card
    seat: int
    meld: int


@dataclass(frozen=True, slots=True)
class EndLayOff:
    """Kept for API symmetry; never legal. Lay-offs happen in the discard phase of a last turn,
    before the discard, so the discard itself ends the turn and no separate step is needed."""


CALLER: Final = -1
"""The seat number of the caller in a speed game: its timeout and each call's end are recorded
under it."""


@dataclass(frozen=True, slots=True)
class CallTimeout:
    """Speed: the caller's time ran out. Every seat that has not chosen gets the default (a draw
    from the stock; a discard of the card just drawn), and the call ends. Applied by ``CALLER``."""


@dataclass(frozen=True, slots=True)
class Move:
    """One seat's choice in a call that has ended, with the card it drew or discarded."""

    seat: int
    action: Draw | Discard
    card: Card | None
    """None in a log for a card another seat drew from the stock (as for a turn's draw)."""


@dataclass(frozen=True, slots=True)
class CallEnd:
    """Speed: a call ended, every choice revealed and applied at once. The engine records it
    (under ``CALLER``): the choice that completes a call makes two versions, the choice's and
    this one; a ``CallTimeout`` makes only this one (``timed_out``). A game's log replays as it
    is: applied again, a timed-out end times the call out, and the other kind, right after the
    choice that made it, changes nothing."""

    number: int
    """The call's number in its deal, from 1."""
    phase: Phase
    moves: tuple[Move, ...]
    """The choices applied, in the order they were dealt: seat order from the dealer's left."""
    timed_out: bool


@dataclass(frozen=True, slots=True)
class Chosen:
    """In a log as another seat sees it: this seat chose in the open call, and what it chose
    stays secret (the call's ``CallEnd`` shows it)."""


Action = Draw | Discard | LayOff | EndLayOff | CallTimeout | CallEnd | Chosen

ACTION_NAMES: Final[dict[type, str]] = {
    Draw: "draw",
    Discard: "discard",
    LayOff: "lay_off",
    EndLayOff: "end_lay_off",
    CallTimeout: "call_timeout",
    CallEnd: "call_end",
    Chosen: "chosen",
}
"""Each kind of action by its one name, wherever a name is written: the ``type`` of a request
body and of a log entry on the wire, an error's message, the service's actions metric; a stored
game and a record's JSON form spell the same (tests/engine/test_action_names.py)."""


def action_name(action: object) -> str:
    """The name of ``action``'s kind (its class's name for anything that is no action)."""
    return ACTION_NAMES.get(type(action), type(action).__name__)


Choice = Draw | Discard
"""What a seat may choose in a speed call."""

# The actions a game lists and stores over and over, made once: frozen values can be shared.
STOCK_DRAW: Final = Draw("stock")
DISCARD_DRAW: Final = Draw("discard")
DISCARDS: Final = tuple(Discard(c) for c in range(JOKER + 1))
"""``DISCARDS[card]`` is ``Discard(card)``."""
GO_OUTS: Final = tuple(Discard(c, go_out=True) for c in range(JOKER + 1))
"""``GO_OUTS[card]`` is ``Discard(card, go_out=True)``."""
CALL_TIMEOUT: Final = CallTimeout()
CHOSEN: Final = Chosen()


def shared(action: Action) -> Action:
    """The instance above equal to ``action`` where there is one, else ``action`` itself. A
    game's records keep these: its history then serialises each from a table (see
    ``engine.game.serialised``), however the caller built its actions."""
    if type(action) is Discard and action.pile is None and 0 <= action.card <= JOKER:
        return (GO_OUTS if action.go_out else DISCARDS)[action.card]
    if type(action) is Draw and action.pile is None:
        return STOCK_DRAW if action.source == "stock" else DISCARD_DRAW
    return action

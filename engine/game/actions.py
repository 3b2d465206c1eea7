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
    """Discard ``card``; with ``go_out`` the seat declares the rest of its hand fully melded."""

    card: Card
    go_out: bool = False


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


Action = Draw | Discard | LayOff | EndLayOff

# The actions a game lists and stores over and over, made once: frozen values can be shared.
STOCK_DRAW: Final = Draw("stock")
DISCARD_DRAW: Final = Draw("discard")
DISCARDS: Final = tuple(Discard(c) for c in range(JOKER + 1))
"""``DISCARDS[card]`` is ``Discard(card)``."""
GO_OUTS: Final = tuple(Discard(c, go_out=True) for c in range(JOKER + 1))
"""``GO_OUTS[card]`` is ``Discard(card, go_out=True)``."""


def shared(action: Action) -> Action:
    """The instance above equal to ``action`` where there is one, else ``action`` itself. A
    game's records keep these: its history then serialises each from a table (see
    ``engine.game.serialised``), however the caller built its actions."""
    if type(action) is Discard and 0 <= action.card <= JOKER:
        return (GO_OUTS if action.go_out else DISCARDS)[action.card]
    if type(action) is Draw and action.pile is None:
        return STOCK_DRAW if action.source == "stock" else DISCARD_DRAW
    return action

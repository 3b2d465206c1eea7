"""The JSON shapes of the advice: ``GET /v1/games/{game_id}/hint`` and ``POST /v1/advise``.

Built from the shared words of ``service.vocabulary.wire``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from service.http.wire import Out, Strict
from service.vocabulary.wire import (
    CanonicalCard,
    CardCode,
    Count,
    RankCode,
    RoundNumber,
    RulesSpec,
    Seat,
)

GameHand = Annotated[
    list[CardCode],
    Meta(
        min_length=1,
        max_length=16,
        description="1 to 16 cards, a game's hand after its draw: with `upcard`, at most 15.",
    ),
]
Chance = Annotated[float, Meta(ge=0, le=1, description="A probability, 0 to 1.")]


class AdviseRequest(Strict, frozen=True):
    hand: GameHand
    """Before the draw when ``upcard`` is given; else after it (one card over the round's size)."""
    wild: RankCode | None = None
    """The wild rank; when omitted, the wild rank of ``round`` under the rules' schedule."""
    round: RoundNumber | None = None
    rules: RulesSpec = "classic"
    upcard: CardCode | None = None
    """The discard pile's top card: the advice is then for the draw."""
    seen: Annotated[list[CardCode], Meta(max_length=200)] = msgspec.field(default_factory=list)
    """Cards known to be out of the stock (discarded, or held by someone who took them)."""
    players: Annotated[int, Meta(ge=2, le=16)] = 2
    """Seats at the table: they set the pack where the rules make it depend on them."""


class DrawOptionOut(Out, frozen=True):
    source: Literal["stock", "discard"]
    pile: Seat | None
    """Per-player discard piles: whose pile; null for the stock or the shared pile."""
    card: CanonicalCard | None
    """The pile's top card; null for the stock."""
    expected_deadwood: float
    """The least deadwood after the best discard: the mean over the unseen cards for the
    stock, exact for a pile's top card."""
    go_out_chance: Chance


class DiscardOptionOut(Out, frozen=True):
    card: CanonicalCard
    deadwood_points: Count
    """The least deadwood of the hand left after discarding ``card``."""
    go_out: bool


class HintOut(Out, frozen=True):
    """Draw phase: ``draw``, ``pile`` and ``options``; discard phase: ``discards`` and
    ``suggested``; both: ``reason``. The other phase's fields are null."""

    phase: Literal["draw", "discard"]
    reason: str
    """The advice in one line."""
    draw: Literal["stock", "discard"] | None = None
    pile: Seat | None = None
    """The advised pile, under per-player discard piles."""
    options: list[DrawOptionOut] | None = None
    discards: list[DiscardOptionOut] | None = None
    """Every distinct card the seat may discard, best first."""
    suggested: CanonicalCard | None = None

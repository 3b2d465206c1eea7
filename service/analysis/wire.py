"""The JSON shapes of ``POST /v1/analyse``."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from service.http.wire import Out, Strict
from service.vocabulary.wire import (
    CanonicalCard,
    CanonicalRank,
    Count,
    Hand,
    MeldOut,
    RoundNumber,
    RulesSpec,
    WildRank,
)


class AnalyseRequest(Strict, frozen=True):
    hand: Hand
    wild: WildRank = None
    round: RoundNumber | None = None
    rules: RulesSpec = "classic"


class DiscardOut(Out, frozen=True):
    card: CanonicalCard
    deadwood_points: Annotated[
        Count, Meta(description="The least deadwood of the hand left after discarding `card`.")
    ]


class AnalyseResponse(Out, frozen=True):
    wild: CanonicalRank | None
    melds: list[MeldOut]
    deadwood: list[CanonicalCard]
    deadwood_points: Count
    melded: bool
    discards: list[DiscardOut]
    suggested_discard: CanonicalCard | None
    can_go_out: bool

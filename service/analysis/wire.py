"""The JSON shapes of ``POST /v1/analyse`` and of the lines of ``POST /v1/analyse/batch``."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from service.http.wire import Out, Problem, Strict
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


class BatchProblem(Problem, frozen=True, kw_only=True):
    """A line of `POST /v1/analyse/batch` for an entry that `POST /v1/analyse` would refuse:
    the problem it would answer (its `status`, `type`, `field`, ...), and the entry's `index`
    in the batch (from 0)."""

    index: Annotated[int, Meta(ge=0, description="The entry's place in the batch, from 0.")]

"""The bodies of ``POST /v1/games/{game_id}/actions``: draw, discard, lay off. A view's ``legal``
entries are these very bodies. Each body's ``type`` is its engine action's name
(``engine.game.ACTION_NAMES``)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.analysis import MAX_HAND
from engine.game.actions import ACTION_NAMES, Discard, Draw, LayOff
from service.http.wire import Strict
from service.vocabulary.wire import CardCode, Seat, Version

ExpectedVersion = Annotated[
    Version,
    Meta(description="Apply only if the game is at this version; otherwise 409 stale-version."),
]


class DrawAction(Strict, frozen=True, tag=ACTION_NAMES[Draw], tag_field="type", omit_defaults=True):
    """Take the top card of the stock or of a discard pile."""

    source: Literal["stock", "discard"]
    pile: Annotated[
        Seat | None,
        Meta(
            description=(
                "Per-player discard piles only: whose pile to take from (default: your own)."
            )
        ),
    ] = None
    expected_version: ExpectedVersion | None = None


class DiscardAction(
    Strict, frozen=True, tag=ACTION_NAMES[Discard], tag_field="type", omit_defaults=True
):
    """Discard a card, ending the turn; with ``go_out`` declare the rest of the hand melded."""

    card: CardCode
    go_out: bool = False
    pile: Annotated[
        Seat | None,
        Meta(
            description=(
                "Per-player discard piles only: the pile the card goes onto (default: your "
                "own); another seat's only for a joker under `joker_discards: any_pile`."
            )
        ),
    ] = None
    expected_version: ExpectedVersion | None = None


class LayOffAction(
    Strict, frozen=True, tag=ACTION_NAMES[LayOff], tag_field="type", omit_defaults=True
):
    """Redemption only, on a last turn after someone went out, before the discard: lay a card
    off on meld number ``meld`` that seat ``seat`` has on the table."""

    card: CardCode
    seat: Seat
    meld: Annotated[int, Meta(ge=0, le=MAX_HAND)]
    """No seat lays out more melds than a hand holds cards."""
    expected_version: ExpectedVersion | None = None


ActionRequest = DrawAction | DiscardAction | LayOffAction
"""An action body. Its structs leave out their defaults when encoded: a view's ``legal``
entries are these very bodies (the same schemas in the document), so a typed client posts an
entry as it is."""

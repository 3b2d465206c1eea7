"""How a handler documents its error answers (problem+json responses for the given statuses) and
the token it takes (its ``security``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import SecurityRequirement

from service.http.problems import PROBLEM_MEDIA_TYPE
from service.http.wire import Problem

SEAT_TOKEN: Final = "seatToken"
PLAYER_KEY: Final = "playerKey"
EDIT_TOKEN: Final = "editToken"
METRICS_TOKEN: Final = "metricsToken"

SEAT: Final[list[SecurityRequirement]] = [{SEAT_TOKEN: []}]
"""A route for a seat: its token (``Authorization: Bearer <token>``), or its player's key, is
required. One scheme: both are bearer tokens in the same header (the scheme says so), and a
second alternative would tell clients and test tools nothing but "either"."""
SEAT_OR_PUBLIC: Final[list[SecurityRequirement]] = [{SEAT_TOKEN: []}, {}]
"""A route anyone may call, which with a seat's token (or its player's key) answers as that
seat sees it."""
PLAYER: Final[list[SecurityRequirement]] = [{PLAYER_KEY: []}]
"""A route for a player: its key is required."""
PLAYER_OR_PUBLIC: Final[list[SecurityRequirement]] = [{PLAYER_KEY: []}, {}]
"""A route anyone may call, which with a player's key may act as that player (a seat for
``me``)."""
SHEET_EDITOR: Final[list[SecurityRequirement]] = [{EDIT_TOKEN: []}]
"""A route that changes a score sheet: its edit token is required."""
METRICS_SCRAPER: Final[list[SecurityRequirement]] = [{METRICS_TOKEN: []}, {}]
"""``/metrics``: the deployment's ``METRICS_TOKEN`` where it sets one, else nothing. The
document is every deployment's, so the requirement is optional (a deployment without the token
would contradict a required one, and the contract tests run on one)."""

_DESCRIPTIONS: Final = {
    400: "The body is not JSON",
    401: "No seat token or player key, or one that holds none of this game's seats",
    404: "No such game",
    409: "Not this seat's turn, the wrong phase, a finished game, or a stale expected_version",
    413: "The request body is too large",
    408: "The request's body did not arrive in time",
    422: "A field is invalid or breaks a rule; `field` names it",
    429: "Too many requests or open streams from this client; see Retry-After",
    503: "The game store cannot be reached or is full, or too many streams; see Retry-After",
}


def problems(
    *statuses: int, descriptions: Mapping[int, str] | None = None
) -> dict[int, ResponseSpec]:
    """The responses for ``statuses``, each described as usual or as ``descriptions`` has it."""
    described = {**_DESCRIPTIONS, **(descriptions or {})}
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=described[status],
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
        )
        for status in statuses
    }

"""How a handler documents its error answers (problem+json responses for the given statuses) and
the token it takes (its ``security``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import SecurityRequirement

from service.http.problems import PROBLEM_MEDIA_TYPE
from service.http.wire import Problem

SEAT_TOKEN: Final = "seatToken"
PLAYER_KEY: Final = "playerKey"
EDIT_TOKEN: Final = "editToken"
METRICS_TOKEN: Final = "metricsToken"
APP_KEY: Final = "appKey"

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
APP: Final[list[SecurityRequirement]] = [{APP_KEY: []}]
"""A route for an app: its key (``APP_KEYS``) is required."""
APP_OR_PUBLIC: Final[list[SecurityRequirement]] = [{APP_KEY: []}, {}]
"""``POST /v1/players``: anyone may call it, and with an app's key the player is the app's."""
SHEET_EDITOR: Final[list[SecurityRequirement]] = [{EDIT_TOKEN: []}]
"""A route that changes a score sheet: its edit token is required."""
METRICS_SCRAPER: Final[list[SecurityRequirement]] = [{METRICS_TOKEN: []}, {}]
"""``/metrics``: the deployment's ``METRICS_TOKEN`` where it sets one, else nothing. The
document is every deployment's, so the requirement is optional (a deployment without the token
would contradict a required one, and the contract tests run on one)."""

SECURITY_SCHEMES: Final[dict[str, dict[str, Any]]] = {
    SEAT_TOKEN: {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "A seat's token, shown once to whoever takes the seat: at the game's creation "
            "(`seats[].token`), on claiming an invite, or on a rematch. The key of the seat's "
            "player (`playerKey`) is taken wherever the seat's token is."
        ),
    },
    PLAYER_KEY: {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "A player's key (`ttp_…`), shown once at the player's creation (`POST /v1/players`) "
            "or replacement (`POST /v1/players/me/key`). It acts for every seat the player holds, "
            "wherever a seat's token does."
        ),
    },
    EDIT_TOKEN: {
        "type": "http",
        "scheme": "bearer",
        "description": "A score sheet's edit token, shown once at its creation (`edit_token`).",
    },
    APP_KEY: {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "An app's key: one of the deployment's `APP_KEYS`, given by its operator to the "
            "app's server. A player made with it is the app's (`POST /v1/players`), and the "
            "app's webhooks get the events of all its players (`/v1/apps/me/webhooks`)."
        ),
    },
    METRICS_TOKEN: {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "The deployment's `METRICS_TOKEN`, for its metrics scraper (Prometheus: "
            "`authorization: {credentials: …}`). A deployment that sets none serves `/metrics` "
            "to anyone."
        ),
    },
}
"""The document's ``components.securitySchemes`` (``service.app.document``)."""

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

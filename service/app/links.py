"""The first stage of finishing the OpenAPI document (``service.app.document``), on
Litestar's document objects: Litestar's own error bodies out (every error is a problem), and the
links from a response to the operations it leads to, so a client, or schemathesis's stateful
phase, can follow a game from its creation to a seat claimed by its invite code and on to that
seat's views and turns, and a sheet from its creation to its rounds.
"""

from __future__ import annotations

from typing import Any, Final

from litestar import Litestar
from litestar.openapi.spec import Link, OpenAPI, OpenAPIResponse, Operation, Reference, Schema

_GAME_ID: Final = {"game_id": "$response.body#/game_id"}
_SEAT_0: Final = "Bearer {$response.body#/seats/0/token}"
_SEAT_1: Final = "Bearer {$response.body#/seats/1/token}"
_SAME_SEAT: Final = "$request.header.Authorization"
_CLAIMED_SEAT: Final = "Bearer {$response.body#/token}"
_CLAIMED: Final = {"game_id": "$response.body#/game_id", "header.Authorization": _CLAIMED_SEAT}
_DRAW_FROM_STOCK: Final = {"type": "draw", "source": "stock"}
_SHEET_ID: Final = {"sheet_id": "$response.body#/sheet_id"}
_EDIT_TOKEN: Final = "Bearer {$response.body#/edit_token}"
_TWO_SEATS_SCORE: Final = {"entries": [{"seat": 0, "points": 5}, {"seat": 1, "points": 0}]}

# Where a response leads: (operationId, status) → link name → (target operationId, parameters,
# request body or None). From a created game to its views, the first seats' turns, its invite
# code; from a claimed seat (or a rematch's) to that seat's view,
# turn and stream URL; from an accepted action (whose view holds the seat's hand) to that seat's
# next moves and its rematch.
_LINKS: Final[dict[tuple[str, str], dict[str, tuple[str, dict[str, str], Any]]]] = {
    ("createGame", "201"): {
        "GetPublicView": ("getGame", _GAME_ID, None),
        "GetSeatView": ("getGame", {**_GAME_ID, "header.Authorization": _SEAT_0}, None),
        "GetLog": ("getGameLog", _GAME_ID, None),
        "FollowEvents": ("getGameEvents", _GAME_ID, None),
        "FirstSeatDraws": (
            "applyAction",
            {**_GAME_ID, "header.Authorization": _SEAT_0},
            _DRAW_FROM_STOCK,
        ),
        "SecondSeatDraws": (
            "applyAction",
            {**_GAME_ID, "header.Authorization": _SEAT_1},
            _DRAW_FROM_STOCK,
        ),
        "ClaimOpenSeat": (
            "claimInvite",
            {"code": "$response.body#/invite_code"},
            {"name": "Guest"},
        ),
    },
    ("claimInvite", "201"): {
        "GetClaimedSeatView": ("getGame", _CLAIMED, None),
        "ClaimedSeatDraws": ("applyAction", _CLAIMED, _DRAW_FROM_STOCK),
        "ClaimedSeatStreamUrl": ("createStreamUrl", _CLAIMED, None),
        "ClaimedSeatLeaves": ("leaveGame", _CLAIMED, None),
        "ClaimNextOpenSeat": (
            "claimInvite",
            {"code": "$response.body#/view/invite_code"},
            {"name": "Guest"},
        ),
    },
    ("rematchGame", "201"): {
        "GetRematchSeatView": ("getGame", _CLAIMED, None),
    },
    ("applyAction", "200"): {
        "DiscardFirstCard": (
            "applyAction",
            {**_GAME_ID, "header.Authorization": _SAME_SEAT},
            {"type": "discard", "card": "$response.body#/hand/0"},
        ),
        "DrawAgain": (
            "applyAction",
            {**_GAME_ID, "header.Authorization": _SAME_SEAT},
            _DRAW_FROM_STOCK,
        ),
        "GetSeatViewAfter": ("getGame", {**_GAME_ID, "header.Authorization": _SAME_SEAT}, None),
        "GetSeatLog": ("getGameLog", {**_GAME_ID, "header.Authorization": _SAME_SEAT}, None),
        "AskForRematch": ("rematchGame", {**_GAME_ID, "header.Authorization": _SAME_SEAT}, None),
    },
    # From a created score sheet to its pages and its first round (a two-seat entry: sheets of
    # more seats refuse it, naming the seat with no entry); from an entered round to the next.
    ("createScoreSheet", "201"): {
        "GetSheet": ("getScoreSheet", _SHEET_ID, None),
        "ExportSheet": ("exportScoreSheet", _SHEET_ID, None),
        "PrintSheet": ("printScoreSheet", _SHEET_ID, None),
        "EnterFirstRound": (
            "enterRound",
            {**_SHEET_ID, "round": "1", "header.Authorization": _EDIT_TOKEN},
            _TWO_SEATS_SCORE,
        ),
    },
    ("enterRound", "200"): {
        "GetSheetAfter": ("getScoreSheet", _SHEET_ID, None),
        "EnterNextRound": (
            "enterRound",
            {
                **_SHEET_ID,
                "round": "$response.body#/next_round",
                "header.Authorization": _SAME_SEAT,
            },
            _TWO_SEATS_SCORE,
        ),
    },
}


def _link(target: str, parameters: dict[str, str], body: Any) -> Link:
    if body is None:
        return Link(operation_id=target, parameters=parameters)
    return Link(operation_id=target, parameters=parameters, request_body=body)


def _operations(document: OpenAPI) -> list[Operation]:
    found: list[Operation] = []
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            if operation is not None:
                found.append(operation)
    return found


def finish_document(app: Litestar) -> OpenAPI:
    """The first stage, on Litestar's document objects: its own error bodies out, links in."""
    document = app.openapi_schema
    for operation in _operations(document):
        responses = operation.responses or {}
        for status in [s for s, r in responses.items() if _is_litestar_error_body(r)]:
            del responses[status]
        for (operation_id, status), links in _LINKS.items():
            response = responses.get(status)
            if operation.operation_id == operation_id and isinstance(response, OpenAPIResponse):
                response.links = {name: _link(*spec) for name, spec in links.items()}
    return document


def _is_litestar_error_body(response: OpenAPIResponse | Reference) -> bool:
    """Litestar's automatic ValidationException response: JSON with ``status_code``/``detail``.
    Ours are all ``application/problem+json``."""
    if not isinstance(response, OpenAPIResponse) or not response.content:
        return False
    media = response.content.get("application/json")
    schema = media.schema if media is not None else None
    return isinstance(schema, Schema) and bool(
        schema.properties and "status_code" in schema.properties
    )

"""``/v1/scoresheets``: score sheets for games played with real cards. Create a sheet, read it,
enter or correct a round with its edit token, export it as CSV, print it."""

from __future__ import annotations

from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get, post, put
from litestar.datastructures import ResponseHeader
from litestar.di import Provide
from litestar.params import FromPath, JSONBody, PathParameter, QueryParameter

from service.http import idempotency
from service.http.idempotency import IdempotencyKey, request_retry
from service.http.openapi_declarations import SHEET_EDITOR, problems
from service.http.route_policy import (
    SAME_AUTHORIZATION,
    Limit,
    RouteLink,
    bearer_from_answer,
    from_answer,
    policy,
)
from service.sheets import lifecycle as scoresheets
from service.sheets import pages as sheet_pages
from service.sheets import wire as sheet_wire
from service.sheets.deps import AppSheetServices
from service.sheets.lifecycle import SHEETS_PATH, Editor
from service.vocabulary.wire import MAX_ROUNDS

AnyRequest = Request[Any, Any, Any]

RoundInPath = Annotated[
    int,
    PathParameter(
        ge=1, le=MAX_ROUNDS + 1, description="The round, 1 first (the tie-break round last)."
    ),
]
Paper = Annotated[
    sheet_pages.Paper,
    QueryParameter(name="paper", description="The page size the print dialog starts with."),
]

_SHEET_ID: Final = {"sheet_id": from_answer("/sheet_id")}
_TWO_SEATS_SCORE: Final = {"entries": [{"seat": 0, "points": 5}, {"seat": 1, "points": 0}]}


class ScoreSheetsController(Controller):
    path = SHEETS_PATH
    tags = ("scoresheets",)
    dependencies = {"sheet_editor": Provide(scoresheets.sheet_editor)}  # noqa: RUF012  # Litestar's declaration

    @post(
        operation_id="createScoreSheet",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS),
            links={
                # A two-seat entry: sheets of more seats refuse it, naming the seat with none.
                "201": {
                    "GetSheet": RouteLink("getScoreSheet", _SHEET_ID),
                    "ExportSheet": RouteLink("exportScoreSheet", _SHEET_ID),
                    "PrintSheet": RouteLink("printScoreSheet", _SHEET_ID),
                    "EnterFirstRound": RouteLink(
                        "enterRound",
                        {
                            **_SHEET_ID,
                            "round": "1",
                            "header.Authorization": bearer_from_answer("/edit_token"),
                        },
                        _TWO_SEATS_SCORE,
                    ),
                }
            },
        ),
        summary="Start a score sheet for a game played with real cards",
        description=(
            "Answers with the sheet, every round's cards dealt, wild rank and dealer already "
            "shown, and its `edit_token` (shown only this once; send it to enter rounds). "
            "Without `first_dealer` the first dealer is drawn from a cryptographic source."
        ),
        status_code=201,
        response_headers=[
            ResponseHeader(
                name="Location", description="The new sheet's path.", documentation_only=True
            )
        ],
        responses=problems(400, 413, 422, 503),
    )
    async def create(
        self,
        services: AppSheetServices,
        data: JSONBody[sheet_wire.CreateSheetRequest],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[sheet_wire.SheetCreated]:
        retry = request_retry(request, idempotency_key, data)
        return idempotency.answered(await scoresheets.create_sheet(services.sheets, data, retry))

    @get(
        "/{sheet_id:str}",
        operation_id="getScoreSheet",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The score sheet: rounds, entries, totals and winners",
        description="Anyone with the id may read it; no token needed.",
        responses=problems(404, 503),
    )
    async def get_sheet(
        self, services: AppSheetServices, sheet_id: FromPath[str]
    ) -> sheet_wire.ScoreSheet:
        loaded = await scoresheets.load_sheet(services.sheets, sheet_id)
        return loaded.to_wire()

    @put(
        "/{sheet_id:str}/rounds/{round:int}",
        operation_id="enterRound",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
            links={
                "200": {
                    "GetSheetAfter": RouteLink("getScoreSheet", _SHEET_ID),
                    "EnterNextRound": RouteLink(
                        "enterRound",
                        {
                            **_SHEET_ID,
                            "round": from_answer("/next_round"),
                            "header.Authorization": SAME_AUTHORIZATION,
                        },
                        _TWO_SEATS_SCORE,
                    ),
                }
            },
        ),
        security=SHEET_EDITOR,
        summary="Enter a round, or correct one entered before",
        description=(
            "Each seat that played the round gives the cards left in its hand (scored exactly "
            "under the sheet's rules and the round's wild rank) or its points (taken as given). "
            "The seat that went out must meld completely, or enter 0 points. Rounds are entered "
            "in order; entering an earlier one again corrects it. Answers with the sheet."
        ),
        status_code=200,
        responses=problems(400, 401, 404, 409, 413, 422, 503),
    )
    async def enter_round(
        self,
        services: AppSheetServices,
        sheet_id: FromPath[str],
        round: RoundInPath,
        data: JSONBody[sheet_wire.EnterRoundRequest],
        *,
        sheet_editor: Editor,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[sheet_wire.ScoreSheet]:
        # A sheet has one edit token: its keys are the sheet's (saved beside it). The round is
        # part of what was asked: the same key for another round is refused.
        retry = request_retry(request, idempotency_key, (round, data))
        body = await scoresheets.enter_round(services.sheets, sheet_editor, round, data, retry)
        return idempotency.answered(idempotency.SavedAnswer(b"", body))

    @get(
        "/{sheet_id:str}/export.csv",
        operation_id="exportScoreSheet",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The sheet as CSV: a row per round, a column per player, then the totals",
        media_type="text/csv",
        responses=problems(404, 503),
    )
    async def export_csv(
        self, services: AppSheetServices, sheet_id: FromPath[str]
    ) -> Response[str]:
        loaded = await scoresheets.load_sheet(services.sheets, sheet_id)
        return Response(
            sheet_pages.sheet_csv(loaded.to_wire()),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="scoresheet-{sheet_id}.csv"'},
        )

    @get(
        "/{sheet_id:str}/sheet",
        operation_id="printScoreSheet",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The sheet as a page to print, with a chart of the running totals",
        description=(
            "One HTML document laid out for A4 and US Letter: a row per round with its wild "
            "rank and dealer, a column per player, the totals, and an inline SVG chart. No "
            "script and nothing fetched from elsewhere, so it prints offline."
        ),
        media_type="text/html",
        responses=problems(404, 422, 503),
    )
    async def print_sheet(
        self, services: AppSheetServices, sheet_id: FromPath[str], paper: Paper = "a4"
    ) -> Response[str]:
        loaded = await scoresheets.load_sheet(services.sheets, sheet_id)
        return Response(
            sheet_pages.sheet_page(loaded.to_wire(), paper),
            media_type="text/html",
            headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"},
        )

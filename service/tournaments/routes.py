"""``/v1/tournaments``: making a tournament, joining and leaving it before its start, reading it
and the list (docs/tournaments.md)."""

from __future__ import annotations

from typing import Annotated, Final

from litestar import Controller, get, post
from litestar.di import Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.response import Stream

from service.http.allowed_methods import allowed_methods
from service.http.idempotency import AnyRequest, IdempotencyKey, request_retry
from service.http.openapi_declarations import PLAYER, problems
from service.http.route_policy import SAME_AUTHORIZATION, Limit, RouteLink, from_answer, policy
from service.players.deps import Me, key_owner, me, me_record
from service.tables.index import LOBBY_LIMIT
from service.tournaments import exports, lifecycle
from service.tournaments.deps import AppTournamentServices
from service.tournaments.lifecycle import STANDING_MAX
from service.tournaments.wire import MAX_ENTRANTS, Tournament, TournamentRequest, Tournaments

_PROBLEMS: Final = {
    401: "No player key, or one that no player holds",
    404: "No such tournament, or (create) no such player in `entrants`",
    409: "The tournament has started or names its entrants (`registration-closed`), the player "
    "is an entrant already or is not one, or it is full; (records) it is not finished",
    429: "Too many requests, or the player has too many tournaments not finished",
}

TournamentsCursor = Annotated[
    str | None,
    QueryParameter(
        name="cursor",
        max_length=200,
        description="A page's `next_cursor`: the tournaments after it. Default: the newest.",
    ),
]
TournamentsLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=LOBBY_LIMIT,
        description=f"At most this many. Default 20, maximum {LOBBY_LIMIT}.",
    ),
]


_RECORDS_OPENAPI: Final = {
    "responses": {
        "200": {
            "description": (
                "NDJSON, one line a game, round by round and table by table: its `round`, "
                "`table`, `game_id` and whole `record` (`TournamentGameRecord`)."
            ),
            "content": {
                exports.MEDIA_TYPE: {
                    "schema": {"$ref": "#/components/schemas/TournamentGameRecord"}
                }
            },
        }
    }
}


def _problems(*statuses: int) -> dict[int, ResponseSpec]:
    return problems(*statuses, descriptions=_PROBLEMS)


# What a made tournament leads to: the player who made it may enter it, and leave it.
_TOURNAMENT_ID: Final = {"tournament_id": from_answer("/tournament_id")}
_MINE: Final = {**_TOURNAMENT_ID, "header.Authorization": SAME_AUTHORIZATION}
_CREATED: Final = {
    "201": {
        "GetTournament": RouteLink("getTournament", _TOURNAMENT_ID),
        "JoinTournament": RouteLink("joinTournament", _MINE),
        "LeaveTournament": RouteLink("leaveTournament", _MINE),
    }
}


class TournamentsController(Controller):
    path = "/v1/tournaments"
    tags = ("players",)
    dependencies = {"me": Provide(me)}  # noqa: RUF012  # Litestar's declaration

    options = allowed_methods("/", "GET", "POST")

    @post(
        operation_id="createTournament",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS, Limit.INVITATIONS),
            links=_CREATED,
        ),
        security=PLAYER,
        summary="Make a tournament: round robin or Swiss, that runs itself",
        description=(
            "With `entrants` the players are named (the built-in levels `bot-easy` … "
            "`bot-expert` among them if wanted); with `entrants: null`, players join until "
            "`starts_at`. At its start round 1 is paired and its games dealt, each entrant's "
            "stream told (`tournament_round`); each round follows when every game of the one "
            "before is over; after the last, every entrant gets `tournament_finish`. At most "
            f"{MAX_ENTRANTS} entrants; a player has at most {STANDING_MAX} tournaments not "
            "finished (429). With an `Idempotency-Key`, a retry answers the tournament made, as "
            "it stands now."
        ),
        status_code=201,
        responses=_problems(400, 401, 404, 413, 422, 429, 503),
    )
    async def create(
        self,
        services: AppTournamentServices,
        me: Me,
        data: JSONBody[TournamentRequest],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Tournament:
        retry = request_retry(request, idempotency_key, data, key_owner(me))
        return await lifecycle.create(services, await me_record(services, me), data, retry)

    @get(
        operation_id="listTournaments",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The tournaments, newest first",
        responses=_problems(422, 503),
    )
    async def list_all(
        self,
        services: AppTournamentServices,
        cursor: TournamentsCursor = None,
        limit: TournamentsLimit = 20,
    ) -> Tournaments:
        return await lifecycle.listing(services, limit, cursor)

    @get(
        "/{tournament_id:str}",
        operation_id="getTournament",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="A tournament: its entrants, rounds and games, standings and crosstable",
        responses=_problems(404, 503),
    )
    async def get_one(
        self, services: AppTournamentServices, tournament_id: FromPath[str]
    ) -> Tournament:
        return await lifecycle.get(services, tournament_id)

    @get(
        "/{tournament_id:str}/records",
        operation_id="getTournamentRecords",
        opt=policy(limits=(Limit.PER_MINUTE,), openapi=_RECORDS_OPENAPI),
        summary="Every game's record of a finished tournament, one NDJSON line a game",
        description=(
            "Once the tournament is `finished` (409 `tournament-not-finished` before): every "
            "game it played, round by round and table by table, one line each "
            "(`application/x-ndjson`), written as they are read. A line's `record` is the "
            "game's whole record exactly as `GET /v1/games/{game_id}/record` answers it (JSON), "
            "which `POST /v1/records` takes back; null for a game no longer kept. A tournament "
            "that played nothing answers no line."
        ),
        media_type=exports.MEDIA_TYPE,
        responses=_problems(404, 409, 503),
    )
    async def records(
        self, services: AppTournamentServices, tournament_id: FromPath[str]
    ) -> Stream:
        record = exports.checked(await lifecycle.stored(services, tournament_id))
        return Stream(exports.lines(services, record), media_type=exports.MEDIA_TYPE)

    @post(
        "/{tournament_id:str}/join",
        operation_id="joinTournament",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="Enter a tournament of open registration, before its start",
        status_code=200,
        responses=_problems(401, 404, 409, 422, 503),
    )
    async def join(
        self,
        services: AppTournamentServices,
        me: Me,
        tournament_id: FromPath[str],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Tournament:
        retry = request_retry(request, idempotency_key, None, key_owner(me))
        player = await me_record(services, me)
        return await lifecycle.join(services, tournament_id, player, retried=retry is not None)

    @post(
        "/{tournament_id:str}/leave",
        operation_id="leaveTournament",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="Withdraw from a tournament, before its start",
        status_code=200,
        responses=_problems(401, 404, 409, 422, 503),
    )
    async def leave(
        self,
        services: AppTournamentServices,
        me: Me,
        tournament_id: FromPath[str],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Tournament:
        retry = request_retry(request, idempotency_key, None, key_owner(me))
        return await lifecycle.leave(services, tournament_id, me, retried=retry is not None)

"""``/v1/challenges`` and ``/v1/seeks``: a player's invitations to a game, and quick play."""

from __future__ import annotations

from typing import Annotated, Final

from litestar import Controller, Response, delete, get, post
from litestar.di import Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter

from service.http import idempotency
from service.http.allowed_methods import allowed_methods
from service.http.idempotency import AnyRequest, IdempotencyKey, request_retry
from service.http.openapi_declarations import PLAYER, problems
from service.http.route_policy import (
    SAME_AUTHORIZATION,
    Limit,
    RouteLink,
    from_answer,
    links_on,
    policy,
)
from service.players import challenge_answers, challenges, seeks
from service.players.challenge_wire import (
    Challenge,
    ChallengeAccepted,
    ChallengeRequest,
    Challenges,
    DeclineRequest,
    Seek,
    SeekRequest,
)
from service.players.deps import AppPlayerServices, Me, key_owner, me, me_record
from service.players.seek_pool import SEEKS_PER_PLAYER
from service.tables.index import LOBBY_LIMIT

_SAME_CHALLENGE: Final = {"challenge_id": from_answer("/challenge_id")}

ChallengesCursor = Annotated[
    str | None,
    QueryParameter(
        name="cursor",
        max_length=200,
        description="A page's `next_cursor`: the challenges after it. Default: the newest.",
    ),
]
ChallengesLimit = Annotated[
    int,
    QueryParameter(
        name="limit",
        ge=1,
        le=LOBBY_LIMIT,
        description=f"At most this many. Default 20, maximum {LOBBY_LIMIT}.",
    ),
]


_CHALLENGE_PROBLEMS: Final = {
    401: "No player key, or one that no player holds",
    403: "The challenge is to other players, or (cancel) not the player's",
    404: "No such challenge, or (create) no such player in `to`",
    409: "The challenge no longer stands (the detail says how it ended), or the player holds a "
    "seat of it already",
    429: "Too many requests, or the player has too many challenges standing",
}
_SEEK_PROBLEMS: Final = {
    401: "No player key, or one that no player holds",
    404: "The player has no such seek",
    409: "A seek of the same terms waits already, or (cancel) the seek is matched",
    429: "Too many requests, or the player has too many seeks waiting",
}


def _challenge_problems(*statuses: int) -> dict[int, ResponseSpec]:
    return problems(*statuses, descriptions=_CHALLENGE_PROBLEMS)


def _seek_problems(*statuses: int) -> dict[int, ResponseSpec]:
    return problems(*statuses, descriptions=_SEEK_PROBLEMS)


# What a made challenge or seek leads to, with the key that made it.
_CHALLENGE_ID: Final = {"challenge_id": from_answer("/challenge_id")}
_MY_CHALLENGE: Final = {**_CHALLENGE_ID, "header.Authorization": SAME_AUTHORIZATION}
_MY_SEEK: Final = {"seek_id": from_answer("/seek_id"), "header.Authorization": SAME_AUTHORIZATION}


class ChallengesController(Controller):
    path = "/v1/challenges"
    tags = ("players",)
    dependencies = {"me": Provide(me)}  # noqa: RUF012  # Litestar's declaration

    options = allowed_methods("/", "GET", "POST")

    @post(
        operation_id="createChallenge",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.CREATIONS, Limit.INVITATIONS),
            links=links_on(
                201,
                GetChallenge=RouteLink("getChallenge", _CHALLENGE_ID),
                CancelChallenge=RouteLink("cancelChallenge", _MY_CHALLENGE),
            ),
        ),
        security=PLAYER,
        summary="Challenge players by id, or anyone (open), to a game",
        description=(
            "Seats the challenger, keeps a seat for each player in `to` (each gets a `challenge` "
            "event on their stream) or opens `seats` seats that anyone may take (an open "
            "challenge, listed in `GET /v1/challenges`), and seats the `bots`. Every seat taken, "
            "the game is dealt and every player's stream gets `game_start`. It can be accepted "
            f"until `expires_in` seconds have passed. A player has at most "
            f"{challenges.OPEN_CHALLENGES_MAX} challenges standing (429)."
        ),
        status_code=201,
        responses=_challenge_problems(400, 401, 404, 413, 422, 429, 503),
    )
    async def create(
        self,
        services: AppPlayerServices,
        me: Me,
        data: JSONBody[ChallengeRequest],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[Challenge]:
        retry = request_retry(request, idempotency_key, data, key_owner(me))
        player = await me_record(services, me)
        return idempotency.answered(await challenges.create(services, player, data, retry))

    @get(
        operation_id="listChallenges",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="The open challenges that stand, newest first",
        responses=_challenge_problems(422, 503),
    )
    async def list_open(
        self,
        services: AppPlayerServices,
        cursor: ChallengesCursor = None,
        limit: ChallengesLimit = 20,
    ) -> Challenges:
        return await challenges.listing(services, limit, cursor)

    @get(
        "/{challenge_id:str}",
        operation_id="getChallenge",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        summary="A challenge: who, the terms, and whether it stands",
        responses=_challenge_problems(404, 503),
    )
    async def get_one(self, services: AppPlayerServices, challenge_id: FromPath[str]) -> Challenge:
        return await challenges.get(services, challenge_id)

    @post(
        "/{challenge_id:str}/accept",
        operation_id="acceptChallenge",
        opt=policy(
            limits=(Limit.PER_MINUTE,),
        ),
        security=PLAYER,
        summary="Accept a challenge: the player's seat; the last seat taken deals the game",
        description=(
            "The seat kept for the player, or an open challenge's first open seat. The player's "
            "key then acts for it on every game route."
        ),
        status_code=200,
        responses=_challenge_problems(401, 403, 404, 409, 422, 503),
    )
    async def accept(
        self,
        services: AppPlayerServices,
        me: Me,
        challenge_id: FromPath[str],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[ChallengeAccepted]:
        retry = request_retry(request, idempotency_key, None, key_owner(me))
        player = await me_record(services, me)
        answer = await challenge_answers.accept(services, challenge_id, player, retry)
        return idempotency.answered(answer)

    @post(
        "/{challenge_id:str}/decline",
        operation_id="declineChallenge",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="Decline a challenge to the player, with a reason",
        description=(
            "The challenger's stream gets `challenge_declined` with the reason; the others "
            "challenged get `challenge_canceled`."
        ),
        status_code=200,
        responses=_challenge_problems(400, 401, 403, 404, 409, 413, 422, 503),
    )
    async def decline(
        self,
        services: AppPlayerServices,
        me: Me,
        challenge_id: FromPath[str],
        data: JSONBody[DeclineRequest],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[Challenge]:
        retry = request_retry(request, idempotency_key, data, key_owner(me))
        answer = await challenge_answers.decline(services, challenge_id, me, data.reason, retry)
        return idempotency.answered(answer)

    @post(
        "/{challenge_id:str}/cancel",
        operation_id="cancelChallenge",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="Withdraw the player's challenge",
        description="Every other player of it gets `challenge_canceled`.",
        status_code=200,
        responses=_challenge_problems(401, 403, 404, 409, 422, 503),
    )
    async def cancel(
        self,
        services: AppPlayerServices,
        me: Me,
        challenge_id: FromPath[str],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[Challenge]:
        retry = request_retry(request, idempotency_key, None, key_owner(me))
        answer = await challenge_answers.cancel(services, challenge_id, me, retry)
        return idempotency.answered(answer)


class SeeksController(Controller):
    path = "/v1/seeks"
    tags = ("players",)
    dependencies = {"me": Provide(me)}  # noqa: RUF012  # Litestar's declaration

    seek_options = allowed_methods("/{seek_id:str}", "GET", "DELETE")

    @post(
        operation_id="createSeek",
        opt=policy(
            limits=(Limit.PER_MINUTE, Limit.INVITATIONS),
            links=links_on(
                201,
                GetSeek=RouteLink("getSeek", _MY_SEEK),
                CancelSeek=RouteLink("cancelSeek", _MY_SEEK),
            ),
        ),
        security=PLAYER,
        summary="Quick play: a game with the next players who seek the same table",
        description=(
            "Seeks with the same rules, table size, `rated` and clock are matched across every "
            "instance, each in exactly one game: unrated ones oldest first; rated ones by "
            "rating, the window widening with the time waited (see `rated`), so a rated seek "
            "may be matched later with no new seek coming. Once a table's seekers are matched, "
            "the game is dealt and each seeker's stream gets `game_start` (this answer too says "
            "`matched` when this seek completed the table). A seek waits 10 minutes; a player "
            f"has at most one waiting per terms and {SEEKS_PER_PLAYER} in all. With an "
            "`Idempotency-Key`, a retry answers the seek it made, as it stands now."
        ),
        status_code=201,
        responses=_seek_problems(400, 401, 409, 413, 422, 429, 503),
    )
    async def create(
        self,
        services: AppPlayerServices,
        me: Me,
        data: JSONBody[SeekRequest],
        *,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Seek:
        retry = request_retry(request, idempotency_key, data, key_owner(me))
        return await seeks.seek(services, await me_record(services, me), data, retry)

    @get(
        "/{seek_id:str}",
        operation_id="getSeek",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="The player's seek: waiting, or the game it was matched to",
        responses=_seek_problems(401, 404, 503),
    )
    async def get_one(self, services: AppPlayerServices, me: Me, seek_id: FromPath[str]) -> Seek:
        return await seeks.get(services, me, seek_id)

    @delete(
        "/{seek_id:str}",
        operation_id="cancelSeek",
        opt=policy(limits=(Limit.PER_MINUTE,)),
        security=PLAYER,
        summary="Stop seeking (409 once matched: play the game)",
        responses=_seek_problems(401, 404, 409, 503),
    )
    async def cancel(self, services: AppPlayerServices, me: Me, seek_id: FromPath[str]) -> None:
        await seeks.cancel(services, me, seek_id)

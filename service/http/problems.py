"""Every error the API can answer, as RFC 9457 problem details, mapped in exactly one place.

The engine raises one exception class per broken rule (each answered as
``service.http.engine_problems`` has it, by class); the service adds the few that only HTTP
knows (no such game, bad token, stale version). ``EXCEPTION_MAP`` turns each into a problem with
a fixed ``type`` and ``title`` per kind and the exception's own message as ``detail``, plus the
offending ``field`` where there is one. Nothing a client sends can reach a 500: the last entry
catches anything unforeseen, logs it, and still answers problem+json.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any, ClassVar, Final

from litestar import Response
from litestar.enums import MediaType
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.plugins.problem_details import ProblemDetailsException

from service.http.engine_problems import ENGINE_PROBLEMS, EngineProblem
from service.http.field_messages import MAX_DETAIL
from service.storage.game_store import StoreFull, StoreUnavailable

log = logging.getLogger("service.http.problems")

PROBLEM_BASE: Final = "urn:three-thirteen:problem:"
PROBLEM_MEDIA_TYPE: Final = "application/problem+json"


class ServiceProblem(Exception):
    """Base of the errors the HTTP layer raises itself. Each subclass fixes status and kind."""

    status: ClassVar[int] = 400
    kind: ClassVar[str] = "bad-request"
    title: ClassVar[str] = "Bad request"
    retry_after: int | None = None
    """Seconds after which a retry may succeed (the Retry-After header), for a refusal that
    passes."""

    def __init__(self, detail: str, *, field: str | None = None) -> None:
        self.detail = detail
        self.field = field
        super().__init__(detail)


class BodyNotJson(ServiceProblem):
    status, kind, title = 400, "body-not-json", "The request body is not valid JSON"


class BodyTooLarge(ServiceProblem):
    status, kind, title = 413, "body-too-large", "The request body is too large"


class BodyBeyondLimits(ServiceProblem):
    """A JSON body nested too deeply, or a body with too long a number
    (``service.http.body_limits``)."""

    status, kind, title = (
        422,
        "body-beyond-limits",
        "The request body passes a limit of this service on nesting or digits",
    )


class BatchTooLong(ServiceProblem):  # POST /v1/analyse/batch
    status, kind, title = (
        413,
        "batch-too-long",
        "The batch holds more entries than this service takes",
    )


class InvalidField(ServiceProblem):
    status, kind, title = 422, "invalid-field", "A request field is invalid"


class MissingWild(ServiceProblem):
    status, kind, title = 422, "missing-wild", "Neither wild nor round was given"


class MissingToken(ServiceProblem):
    status, kind, title = 401, "missing-token", "A seat token is required"


class UnknownToken(ServiceProblem):
    status, kind, title = 401, "unknown-token", "The token is not one of this game's seats"


class GameNotFound(ServiceProblem):
    status, kind, title = 404, "game-not-found", "No such game"


class StaleVersion(ServiceProblem):
    status, kind, title = 409, "stale-version", "The game has moved on"


class AnalysesBusy(ServiceProblem):
    status, kind, title = 503, "analyses-busy", "Too many costly analyses are waiting"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class HoldingsQuotaReached(ServiceProblem):
    """A client holds as many games of a kind in play as it may (``service.bots.holdings``)."""

    status = 429

    def __init__(self, detail: str, *, field: str, retry_after: int) -> None:
        super().__init__(detail, field=field)
        self.retry_after = retry_after


class ImportQuotaReached(ServiceProblem):
    status, kind, title = 429, "import-quota", "This client sent its most bytes of records today"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class AnalysedHandsQuotaReached(ServiceProblem):  # service.http.rate_limits
    status, kind, title = 429, "analysed-hands-quota", "This client had its most hands analysed"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class BotGamesQuotaReached(HoldingsQuotaReached):
    kind, title = "bot-games-quota", "This client holds its most games of bots only"


class ClockGamesQuotaReached(HoldingsQuotaReached):
    kind, title = "clock-games-quota", "This client holds its most games with a clock"


class SheetNotFound(ServiceProblem):
    status, kind, title = 404, "sheet-not-found", "No such score sheet"


class MissingEditToken(ServiceProblem):
    status, kind, title = 401, "missing-edit-token", "The sheet's edit token is required"


class WrongEditToken(ServiceProblem):
    status, kind, title = 401, "wrong-edit-token", "The token is not this sheet's edit token"


class SheetWriteConflict(ServiceProblem):
    status, kind, title = 409, "sheet-write-conflict", "The sheet kept changing; try again"


class SlowRequest(ServiceProblem):
    status, kind, title = 408, "request-timeout", "The request's body took too long to arrive"


class TooManyStreams(ServiceProblem):
    status, kind, title = 429, "too-many-streams", "Too many event streams open from this client"
    retry_after = 5


class StreamsFull(ServiceProblem):
    status, kind, title = 503, "streams-full", "This instance has as many event streams as it holds"
    retry_after = 5


class IdempotencyKeyReused(ServiceProblem):
    status, kind, title = (
        422,
        "idempotency-key-reused",
        ("The Idempotency-Key was already used for a different request"),
    )


# -- tables (service.tables) ----------------------------------------------------------------------


class InvalidSeat(ServiceProblem):
    status, kind, title = 422, "invalid-seat", "A seat spec is invalid"


class UnknownBotLevel(ServiceProblem):
    """A bot seat of a level there is not; the detail lists the levels."""

    status, kind, title = 422, "unknown-bot-level", "No computer player of this level"


class InviteNotFound(ServiceProblem):
    status, kind, title = 404, "invite-not-found", "No table waits with this invite code"


class TableFull(ServiceProblem):
    status, kind, title = 409, "table-full", "The table has no open seat left"


class TableWaiting(ServiceProblem):
    status, kind, title = 409, "table-waiting", "The game has not started: seats are still open"


class GameNotFinished(ServiceProblem):
    status, kind, title = 409, "game-not-finished", "The game is not over yet"


class RematchTaken(ServiceProblem):
    status, kind, title = 409, "rematch-taken", "This seat already took its rematch token"


class SeatKept(ServiceProblem):
    status, kind, title = 409, "seat-kept", "A rematch's seats are kept for their players"


class UnknownStreamKey(ServiceProblem):
    status, kind, title = 401, "unknown-stream-key", "The stream key is not one of this game's"


class UnknownPlayerKey(ServiceProblem):
    status, kind, title = 401, "unknown-player-key", "No player has this key (unknown or replaced)"


class PlayerKeyRequired(ServiceProblem):
    status, kind, title = 401, "player-key-required", "This needs a player's key"


class PlayerNotFound(ServiceProblem):
    status, kind, title = 404, "player-not-found", "No such player"


class PlayerSeated(ServiceProblem):
    status, kind, title = 409, "player-seated", "The player already holds a seat at this table"


def _problem(
    status: int,
    kind: str,
    title: str,
    detail: str,
    *,
    field: str | None = None,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> ProblemDetailsException:
    extra: dict[str, Any] = {}
    if field is not None:
        extra["field"] = field
    if errors:
        extra["errors"] = errors
    if len(detail) > MAX_DETAIL:  # a detail is read by a person: never a wall of text
        detail = detail[: MAX_DETAIL - 1] + "…"
    return ProblemDetailsException(
        status_code=status,
        type_=PROBLEM_BASE + kind,
        title=title,
        detail=detail,
        extra=extra or None,
        headers=headers,
    )


def _from_service_problem(exc: ServiceProblem) -> ProblemDetailsException:
    headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
    return _problem(exc.status, exc.kind, exc.title, exc.detail, field=exc.field, headers=headers)


def _from_engine_error(problem: EngineProblem) -> Callable[[Exception], ProblemDetailsException]:
    def convert(exc: Exception) -> ProblemDetailsException:
        return _problem(
            problem.status, problem.kind, problem.title, str(exc), field=problem.field(exc)
        )

    return convert


_MSGSPEC_PATH: Final = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_NAMED_FIELD: Final = re.compile(r"(?:unknown|missing required) field `(?P<name>[^`]+)`")


def field_of_validation_message(message: str) -> tuple[str, str]:
    """Split a msgspec validation message into (field path, message without the path).

    ``Expected `int`, got `str` - at `$.round``` → ("round", "Expected `int`, got `str`");
    ``Object contains unknown field `x` - at `$.rules``` → ("rules.x", ...).
    """
    path = ""
    text = message
    match = _MSGSPEC_PATH.search(message)
    if match:
        path = match["path"].lstrip(".")
        text = message[: match.start()]
    named = _NAMED_FIELD.search(text)
    if named:
        path = f"{path}.{named['name']}" if path else named["name"]
    return path or "$", text


_HEADER_FIELDS: Final = {
    spelling: name
    for name in ("Authorization", "Idempotency-Key", "Last-Event-ID")
    for spelling in (name.lower(), name.lower().replace("-", "_"))
}
"""Litestar names a header that fails its constraints by its handler's parameter
(``idempotency_key``): a header is named the one way the API documents it, in every problem."""


def _from_validation(exc: ValidationException) -> ProblemDetailsException:
    """Query, path and header values that fail their declared constraints (bodies are checked
    earlier, by ``service.http.strict_body``)."""
    errors: list[dict[str, str]] = []
    if isinstance(exc.extra, list):
        for item in exc.extra:
            if isinstance(item, Mapping):
                key = str(item.get("key", "$"))
                errors.append(
                    {"field": _HEADER_FIELDS.get(key, key), "message": str(item["message"])}
                )
    first = errors[0] if errors else {"field": "$", "message": str(exc.detail)}
    return _problem(
        422,
        "invalid-field",
        InvalidField.title,
        f"{first['field']}: {first['message']}",
        field=first["field"],
        errors=errors or None,
    )


def _from_http_exception(exc: HTTPException) -> ProblemDetailsException:
    """Litestar's own refusals: unknown route (404), wrong method (405), body too large (413)."""
    status = exc.status_code
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    kind = {404: "not-found", 405: "method-not-allowed", 413: "body-too-large"}.get(
        status, phrase.lower().replace(" ", "-")
    )
    return _problem(status, kind, phrase, str(exc.detail), headers=exc.headers)


async def schema_page_not_found_as_problem(response: Response[Any]) -> Response[Any]:
    """Litestar's documentation router answers an unknown ``/schema/*`` page with an HTML 404
    page (the only handler that returns a 404 rather than raising it): raised instead, so it is
    a problem like every other 404."""
    if response.status_code == HTTPStatus.NOT_FOUND and response.media_type == MediaType.HTML:
        raise NotFoundException("no such page of the API's documentation")
    return response


def _from_store_unavailable(exc: StoreUnavailable) -> ProblemDetailsException:
    return _problem(
        503,
        "store-unavailable",
        "The game store cannot be reached",
        str(exc) or "try again later",
        headers={"Retry-After": "1"},
    )


def _from_store_full(exc: StoreFull) -> ProblemDetailsException:
    return _problem(
        503,
        "store-full",
        "The game store holds as many games as it may",
        str(exc),
        headers={"Retry-After": str(STORE_FULL_RETRY_AFTER)},
    )


STORE_FULL_RETRY_AFTER: Final = 60
"""Seconds: games expire one by one, so room comes back slowly."""


def _from_unexpected(exc: Exception) -> ProblemDetailsException:
    log.exception("unexpected error", exc_info=exc)
    return _problem(500, "internal-error", "Internal server error", "an unexpected error occurred")


def problem_of(exc: Exception) -> ProblemDetailsException:
    """The problem ``exc`` is answered with, by the first of its classes ``EXCEPTION_MAP`` names
    (as the framework looks it up), for an answer that carries it in its body (a batch's line)."""
    for cls in type(exc).__mro__:
        convert = EXCEPTION_MAP.get(cls)
        if convert is not None:
            return convert(exc)
    return _from_unexpected(exc)  # pragma: no cover - Exception is in the map


EXCEPTION_MAP: Final[Mapping[type[Exception], Callable[[Any], ProblemDetailsException]]] = {
    ServiceProblem: _from_service_problem,
    ValidationException: _from_validation,
    HTTPException: _from_http_exception,
    StoreUnavailable: _from_store_unavailable,
    StoreFull: _from_store_full,
    **{cls: _from_engine_error(problem) for cls, problem in ENGINE_PROBLEMS.items()},
    Exception: _from_unexpected,
}

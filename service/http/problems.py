"""Every error the API can answer, as RFC 9457 problem details, mapped in exactly one place.

The engine raises one exception class per broken rule; the service adds the few that only HTTP
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

from litestar.exceptions import HTTPException, ValidationException
from litestar.plugins.problem_details import ProblemDetailsException

import engine
import engine.errors
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


def _from_engine_error(
    status: int, kind: str, title: str, field: Callable[[Any], str | None] = lambda _: None
) -> Callable[[Exception], ProblemDetailsException]:
    def convert(exc: Exception) -> ProblemDetailsException:
        return _problem(status, kind, title, str(exc), field=field(exc))

    return convert


def _rules_field(exc: engine.RulesError) -> str | None:
    # Rules arrive under "rules" in every body, but a players count is a top-level field.
    if exc.field is None:
        return "rules"
    if exc.field in ("players", "round"):
        return exc.field
    return f"rules.{exc.field}"


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


def _game_errors() -> dict[type[Exception], Callable[[Any], ProblemDetailsException]]:
    """The errors of engine.game: turn order and phase are conflicts with the game's state (409);
    any other illegal move is an unprocessable request (422)."""
    errors = engine.errors
    table: list[tuple[str, int, str, str, Callable[[Any], str | None]]] = [
        ("NotYourTurn", 409, "not-your-turn", "It is not this seat's turn", lambda _: None),
        (
            "WrongPhase",
            409,
            "wrong-phase",
            "The action does not fit the turn's phase",
            lambda _: "type",
        ),
        ("GameFinished", 409, "game-finished", "The game is over", lambda _: None),
        (
            "CardNotInHand",
            422,
            "card-not-in-hand",
            "The card is not in the seat's hand",
            lambda _: "card",
        ),
        ("CannotGoOut", 422, "cannot-go-out", "The hand is not melded", lambda _: "go_out"),
        (
            "OptionNotEnabled",
            422,
            "option-not-enabled",
            "A house rule is off in this game",
            lambda exc: exc.field,
        ),
        (
            "IllegalAction",
            422,
            "illegal-action",
            "The action is not allowed",
            lambda exc: exc.field,
        ),
    ]
    out: dict[type[Exception], Callable[[Any], ProblemDetailsException]] = {}
    for name, status, kind, title, field in table:
        cls = getattr(errors, name, None)
        if isinstance(cls, type) and issubclass(cls, Exception):
            out[cls] = _from_engine_error(status, kind, title, field)
    return out


def _sheet_errors() -> dict[type[Exception], Callable[[Any], ProblemDetailsException]]:
    """The errors of engine.scoresheet, each naming its field: a round entered out of order
    conflicts with the sheet's state (409); anything else is an unprocessable entry (422)."""
    errors = engine.errors
    table: list[tuple[type[engine.errors.SheetError], int, str, str]] = [
        (errors.RoundOutOfRange, 422, "round-out-of-range", "The sheet has no such round"),
        (errors.RoundNotOpen, 409, "round-not-open", "An earlier round is not entered yet"),
        (errors.ReplayConflict, 409, "replay-conflict", "The correction would replay a round"),
        (errors.NoSuchSeat, 422, "no-such-seat", "No such seat in this round"),
        (errors.SeatEnteredTwice, 422, "seat-entered-twice", "A seat has two entries"),
        (errors.SeatNotEntered, 422, "seat-not-entered", "A seat has no entry"),
        (errors.CardNotInPack, 422, "card-not-in-pack", "The card is not in the pack"),
        (errors.TooManyCopies, 422, "too-many-copies", "More copies than the pack holds"),
        (errors.WrongHandSize, 422, "wrong-hand-size", "A hand of the wrong size"),
        (errors.OutSeatNotMelded, 422, "out-seat-not-melded", "The seat that went out is unmelded"),
        (
            errors.FailedGoOutNotScored,
            422,
            "failed-go-out-not-scored",
            "A failed go-out these rules or this entry do not score",
        ),
    ]
    return {
        cls: _from_engine_error(status, kind, title, lambda exc: exc.field)
        for cls, status, kind, title in table
    }


EXCEPTION_MAP: Final[Mapping[type[Exception], Callable[[Any], ProblemDetailsException]]] = {
    ServiceProblem: _from_service_problem,
    ValidationException: _from_validation,
    HTTPException: _from_http_exception,
    StoreUnavailable: _from_store_unavailable,
    StoreFull: _from_store_full,
    engine.CardCodeError: _from_engine_error(422, "bad-card", "A card or rank code is invalid"),
    engine.RulesError: _from_engine_error(422, "bad-rules", "The rules are invalid", _rules_field),
    engine.HandError: _from_engine_error(422, "bad-hand", "The hand is invalid", lambda _: "hand"),
    **_game_errors(),
    **_sheet_errors(),
    engine.EngineError: _from_engine_error(422, "illegal", "The request breaks a rule"),
    Exception: _from_unexpected,
}

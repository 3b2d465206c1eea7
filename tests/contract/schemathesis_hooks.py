"""schemathesis hooks for this service, loaded by schemathesis.toml (``hooks``) for a run against
a live instance, and imported by the in-process run (tests/contract/test_schemathesis.py).

- **NDJSON** (``application/x-ndjson``), which schemathesis knows neither way: a generated body
  of ``POST /v1/analyse/batch`` is sent as one line of JSON, an entry; an NDJSON answer (that
  route's, and the player's stream read as NDJSON) is read line by line, every line checked
  against the answer's schema (which describes one line).
- **Credentials**: every operation that requires a token gets a real one, made on the instance
  under test the first time it is needed, as a client would make it: a player's key (``POST
  /v1/players``), a seat's token (a game of a person and a bot), a score sheet's edit token,
  and the app's key, ``CONTRACT_APP_KEY`` (the instance must serve it: ``APP_KEYS=contract=<it>``;
  ``TTT_APP_KEY`` names another). Without them every such operation would only ever be
  answered 401, and nothing behind the check would be tested. They replace the random token
  schemathesis generates for a security scheme, not a real one the service answered earlier
  (the stateful phase's links carry the seats' own tokens).
- **Idempotency keys**: a schema-valid request's ``Idempotency-Key`` is unique, as a client's
  is (a generated one is often ``"0"``, and the same key with another body is rightly a 422,
  which schema-valid requests would then mostly earn).
- **Real resources**: a schema-valid request of the examples, coverage and fuzzing phases to a
  seat's or a sheet's operation names the game or sheet of the token it carries (the seat on
  turn); one to an invite, a stored record's review, a webhook or a delivery, a rating
  history, or an action or a leave (a new game each) names a real one, made on the instance
  (``tests/contract/real_resources.py``).
- **Playable links**: the stateful phase's games, sheets and webhooks are ones the document's
  links can play (``playable_by_links``; a webhook's first delivery is made at once), and a
  link's request body is sent as it is (by default schemathesis merges generated fields into
  it, which nearly always makes it illegal).
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from collections.abc import Iterator
from typing import Any, Final

import schemathesis
from schemathesis.core.deserialization import DeserializationContext
from schemathesis.core.transport import Response
from schemathesis.generation.meta import TestPhase
from schemathesis.generation.modes import GenerationMode

from tests.contract.real_resources import first_delivery, fresh_game, real_path

CONTRACT_APP_KEY: Final = "contract-tests-app-key-0313-three-thirteen"
"""The app key the contract runs use, unless ``TTT_APP_KEY`` says another."""
NDJSON: Final = "application/x-ndjson"


@schemathesis.serializer(NDJSON)
def one_ndjson_line(ctx: Any, value: Any) -> bytes:
    return json.dumps(value).encode() + b"\n"


@schemathesis.deserializer(NDJSON)
def ndjson_lines(ctx: DeserializationContext, response: Response) -> Any:
    """The first line, for schemathesis to check; every other line is checked here against the
    same schema. An empty answer (a stream with nothing to send yet) has nothing to check."""
    lines = [json.loads(line) for line in response.content.splitlines() if line.strip()]
    if not lines:
        raise NotImplementedError("no line to check")
    definition = ctx.operation.responses.find_by_status_code(response.status_code)
    if definition is not None:
        resolved = definition.get_schema(NDJSON)
        validator = definition.get_validator(NDJSON, resolved.schema, validate_formats=False)
        for number, line in enumerate(lines[1:], start=2):
            for error in validator.iter_errors(line) if validator is not None else ():
                raise ValueError(f"line {number} does not match the schema: {error}")
    return lines[0]


# The body and the answer's field that make each kind of credential (a seat's token: the seat on
# turn of a new game, ``fresh_game``).
_MADE_BY: Final[dict[str, tuple[str, dict[str, Any], str]]] = {
    "playerKey": ("createPlayer", {"name": "Contract"}, "/key"),
    "editToken": ("createScoreSheet", {"players": ["Ann", "Bob"]}, "/edit_token"),
}
FRESH_PLAYER: Final = frozenset({"createChallenge", "createSeek", "createTournament"})
"""Operations whose schema-valid requests get a new player's key each time: one player may have
only so many challenges standing (20), seeks waiting (20) and tournaments unfinished (5), and the
run makes more (429). A schema-violating one is refused (the negative data check holds it to a
4xx) and makes nothing, so it goes with the run's player."""
_FRESH_IDS: Final = ("seek_id", "challenge_id", "tournament_id")
"""What those operations make, each read and cancelled by its maker only."""
_MAKERS: dict[str, str] = {}
"""The key of the fresh player that made each seek, challenge and tournament (``after_call``):
a link's request to it goes with its maker's key (``map_case``), not the run's player's, which
would be answered that the player has no such seek."""
_DELETED_AGAIN: Final = {
    "createWebhook": "deleteWebhook",
    "createAppWebhook": "deleteAppWebhook",
}
"""A player and the app may have 5 webhooks: each one the phases but the stateful one make is
deleted again at once (the stateful phase's are followed by their links, a delete among them)."""
_TOKENS: dict[tuple[str, int | str], str] = {}
"""The credentials made so far, by scheme and instance (an app in process, else the URL)."""
_GAMES: dict[str, str] = {}
"""The game of each seat token made here, the sheet of each edit token."""
_OWN_ID: Final = {"seatToken": "game_id", "editToken": "sheet_id"}
"""The path parameter of what each kind of token belongs to (its maker answers a field of the
same name)."""
_ANSWERED: set[str] = set()
"""Every token and key the service answered in the run (``after_call``): a request that carries
one got it from a link, and keeps it."""
_SECRET_FIELDS: Final = frozenset({"token", "key", "edit_token"})


def _instance(operation: Any, app: Any) -> int | str:
    return id(app) if app is not None else "live"


def _scheme(operation: Any) -> str | None:
    """The scheme the operation requires, None for one that requires none."""
    for requirement in operation.definition.raw.get("security") or ():
        for name in requirement:
            return str(name)
    return None


def _made(operation: Any, scheme: str, app: Any) -> str | None:
    if scheme == "appKey":
        return os.environ.get("TTT_APP_KEY", CONTRACT_APP_KEY)
    if scheme == "seatToken":  # a new game's seat on turn, whose draw is legal
        game = fresh_game(operation)
        made = game["token"]
        _GAMES[made] = game["game_id"]
    elif scheme in _MADE_BY:
        operation_id, body, pointer = _MADE_BY[scheme]
        answer = operation.schema.find_operation_by_id(operation_id).Case(body=body).call()
        assert answer.status_code == 201, f"{operation_id} for a credential: {answer.text}"
        value: Any = answer.json()
        made = _at(value, pointer)
        if scheme in _OWN_ID:
            _GAMES[made] = _at(value, f"/{_OWN_ID[scheme]}")
    else:
        return None  # metricsToken: /metrics needs none unless the deployment sets one
    _ANSWERED.add(made)  # a link that carries it on (the same Authorization) keeps it
    return made


def _at(value: Any, pointer: str) -> str:
    for part in pointer.strip("/").split("/"):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return str(value)


@schemathesis.auth(refresh_interval=None, retry_on=[])
class Credentials:
    """The token each secured operation requires, made once per instance under test."""

    def get(self, case: Any, ctx: Any) -> str | None:
        scheme = _scheme(case.operation)
        if scheme is None:
            return None
        positive, _ = _phase(case)
        if positive and case.operation.definition.raw.get("operationId") in FRESH_PLAYER:
            return _made(case.operation, scheme, ctx.app)
        key = (scheme, _instance(case.operation, ctx.app))
        if key not in _TOKENS:
            made = _made(case.operation, scheme, ctx.app)
            if made is None:
                return None
            _TOKENS[key] = made
        return _TOKENS[key]

    def set(self, case: Any, data: str, ctx: Any) -> None:
        headers = case.headers = case.headers or {}
        sent = [name for name in headers if name.lower() == "authorization"]
        if any(str(headers[name]).removeprefix("Bearer ") in _ANSWERED for name in sent):
            return
        for name in sent:
            del headers[name]
        headers["Authorization"] = f"Bearer {data}"


def _secrets_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for name, item in value.items():
            if name in _SECRET_FIELDS and isinstance(item, str):
                yield item
            else:
                yield from _secrets_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _secrets_in(item)


@schemathesis.hook
def after_call(ctx: Any, case: Any, response: Any) -> None:
    """Keep the tokens the service answered; a replaced player's key is the key from now on
    (the old one no longer works)."""
    media = response.headers.get("content-type") or [""]  # each header's values, a list
    if response.status_code in (200, 201) and media[0].startswith("application/json"):
        _ANSWERED.update(_secrets_in(response.json()))
    operation_id = case.operation.definition.raw.get("operationId")
    if operation_id in FRESH_PLAYER and response.status_code == 201:
        made = response.json()
        sent = str((case.headers or {}).get("Authorization", "")).removeprefix("Bearer ")
        _MAKERS.update({made[name]: sent for name in _FRESH_IDS if name in made})
    _, linked = _phase(case)
    generated = case.meta is not None  # not one the hooks made themselves (a credential, ...)
    if operation_id in _DELETED_AGAIN and response.status_code == 201 and generated and not linked:
        remove = case.operation.schema.find_operation_by_id(_DELETED_AGAIN[operation_id])
        webhook_id = response.json()["webhook_id"]
        remove.Case(path_parameters={"webhook_id": webhook_id}, headers=case.headers).call()
    if operation_id in _DELETED_AGAIN and response.status_code == 201 and linked:
        # A webhook the links lead on from, to its deliveries and a redelivery: one to redeliver.
        owner = str((case.headers or {}).get("Authorization", "")).removeprefix("Bearer ")
        player = owner if operation_id == "createWebhook" else None
        first_delivery(case.operation, operation_id, response.json()["webhook_id"], owner, player)
    if operation_id != "replaceKey":
        return
    sent = (case.headers or {}).get("Authorization", "")
    for key, token in list(_TOKENS.items()):
        if response.status_code == 201 and key[0] == "playerKey" and sent == f"Bearer {token}":
            _TOKENS[key] = response.json()["key"]


_RUN: Final = uuid.uuid4().hex
_KEYS: Final = itertools.count()


@schemathesis.hook
def map_case(ctx: Any, case: Any) -> Any:
    """A schema-valid request's Idempotency-Key, unique (this run's, then a count); and a
    request to a seek, challenge or tournament goes with its maker's key."""
    positive, _ = _phase(case)
    makers = {_MAKERS.get(str((case.path_parameters or {}).get(name))) for name in _FRESH_IDS}
    maker = next((key for key in makers if key), None)
    sent = [name for name in case.headers or {} if name.lower() == "authorization"]
    if maker is not None and positive and sent:  # a request without one stays without
        case.headers = {
            **{k: v for k, v in (case.headers or {}).items() if k not in sent},
            "Authorization": f"Bearer {maker}",
        }
    headers = case.headers or {}
    for name in [name for name in headers if name.lower() == "idempotency-key"]:
        if positive and isinstance(headers[name], str):
            headers[name] = f"{_RUN}-{next(_KEYS)}"
    return case


def _phase(case: Any) -> tuple[bool, bool]:
    """Whether the case is schema-valid, and whether the stateful phase made it."""
    positive = case.meta is None or case.meta.generation.mode == GenerationMode.POSITIVE
    linked = case.meta is not None and case.meta.phase.name == TestPhase.STATEFUL
    return positive, linked


@schemathesis.hook
def before_load_schema(ctx: Any, raw_schema: dict[str, Any]) -> None:
    """Every link's request body is sent as it is: a whole round entry, a whole action."""
    for item in raw_schema.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values():
                for link in response.get("links", {}).values():
                    if "requestBody" in link:
                        link["x-schemathesis"] = {"merge_body": False}


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    """A schema-valid request names a real resource where its operation needs one; the
    stateful phase's games and sheets are playable by the links."""
    if case.meta is None:
        return  # a call the hooks make themselves
    positive, linked = _phase(case)
    if linked:
        playable_by_links(case)
        return
    if not positive:
        return
    operation = case.operation
    instance = _instance(operation, operation.app)

    def credential(scheme: str) -> str:
        if (scheme, instance) not in _TOKENS:
            _TOKENS[scheme, instance] = str(_made(operation, scheme, operation.app))
        return _TOKENS[scheme, instance]

    scheme = _scheme(operation)
    owned = _OWN_ID.get(str(scheme))
    if owned is not None and owned in (case.path_parameters or {}):
        # A seat's or a sheet's operation: the game or sheet of the run's token it gets.
        case.path_parameters[owned] = _GAMES[credential(str(scheme))]
    real = real_path(operation, instance, case.body, credential)
    token = real.pop("token", None)
    if real:
        case.path_parameters = {**(case.path_parameters or {}), **real}
    if token is not None:
        _ANSWERED.add(token)
        headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
        case.headers = {**headers, "Authorization": f"Bearer {token}"}


def playable_by_links(case: Any) -> None:
    """Games and sheets the links can play: a link carries the tokens of the first two seats,
    the invite code of a table (its third seat open, where the generated table had an open
    seat) and a round entry for two seats. Given deals and another game's deals each fit only
    some games: generated ones are nearly always refused, and the links never reached."""
    operation_id = case.operation.definition.raw.get("operationId")
    body = case.body
    if not isinstance(body, dict):
        return
    if operation_id == "createGame":
        players = body.get("players")
        if isinstance(players, list):
            table = any(isinstance(p, dict) and p.get("open") is True for p in players)
            body["players"] = [{"name": "Ann"}, {"name": "Bob"}, *([{"open": True}] * table)]
        for fitted in ("deal", "deal_from", "rotate_seats"):
            body.pop(fitted, None)
    elif operation_id == "claimInvite" and "me" in body:
        # A seat for "me" needs a player's key, which no link carries: claim by name.
        case.body = {"name": "Guest"}
    elif operation_id == "createScoreSheet":
        body.update(players=["Ann", "Bob"], rules="classic", first_dealer=0)
    elif operation_id in _DELETED_AGAIN and isinstance(body.get("events"), list):
        # Its deliveries: of a game's start (``after_call`` starts one).
        body["events"] = sorted({*body["events"], "game_start"})

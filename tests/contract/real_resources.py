"""Real resources for the schema-valid requests schemathesis sends to operations whose path names
something that must exist first: an invite, a stored record, a webhook and its deliveries, a
player's rating history, a game whose seat may draw. A generated id names nothing, so every such
request would be answered 404 (schemathesis warns: "missing test data") and nothing behind the
lookup would be tested. The hooks (``tests/contract/schemathesis_hooks.py``) point each
schema-valid request of the examples, coverage and fuzzing phases at a real one, made here on the
instance under test as a client would make it; the stateful phase follows the document's links
instead, and schema-invalid requests keep their generated ids (each must still be refused).

What a request uses up is made anew for it (a claim takes the invite's seat, a delete removes
the webhook, an action moves the game on); what it only reads is made once per instance. Only
the path parameters change, and the credential where the resource is another owner's: the body
and the rest are schemathesis's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from engine.records import record_json, record_of
from tests.engine.records_example import example_game
from tests.waiting import eventually

Credential = Callable[[str], str]
"""The run's credential of a security scheme (``playerKey``, ``appKey``, ...), made on first use."""

_MADE: dict[tuple[Any, int | str], dict[str, str]] = {}
"""What was made once, by its maker (``_ONCE``) and instance."""


def _call(operation: Any, operation_id: str, **parts: Any) -> Any:
    """Call another operation of the document on the same instance; its answer (2xx or fail)."""
    response = operation.schema.find_operation_by_id(operation_id).Case(**parts).call()
    assert response.status_code < 300, f"{operation_id} to make test data: {response.text}"
    return response.json() if response.content else None


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _waiting_table(operation: Any) -> dict[str, str]:
    """A table with an open seat: its invite code."""
    made = _call(operation, "createGame", body={"players": [{"name": "Ann"}, {"open": True}]})
    return {"code": made["invite_code"]}


def fresh_game(operation: Any) -> dict[str, str]:
    """A game of two people, just dealt: its id, and the token of the seat on turn (whose draw
    is legal; a seat that leaves is a bot's from then on)."""
    made = _call(operation, "createGame", body={"players": [{"name": "Ann"}, {"name": "Bob"}]})
    return {"game_id": made["game_id"], "token": made["seats"][made["view"]["turn"]]["token"]}


def _record(operation: Any) -> dict[str, str]:
    """A finished game's record, stored (docs/records.md's worked example)."""
    body = record_json(record_of(example_game()))
    made = _call(operation, "importRecord", body=body, media_type="application/json")
    return {"record_id": made["record_id"]}


def _player(operation: Any, app_key: str | None = None) -> str:
    """A new player's key (the app's player, made with ``app_key``): a player of its own for
    each webhook made here, so the run's player's quota of webhooks stays the run's."""
    headers = _bearer(app_key) if app_key is not None else None
    return str(_call(operation, "createPlayer", body={"name": "Hooked"}, headers=headers)["key"])


def _webhook(operation: Any, created_by: str, key: str) -> dict[str, str]:
    """A webhook made with ``key``, and the key, as ``token``, for the request to it."""
    body = {"url": "https://example.com/hooks/contract", "events": ["game_start", "your_turn"]}
    made = _call(operation, created_by, body=body, headers=_bearer(key))
    return {"webhook_id": made["webhook_id"], "token": key}


def _delivery(
    operation: Any, created_by: str, owner_key: str, player_key: str | None
) -> dict[str, str]:
    """A webhook with a delivery: the owner's (a player, or the app) webhook, then its first
    delivery (``first_delivery``)."""
    hook = _webhook(operation, created_by, owner_key)
    delivered = first_delivery(operation, created_by, hook["webhook_id"], owner_key, player_key)
    return {**hook, "delivery_id": delivered}


def first_delivery(
    operation: Any, created_by: str, webhook_id: str, owner_key: str, player_key: str | None
) -> str:
    """The id of a delivery of a webhook with ``game_start`` among its events, once there is
    one: a game of one of the owner's players against a bot (the app's, made with its key,
    where ``player_key`` is None) starts, and the webhook's deliveries are read until it is
    there."""
    if player_key is None:
        player_key = _player(operation, owner_key)
    body = {"players": [{"me": True}, {"bot": "easy"}]}
    _call(operation, "createGame", body=body, headers=_bearer(player_key))
    listed_by = {"createWebhook": "listWebhookDeliveries"}.get(
        created_by, "listAppWebhookDeliveries"
    )
    path = {"webhook_id": webhook_id}

    def newest() -> str | None:
        answer = _call(operation, listed_by, path_parameters=path, headers=_bearer(owner_key))
        deliveries = answer["deliveries"]
        return str(deliveries[0]["delivery_id"]) if deliveries else None

    found: str = eventually(newest, f"a delivery of webhook {webhook_id}")
    return found


def _hooked_player_delivery(operation: Any, key: Credential) -> dict[str, str]:
    player = _player(operation)
    return _delivery(operation, "createWebhook", player, player)


def _app_delivery(operation: Any, key: Credential) -> dict[str, str]:
    return _delivery(operation, "createAppWebhook", key("appKey"), None)


def real_path(operation: Any, instance: int | str, body: Any, key: Credential) -> dict[str, Any]:
    """The path parameters of something real for a schema-valid request of ``operation`` (and,
    as ``token``, the credential it needs, where not the run's own); empty for an operation
    that needs nothing made."""
    operation_id = operation.definition.raw.get("operationId")
    made: dict[str, Any] | None
    if operation_id == "getRatingHistory":
        return {"player_id": "bot-easy"}  # a built-in level: a player every instance has
    if operation_id in ("applyAction", "leaveGame"):
        made = fresh_game(operation)
    elif operation_id == "claimInvite":
        made = _waiting_table(operation)
        if isinstance(body, dict) and "me" in body:  # a seat for the caller: a player's key
            made["token"] = key("playerKey")
    elif operation_id == "deleteWebhook":
        made = _webhook(operation, "createWebhook", _player(operation))
    elif operation_id in _ONCE:
        maker = _ONCE[operation_id]
        if (maker, instance) not in _MADE:
            _MADE[maker, instance] = maker(operation, key)
        made = _MADE[maker, instance]
    else:
        made = None
    # Only the operation's own path parameters: a delivery's listing shares the webhook made
    # for its redelivery, and takes its id alone.
    named = {p.get("name") for p in operation.definition.raw.get("parameters") or ()}
    return {name: value for name, value in (made or {}).items() if name in named | {"token"}}


Maker = Callable[[Any, Credential], dict[str, str]]

_ONCE: Final[dict[str, Maker]] = {
    "getInviteQr": lambda operation, key: _waiting_table(operation),
    "getRecordReview": lambda operation, key: _record(operation),
    "redeliverWebhookDelivery": _hooked_player_delivery,
    "listWebhookDeliveries": _hooked_player_delivery,
    "redeliverAppWebhookDelivery": _app_delivery,
    "listAppWebhookDeliveries": _app_delivery,
}
"""Operations that only read what they name: made once per instance by its maker, which
operations reading the same kind of thing share (a webhook with a delivery: its listing and its
redelivery). Without a real webhook a listing's valid requests would all be 404s, and whether
the stateful phase's links reach it varies from run to run: schemathesis then warns of missing
test data."""

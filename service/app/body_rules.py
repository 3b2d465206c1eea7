"""What the request bodies' schemas say beyond msgspec's own: the rules between fields, so that
clients and fuzzers know what the service takes (``service.app.document`` applies them to the
document it serves).

msgspec's schema of a struct states each field alone. Where a rule binds fields and JSON Schema
can state it, the schema says it as a ``not`` (never an ``anyOf`` of alternatives, which
generators turn into several types, or drop): a seat spec is one kind of seat, a claim a name or
me, an analysis needs ``wild`` or ``round``, a sheet's entry is cards or points, a stock draw
names no pile. Where it cannot (a count bound by another field, a card that must be in the
hand), the field's description states it and the service answers 422 naming the field.
"""

from __future__ import annotations

from typing import Any, Final

# A seat spec is exactly one kind of seat (``PlayerIn``): a name, me, open, or a bot with an
# optional name. msgspec cannot say so in the struct; the document does, for clients and fuzzers:
# at least one field, never open beside a name or a bot, never me beside anything. (Not as a
# ``oneOf`` of the kinds, which generators turn into four types of seat, each with a part of the
# fields.) A claim is a name or me.
_ONE_KIND_OF_SEAT: Final = {
    "minProperties": 1,
    "not": {
        "anyOf": [
            {"properties": {"name": {}, "open": {}}, "required": ["name", "open"]},
            {"properties": {"open": {}, "bot": {}}, "required": ["open", "bot"]},
            {"properties": {"me": {}, "name": {}}, "required": ["me", "name"]},
            {"properties": {"me": {}, "open": {}}, "required": ["me", "open"]},
            {"properties": {"me": {}, "bot": {}}, "required": ["me", "bot"]},
        ]
    },
}
_ONE_CLAIMANT: Final = {
    "minProperties": 1,
    "not": {"properties": {"me": {}, "name": {}}, "required": ["me", "name"]},
}

# Rules between fields, which JSON Schema cannot state: (schema, property) → the rule. A request
# that breaks one is a 422 naming the field.
_WILD_OR_ROUND: Final = {
    "not": {"properties": {"wild": {"type": "null"}, "round": {"type": "null"}}}
}
"""An analysis needs the wild rank: ``wild``, or the ``round`` whose rank is wild (never both
left out or null). As a ``not``, which generators leave aside (an ``anyOf`` made
openapi-python-client drop the model), as ``PlayerIn``'s rule is."""
_CARDS_OR_POINTS: Final = {
    "not": {
        "anyOf": [
            {
                "properties": {"cards": {"type": "array"}, "points": {"type": "integer"}},
                "required": ["cards", "points"],
            },
            {"properties": {"cards": {"type": "null"}, "points": {"type": "null"}}},
        ]
    }
}
"""A score sheet's entry is exactly one of ``cards`` and ``points`` (the other left out or
null): never both, never neither. A ``not``, as ``_WILD_OR_ROUND`` is."""
_STOCK_TAKES_NO_PILE: Final = {
    "not": {
        "properties": {"source": {"const": "stock"}, "pile": {"type": "integer"}},
        "required": ["source", "pile"],
    }
}
"""A draw from the stock names no ``pile`` (left out or null): a pile is a discard pile's."""
_EXAMPLES: Final = {
    "DrawAction": [{"type": "draw", "source": "stock"}],
    "EnterRoundRequest": [
        {
            "entries": [{"seat": 0, "points": 0}, {"seat": 1, "cards": ["7H", "KS", "2C"]}],
            "out_seat": 0,
        }
    ],
}
"""Whole bodies where the fields' own examples would not make one (a seat that went out and
one that did not; the first round's three cards)."""
_WEBHOOK_URL: Final = r'^[Hh][Tt][Tt][Pp][Ss]?://[!"$-~]+$'
"""What every webhook URL the service takes looks like (``service.webhooks.addresses`` checks
the rest, and says why it refuses one): http(s), then printable ASCII, no space, no fragment."""
_CROSS_FIELD_RULES: Final = {
    ("RulesOverrides", "min_players"): "At most `max_players` (else 422, `rules.max_players`).",
    ("RulesOverrides", "max_players"): (
        "At least `min_players`, and at least the table's seats (else 422 naming it)."
    ),
    ("CreateGameRequest", "players"): (
        "Between the rules' `min_players` and `max_players` seats (else 422, `players`)."
    ),
    ("CreateSheetRequest", "players"): (
        "Between the rules' `min_players` and `max_players` names (else 422, `players`)."
    ),
    ("EntryIn", "cards"): "Exactly one of `cards` and `points` (else 422 naming the entry).",
    ("EntryIn", "points"): "Exactly one of `cards` and `points` (else 422 naming the entry).",
    ("AnalyseRequest", "wild"): "`wild` or `round` (else 422, `wild`); `wild` wins if both.",
    ("AdviseRequest", "wild"): "`wild` or `round` (else 422, `wild`); `wild` wins if both.",
}


def rules_between_fields_stated(schemas: dict[str, Any]) -> None:
    """``schemas`` (msgspec's, by name) with the rules between fields that JSON Schema can
    state, whole bodies as examples, the webhook URL's pattern, and the rules it cannot state
    in the descriptions of the fields they bind."""
    stated = {
        "PlayerIn": _ONE_KIND_OF_SEAT,
        "ClaimRequest": _ONE_CLAIMANT,
        "AnalyseRequest": _WILD_OR_ROUND,
        "AdviseRequest": _WILD_OR_ROUND,
        "EntryIn": _CARDS_OR_POINTS,
        "DrawAction": _STOCK_TAKES_NO_PILE,
    }
    for name, rule in stated.items():
        schemas[name].update(rule)
    for name, examples in _EXAMPLES.items():
        schemas[name]["examples"] = examples
    schemas["CreateWebhookRequest"]["properties"]["url"]["pattern"] = _WEBHOOK_URL
    for (name, field), rule in _CROSS_FIELD_RULES.items():
        if name in schemas:
            target = schemas[name]["properties"][field]
            target["description"] = f"{target.get('description', '')} {rule}".strip()

"""The service's own Prometheus counters, beside the request counts and latencies that Litestar's
Prometheus middleware records. Process-wide, like the registry they live in."""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter

from engine.game import action_name

GAMES_CREATED: Final = Counter("three_thirteen_games_created", "Games created", ["preset"])
ACTIONS_APPLIED: Final = Counter("three_thirteen_actions_applied", "Game actions applied", ["type"])
BOT_MOVES: Final = Counter(
    "three_thirteen_bot_moves",
    "Actions the service made for a seat: a computer player's, or a person's overdue turn",
    ["level"],
)
ACTIONS_REPLAYED: Final = Counter(
    "three_thirteen_actions_replayed",
    "Retried requests (actions, creates, claims, …) answered from their Idempotency-Key "
    "without doing the work again",
)
ANALYSES_RUN: Final = Counter("three_thirteen_analyses_run", "Hands analysed")
REVIEWS_COMPUTED: Final = Counter(
    "three_thirteen_reviews_computed",
    "Reviews computed in this instance's worker processes (each once, however many asked)",
)

WEBHOOK_ATTEMPTS: Final = Counter(
    "three_thirteen_webhook_attempts",
    "Webhook delivery attempts this instance made, by what became of the delivery: delivered, "
    "retried (waiting for its next try) or dropped (retried for WEBHOOK_RETRY_FOR)",
    ["outcome"],
)


_APPLIED_BY_NAME: Final[dict[str, Counter]] = {}
"""``ACTIONS_APPLIED``'s child of each action's name, made at its first count: ``labels()``
checks and looks its labels up under a lock on every call, the child is one increment
(prometheus_client's advice for a hot path)."""


def count_action(action: object) -> None:
    """Count an applied action, a person's or one the service made for a seat, under its one
    name (``engine.game.ACTION_NAMES``: a request body's ``type``)."""
    name = action_name(action)
    applied = _APPLIED_BY_NAME.get(name)
    if applied is None:
        applied = _APPLIED_BY_NAME[name] = ACTIONS_APPLIED.labels(type=name)
    applied.inc()

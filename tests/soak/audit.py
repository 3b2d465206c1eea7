"""The soak's audit: every game's log (``GET /v1/games/{id}/log``) against what its people were
answered.

For each action a person was answered 200, the log must hold that action, by that seat, at the
version the answer showed: else it was **lost**. Each entry of the log by a person's seat must be
explained by an action that person was answered 200 for at that version; otherwise:

- the clock played it (a table with ``turn_seconds``, and no request of the person's that could
  have been applied): a **clock move**, as the contract promises;
- the person's request was still in flight when the run ended: **in flight**;
- the person's request got no answer, was sent again with its Idempotency-Key, and the retry was
  refused (409, ...), while the seat's next view did not show it away (so the clock had not
  played it): the first try was applied but its answer never came back, and the retry did not
  return it: **unacknowledged** (a retry that is not safe). On a clock table with no view after
  the refusal, it is counted **ambiguous**;
- nothing the person did accounts for it: **unexplained** (an action applied twice, or by
  someone else in that seat).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tests.soak.records import NO_ANSWER, ActionTried, GameCreated, Record, SeatClaimed

EXAMPLES = 8
"""Findings listed by name in the report, per kind (the rest are counted)."""


@dataclass
class Audit:
    games: int = 0
    answered: int = 0
    """Actions answered 200."""
    matched: int = 0
    clock_moves: int = 0
    in_flight: int = 0
    ambiguous: int = 0
    lost: list[str] = field(default_factory=list)
    unacknowledged: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    """Games whose log could not be read after the run."""

    @property
    def faults(self) -> int:
        return len(self.lost) + len(self.unacknowledged) + len(self.unexplained)


def people_of(records: list[Record]) -> dict[str, dict[int, int | None]]:
    """Each game's people's seats, with the game's clock (``turn_seconds``)."""
    clocks: dict[str, int | None] = {}
    seats: dict[str, set[int]] = defaultdict(set)
    for record in records:
        if isinstance(record, GameCreated) and record.game_id:
            clocks[record.game_id] = record.clock
            seats[record.game_id].add(record.seat)
        elif isinstance(record, SeatClaimed) and record.game_id is not None:
            seats[record.game_id].add(record.seat if record.seat is not None else -1)
    return {game: dict.fromkeys(taken, clocks.get(game)) for game, taken in seats.items()}


def same_action(entry: dict[str, Any], body: dict[str, Any]) -> bool:
    action = entry["action"]
    if action["type"] != body["type"]:
        return False
    if body["type"] == "draw":
        return bool(action["source"] == body["source"])
    if body["type"] == "discard":
        return bool(entry["card"] == body["card"]) and action["go_out"] == body.get("go_out", False)
    return True


def audit(records: list[Record], logs: dict[str, dict[str, Any] | None]) -> Audit:
    """Check each game of ``logs`` (None: its log could not be read) against the records."""
    result = Audit()
    people = people_of(records)
    tried: dict[str, list[ActionTried]] = defaultdict(list)
    for record in records:
        if isinstance(record, ActionTried):
            tried[record.game_id].append(record)
    for game_id, log in logs.items():
        if log is None:
            result.unreadable.append(game_id)
            continue
        result.games += 1
        _audit_game(result, game_id, log, people.get(game_id, {}), tried[game_id])
    return result


def _audit_game(
    result: Audit,
    game_id: str,
    log: dict[str, Any],
    people: dict[int, int | None],
    tried: list[ActionTried],
) -> None:
    entries = {entry["version"]: entry for entry in log["entries"]}
    _check_answers(result, game_id, log, entries, tried)
    _check_entries(result, game_id, entries, people, tried)


def _check_answers(
    result: Audit,
    game_id: str,
    log: dict[str, Any],
    entries: dict[int, dict[str, Any]],
    tried: list[ActionTried],
) -> None:
    """Every action answered 200 is in the log, as sent, at the version it was answered with."""
    for action in tried:
        if action.status != 200:
            continue
        result.answered += 1
        version = action.version if action.version is not None else -1
        entry = entries.get(version)
        if version != action.expected_version + 1 or entry is None:
            result.lost.append(
                f"{game_id} seat {action.seat}: {action.body} answered 200 at version "
                f"{version} (sent at {action.expected_version}); the log ends at {log['version']}"
            )
        elif entry["seat"] != action.seat or not same_action(entry, action.body):
            result.lost.append(
                f"{game_id} v{version}: seat {action.seat} was answered 200 for "
                f"{action.body}, the log has seat {entry['seat']} {entry['action']} "
                f"{entry['card']}"
            )
        else:
            result.matched += 1


def _check_entries(
    result: Audit,
    game_id: str,
    entries: dict[int, dict[str, Any]],
    people: dict[int, int | None],
    tried: list[ActionTried],
) -> None:
    """Every entry in a person's seat is explained by what that person sent."""
    clock = next(iter(people.values()), None)
    at: dict[tuple[int, int], list[ActionTried]] = defaultdict(list)
    for action in tried:
        at[action.seat, action.expected_version].append(action)
    for version, entry in sorted(entries.items()):
        if entry["seat"] not in people:
            continue
        attempts = at[entry["seat"], version - 1]
        if any(action.status == 200 for action in attempts):
            continue
        if any(action.status is None for action in attempts):
            result.in_flight += 1
        elif (retried := _retried(attempts)) is not None and not (
            clock is not None and retried.away_after is not False
        ):
            action = retried
            result.unacknowledged.append(
                f"{game_id} v{version}: seat {entry['seat']}'s {action.body} was applied; its "
                f"tries were answered {action.statuses} (key {action.key})"
            )
        elif retried is not None and retried.away_after is None:
            result.ambiguous += 1
        elif clock is not None:
            result.clock_moves += 1
        else:
            result.unexplained.append(
                f"{game_id} v{version}: seat {entry['seat']} {entry['action']} {entry['card']} "
                f"on a table without a clock; the person's tries at v{version - 1}: "
                f"{[action.statuses for action in attempts] or 'none'}"
            )


def _retried(attempts: list[ActionTried]) -> ActionTried | None:
    """The attempt that got no answer, was sent again and was then refused, if any."""
    for action in attempts:
        if action.status not in (None, 200) and NO_ANSWER in action.statuses:
            return action
    return None

"""The soak's closing table, and its verdict against the targets of docs/operations.md."""

from __future__ import annotations

import csv
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.soak.audit import EXAMPLES, Audit
from tests.soak.options import SoakOptions
from tests.soak.records import (
    ACT,
    HEALTH,
    NO_ANSWER,
    ActionTried,
    Finished,
    GameCreated,
    Left,
    Record,
    Request,
    SeatClaimed,
    Stalled,
)
from tests.soak.servers import KillWindow, Sample

ACTION_P99_TARGET_MS = 50.0
MEMORY_GROWTH_LIMIT = 1.5
"""An instance's RSS at the end may be at most this multiple of what it was after the ramp."""
MB = 1024 * 1024


@dataclass
class Run:
    """Everything the report reads: the options, what happened, what was measured."""

    options: SoakOptions
    started: float
    ended: float
    urls: list[str]
    windows: list[KillWindow]
    samples: list[Sample]
    restarts: list[int]
    records: list[Record]
    requests: list[Request]
    locust_stats: list[dict[str, str]]
    audit: Audit
    logs: dict[str, dict[str, Any] | None]
    cpu: dict[str, float]
    """CPU seconds over the run: instances, redis, locust."""
    games_in_redis: int | None = None
    strangers_held: int = 0
    """Games Redis holds that no person was answered for (made, joined, matched or accepted)."""
    strangers: dict[str, str] = field(default_factory=dict)
    """A few of those games, and who sits at them."""
    revived: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Games still stuck at the end: their log's version before one GET of the view, and a few
    seconds after it (a GET nudges the game's bots)."""
    findings: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    def during_a_kill(self, request: Request) -> bool:
        """Whether the request was sent or answered inside a kill window (one in flight when
        its instance was killed started before the window)."""
        end = request.started + request.ms / 1000
        return any(window.covers(request.started) or window.covers(end) for window in self.windows)


def read_locust_stats(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as rows:
        return list(csv.DictReader(rows))


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (NaN for no values)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def table(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """A plain text table, numbers right-aligned."""
    cells = [[str(cell) for cell in header]] + [[_cell(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = []
    for number, row in enumerate(cells):
        parts = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@dataclass
class Verdict:
    lines: list[tuple[str, bool, str]] = field(default_factory=list)

    def check(self, target: str, passed: bool, measured: str) -> None:
        self.lines.append((target, passed, measured))

    @property
    def passed(self) -> bool:
        return all(passed for _, passed, _ in self.lines)


def render(run: Run) -> tuple[str, bool]:
    """The report, and whether every target was met."""
    options = run.options
    verdict = Verdict()
    out: list[str] = []
    store = "a 3-master Redis Cluster" if options.cluster else "Redis"
    out.append(
        f"Soak: {options.games:,} games at once ({options.solo_tables:,} people alone with bots, "
        f"{options.invite_tables:,} tables of two people joined by code or challenge), "
        f"{options.people:,} people ({options.player_share:.0%} of them players with a key, "
        f"half of those alone seeking a table of two), {len(run.urls)} instances on {store}, "
        f"{run.seconds:.0f} s, "
        + (f"one instance killed every {options.chaos_seconds:.0f} s" if run.windows else "no kill")
    )
    out.append("")
    out += _kill_windows(run)
    out += _routes(run)
    latencies = _actions(run, out)
    _statuses(run, out, verdict)
    _games(run, out, verdict)
    _audit(run, out, verdict)
    _memory(run, out, verdict)
    _cpu(run, out)
    outside = latencies["outside"]
    p99 = percentile(outside, 0.99)
    verdict.check(
        f"person action p99 < {ACTION_P99_TARGET_MS:.0f} ms outside kill windows",
        bool(outside) and p99 < ACTION_P99_TARGET_MS,
        f"{p99:.1f} ms over {len(outside):,} answers",
    )
    out.append("Targets")
    out.append(
        table(
            ["target", "", "measured"],
            [
                (target, "ok" if passed else "MISSED", measured)
                for target, passed, measured in verdict.lines
            ],
        )
    )
    if run.findings:
        out.append("")
        out.append("Notes")
        out += [f"- {finding}" for finding in run.findings]
    return "\n".join(out), verdict.passed


def _kill_windows(run: Run) -> list[str]:
    if not run.windows:
        return []
    rows = [
        (
            f"#{number}",
            f"instance {window.instance} ({run.urls[window.instance]})",
            f"+{window.killed - run.started:.1f} s",
            "never" if window.back is None else f"+{window.back - run.started:.1f} s",
            "-" if window.back is None else f"{window.back - window.killed:.1f} s",
        )
        for number, window in enumerate(run.windows, 1)
    ]
    grace = run.options.kill_grace
    return [
        f"Kill windows (kill -9 of the instance's process group until it answers /healthz "
        f"again, plus {grace:.0f} s)",
        table(["kill", "instance", "killed", "back", "down"], rows),
        "",
    ]


def _routes(run: Run) -> list[str]:
    rows = [
        (
            f"{row['Type']} {row['Name']}".strip(),
            int(row["Request Count"]),
            int(row["Failure Count"]),
            float(row["Requests/s"]),
            float(row["50%"]),
            float(row["99%"]),
        )
        for row in run.locust_stats
        if row.get("Request Count") not in (None, "0")
    ]
    return [
        "Routes (Locust's CSV: every try, retries included; a 409 is not counted as a failure)",
        table(["route", "requests", "failures", "req/s", "p50 ms", "p99 ms"], rows),
        "",
    ]


def _actions(run: Run, out: list[str]) -> dict[str, list[float]]:
    """People's actions and their latency in and out of kill windows, beside /healthz's."""
    latencies: dict[str, list[float]] = {"outside": [], "inside": []}
    health: dict[str, list[float]] = {"outside": [], "inside": []}
    for request in run.requests:
        if request.route in (ACT, HEALTH) and request.status != NO_ANSWER:
            inside = "inside" if run.during_a_kill(request) else "outside"
            (latencies if request.route == ACT else health)[inside].append(request.ms)
    people_ok = sum(1 for r in run.records if isinstance(r, ActionTried) and r.status == 200)
    entries = sum(len(log["entries"]) for log in run.logs.values() if log is not None)
    machine_moves = max(0, entries - run.audit.matched - run.audit.in_flight)
    seconds = max(run.seconds, 1e-9)

    def timed(label: str, values: list[float]) -> tuple[Any, ...]:
        return label, len(values), math.nan, percentile(values, 0.5), percentile(values, 0.99)

    def counted(label: str, count: int) -> tuple[Any, ...]:
        return label, count, count / seconds, math.nan, math.nan

    out.append("Actions")
    out.append(
        table(
            ["", "count", "per second", "p50 ms", "p99 ms"],
            [
                counted("people's actions answered 200", people_ok),
                timed("  answers outside kill windows", latencies["outside"]),
                timed("  answers inside kill windows", latencies["inside"]),
                timed("GET /healthz outside kill windows (baseline)", health["outside"]),
                counted("every action in the games' logs", entries),
                counted("  of which bots' and clocks' moves", machine_moves),
            ],
        )
    )
    out.append("")
    return latencies


def _statuses(run: Run, out: list[str], verdict: Verdict) -> None:
    counts: Counter[tuple[str, bool]] = Counter()
    errors: Counter[str] = Counter()
    for request in run.requests:
        inside = run.during_a_kill(request)
        kind = _kind(request)
        counts[kind, inside] += 1
        if kind == "error" or (kind in ("503", "no answer") and not inside):
            errors[
                f"{request.route} {request.status or 'no answer'} {request.problem}".strip()
            ] += 1
    kinds = ["2xx", "409", "503", "no answer", "error"]
    labels = {
        "2xx": "2xx",
        "409": "409 lost races",
        "503": "503 (documented during a kill)",
        "no answer": "no answer (retried on another instance)",
        "error": "other errors",
    }
    out.append("Answers by status (every try)")
    out.append(
        table(
            ["", "outside kill windows", "inside kill windows"],
            [(labels[kind], counts[kind, False], counts[kind, True]) for kind in kinds],
        )
    )
    conflicts = Counter(
        f"{request.route} {request.problem}" for request in run.requests if request.status == 409
    )
    if conflicts:
        out.append(
            "409s: " + ", ".join(f"{name} {count:,}" for name, count in conflicts.most_common())
        )
    if errors:
        out.append("Errors:")
        out += [f"  {count:,} x {name}" for name, count in errors.most_common()]
    out.append("")
    verdict.check(
        "0 errors other than 409s and 503s/no answers during a kill",
        not errors,
        f"{sum(errors.values()):,}",
    )


def _kind(request: Request) -> str:
    if 200 <= request.status < 300:
        return "2xx"
    if request.status in (409, 503):
        return str(request.status)
    if request.status == NO_ANSWER:
        return "no answer"
    return "error"


def _games(run: Run, out: list[str], verdict: Verdict) -> None:
    creates = [r for r in run.records if isinstance(r, GameCreated)]
    created = [r for r in creates if r.game_id]
    claims = [r for r in run.records if isinstance(r, SeatClaimed)]
    invites = [r for r in claims if r.how == "invite"]
    accepts = [r for r in claims if r.how == "challenge"]
    seeks = [r for r in claims if r.how == "seek"]
    finished = {r.game_id for r in run.records if isinstance(r, Finished)}
    left = [r for r in run.records if isinstance(r, Left)]
    stalls = [r for r in run.records if isinstance(r, Stalled)]
    stuck_games = {stall.game_id for stall in stalls}
    open_stalls = {stall.game_id for stall in stalls if stall.until is None}
    clocks = sum(1 for r in created if r.clock is not None)
    stuck_label = f"games stuck (playing, no new version for {run.options.stuck_seconds:.0f} s)"
    rows: list[tuple[str, Any]] = [
        ("games created", len(created)),
        ("  creates not answered 201", len(creates) - len(created)),
        ("  with a turn clock", clocks),
        ("  creates sent more than once", sum(len(r.statuses) > 1 for r in created)),
        ("seats claimed by invite code", sum(r.game_id is not None for r in invites)),
        ("  claims refused", sum(r.game_id is None for r in invites)),
        ("  claims sent more than once", sum(len(r.statuses) > 1 for r in invites)),
        ("players' seats by an open challenge", sum(r.game_id is not None for r in accepts)),
        ("  acceptances refused", sum(r.game_id is None for r in accepts)),
        ("players' seats by a seek matched", sum(r.game_id is not None for r in seeks)),
        ("  seeks not matched (given up, or at the end)", sum(r.game_id is None for r in seeks)),
        ("games seen finished", len(finished)),
        (stuck_label, len(stuck_games)),
        ("  still stuck when their person left or the run ended", len(open_stalls)),
        ("games left by their person (stuck / table never joined)",
         f"{sum(r.reason == 'stuck' for r in left)} / {sum(r.reason == 'unjoined' for r in left)}"),
    ]  # fmt: skip
    away = [r for r in run.records if isinstance(r, ActionTried) and r.away]
    rows.append(("turns a person let the clock play", len(away)))
    rows.append(
        ("  the clock had not played 4 s after its time", sum(r.status == 200 for r in away))
    )
    if run.games_in_redis is not None:
        rows.append(("games Redis holds at the end", run.games_in_redis))
        rows.append(
            ("  that no person was answered for (a create applied twice?)", run.strangers_held)
        )
    out.append("Games")
    out.append(table(["", "count"], rows))
    retried = {f"Soak {r.number}": r for r in creates if len(r.statuses) > 1}
    for game_id, seated in run.strangers.items():
        out.append(f"  nobody was answered for {game_id}: {seated}")
    for name, record in retried.items():
        out.append(
            f"  {name}'s create {record.game_id or '(none)'} was sent "
            f"{len(record.statuses)} times, answered {record.statuses}"
        )
    refused = [r for r in invites if r.game_id is None]
    for claim in refused[:EXAMPLES]:
        out.append(
            f"  claim of {claim.code} (game {claim.host_game_id}) at "
            f"+{claim.at - run.started:.1f} s: tries answered {claim.statuses}"
        )
    by_kind = Counter(stall.turn_kind or "?" for stall in stalls)
    if stalls:
        out.append(
            "  stuck, by who was on turn: " + ", ".join(f"{k} {n}" for k, n in by_kind.items())
        )
    for game_id, (before, after) in run.revived.items():
        moved = f"moved on to v{after}" if after > before else "did not move"
        out.append(
            f"  {game_id}, still at v{before} after the run: one GET of its view, it {moved}"
        )
    for stall in stalls[:EXAMPLES]:
        kill = _kill_before(run, stall.since)
        out.append(
            f"  {stall.game_id} seat {stall.seat} at v{stall.version}, turn {stall.turn} "
            f"({stall.turn_kind}), {'stream' if stall.streaming else 'polling'}: no version from "
            f"+{stall.since - run.started:.1f} s "
            + ("to the end" if stall.until is None else f"for {stall.until - stall.since:.0f} s")
            + (f"; {kill}" if kill else "")
        )
    out.append("")
    verdict.check("0 stuck games", not stuck_games, f"{len(stuck_games):,}")


def _kill_before(run: Run, moment: float) -> str:
    """The kill that came shortly before a moment, if any (a stall it may have caused)."""
    for window in reversed(run.windows):
        if window.killed <= moment <= window.killed + run.options.stuck_seconds:
            return f"{moment - window.killed:.1f} s after kill of instance {window.instance}"
    return ""


def _audit(run: Run, out: list[str], verdict: Verdict) -> None:
    audit = run.audit
    out.append("Audit (every game's log against its people's records)")
    out.append(
        table(
            ["", "count"],
            [
                ("games audited", audit.games),
                ("actions answered 200", audit.answered),
                ("  found in the log as answered", audit.matched),
                ("  lost (answered 200, not in the log)", len(audit.lost)),
                ("applied but answered otherwise after a retry", len(audit.unacknowledged)),
                ("applied with no request explaining it (doubled?)", len(audit.unexplained)),
                ("turn-clock moves in people's seats", audit.clock_moves),
                ("  clock, or applied and its retry refused (no view after)", audit.ambiguous),
                ("in flight when the run ended", audit.in_flight),
                ("logs that could not be read", len(audit.unreadable)),
            ],
        )
    )
    for finding in (audit.lost + audit.unacknowledged + audit.unexplained)[:EXAMPLES]:
        out.append(f"  {finding}")
    out.append("")
    verdict.check(
        "0 lost or doubled actions",
        audit.faults == 0 and not audit.unreadable,
        f"{len(audit.lost)} lost, {len(audit.unacknowledged)} unacknowledged, "
        f"{len(audit.unexplained)} unexplained, {len(audit.unreadable)} unreadable logs",
    )


def _memory(run: Run, out: list[str], verdict: Verdict) -> None:
    if not run.samples:
        return
    start, end = run.samples[0], run.samples[-1]
    ramped = next((s for s in run.samples if s.at >= run.started + run.options.ramp_seconds), end)
    rows: list[tuple[Any, ...]] = [
        ("Redis used_memory", start.redis_bytes / MB, ramped.redis_bytes / MB, end.redis_bytes / MB,
         max(s.redis_bytes for s in run.samples) / MB, "-"),
    ]  # fmt: skip
    for index in range(len(start.rss)):
        rows.append(
            (
                f"instance {index} RSS",
                start.rss[index] / MB,
                ramped.rss[index] / MB,
                end.rss[index] / MB,
                max(s.rss[index] for s in run.samples) / MB,
                run.restarts[index],
            )
        )
    out.append("Memory (MB)")
    out.append(table(["", "start", "after ramp", "end", "max", "restarts"], rows))
    created = sum(1 for r in run.records if isinstance(r, GameCreated) and r.game_id)
    if created:
        per_game = (end.redis_bytes - start.redis_bytes) / created
        out.append(f"Redis grew {per_game / 1024:.1f} KB per game created (games are kept a week)")
    out.append("")
    before = max(ramped.rss) or 1
    verdict.check(
        f"instances' memory flat (largest RSS at the end <= {MEMORY_GROWTH_LIMIT}x after ramp)",
        max(end.rss) <= MEMORY_GROWTH_LIMIT * before,
        f"{max(ramped.rss) / MB:.0f} -> {max(end.rss) / MB:.0f} MB",
    )


def _cpu(run: Run, out: list[str]) -> None:
    seconds = max(run.seconds, 1e-9)
    service = run.cpu.get("instances", 0.0) + run.cpu.get("redis", 0.0)
    cores = service / seconds
    entries = sum(len(log["entries"]) for log in run.logs.values() if log is not None)
    machine_moves = max(0, entries - run.audit.matched - run.audit.in_flight)
    out.append("CPU (seconds over the run; the machine is shared, so per core is a rough figure)")
    out.append(
        table(
            ["", "CPU s", "cores busy"],
            [(name, value, value / seconds) for name, value in sorted(run.cpu.items())],
        )
    )
    if cores > 0:
        out.append(
            f"The service (instances + Redis) kept {run.options.games:,} games going on "
            f"{cores:.2f} busy cores: per busy core {run.options.games / cores:,.0f} games, "
            f"{machine_moves / seconds / cores:,.1f} bot and clock moves/s and "
            f"{entries / seconds / cores:,.1f} actions/s (a capacity only if the run filled "
            "the machine)"
        )
    out.append("")

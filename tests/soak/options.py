"""The soak's command line, and the people it plans from it.

Defaults are the issue's target run: 1,000 concurrent games for 10 minutes on two instances, one
of them killed (kill -9) and restarted every 60 s. ``make soak SOAK_ARGS="--games 50 --duration
2m"`` runs short.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

Role = Literal["solo", "host", "guest"]
"""A person alone at a table with bots; one who opens a table with an invite code; one who joins
a table by its code."""

BOT_LEVELS = ("easy", "normal", "hard")

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")


def seconds(text: str) -> float:
    """``90``, ``90s``, ``2m``, ``1m30s``, ``1h`` → seconds (argparse type)."""
    match = _DURATION.match(text.strip())
    if not text.strip() or match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is no duration (try 90, 90s, 2m, 1m30s)")
    hours, minutes, secs = (float(part) if part else 0.0 for part in match.groups())
    total = hours * 3600 + minutes * 60 + secs
    if total <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a duration must be positive")
    return total


def share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a share is from 0 to 1")
    return value


def think_range(text: str) -> tuple[float, float]:
    """``2-6`` (uniform between) or ``3`` (always) → seconds a person thinks before acting."""
    low, _, high = text.partition("-")
    try:
        bounds = (float(low), float(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give seconds as LOW-HIGH or one number"
        ) from None
    if not 0 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= LOW <= HIGH")
    return bounds


def bot_levels(text: str) -> tuple[str, ...]:
    levels = tuple(level.strip() for level in text.split(",") if level.strip())
    unknown = [level for level in levels if level not in BOT_LEVELS]
    if not levels or unknown:
        raise argparse.ArgumentTypeError(f"{text!r}: bot levels are {', '.join(BOT_LEVELS)}")
    return levels


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value


@dataclass(frozen=True)
class SoakOptions:
    games: int = 1000
    """Games in play at once: a person who finishes one starts (or joins) another."""
    duration: float = 600.0
    instances: int = 2
    chaos_seconds: float = 60.0
    """kill -9 one instance this often (round robin) and restart it; 0: no chaos."""
    cluster: bool = False
    invite_share: float = 0.2
    """Games that are tables of two people, the second joining by invite code (plus one bot)."""
    clock_share: float = 0.3
    """Tables created with ``turn_seconds``."""
    turn_seconds: int = 15
    player_share: float = 0.3
    """People who play as players, with a key: alone, a game with ``{"me": true}`` or (half of
    them) a seek for a table of two; at a table for two, an open challenge accepted by a player
    instead of an invite code claimed."""
    stream_share: float = 0.3
    """People who follow their seat's event stream instead of polling its view."""
    away_share: float = 0.02
    """On a clock table, turns a person lets the clock play (away for turn_seconds + 4 s)."""
    think: tuple[float, float] = (5.0, 15.0)
    """Seconds a person thinks before each action: a person at a card table takes some seconds
    a move (at 1 to 3 s, 1,000 simulated games asked what some 5,000 real ones would)."""
    poll_seconds: float = 3.0
    bots: tuple[str, ...] = ("easy", "normal")
    stuck_seconds: float = 30.0
    """A game playing with no new version this long is stuck."""
    give_up_seconds: float = 120.0
    """A person waiting this long (stuck game, table never joined) leaves it for a new one."""
    kill_grace: float = 10.0
    """Seconds after a killed instance answers again still counted as its kill window."""
    ramp_seconds: float = 60.0
    workdir: Path | None = None
    seed: int | None = None

    @property
    def invite_tables(self) -> int:
        return round(self.games * self.invite_share)

    @property
    def solo_tables(self) -> int:
        return self.games - self.invite_tables

    @property
    def people(self) -> int:
        return self.solo_tables + 2 * self.invite_tables

    @property
    def spawn_rate(self) -> float:
        return max(1.0, self.people / self.ramp_seconds)

    def role_of(self, number: int) -> Role:
        """The role of the ``number``-th person spawned (from 0): hosts and guests first, so
        that invite tables fill while the people alone keep spawning."""
        if number % self.people < self.invite_tables:
            return "host"
        if number % self.people < 2 * self.invite_tables:
            return "guest"
        return "solo"

    def is_player(self, number: int, draw: float) -> bool:
        """Whether the ``number``-th person plays with a player's key: for a table for two,
        by the table (its host and guest alike, so challenges find their guests); alone, by
        ``draw`` (uniform in [0, 1))."""
        place = number % self.people
        if place < 2 * self.invite_tables:
            table = place % self.invite_tables
            return (table * 7919) % 1000 < self.player_share * 1000
        return draw < self.player_share

    def to_json(self) -> dict[str, Any]:
        fields = asdict(self)
        fields["workdir"] = None if self.workdir is None else str(self.workdir)
        return fields

    @classmethod
    def from_json(cls, fields: dict[str, Any]) -> SoakOptions:
        fields = dict(fields)
        fields["think"] = tuple(fields["think"])
        fields["bots"] = tuple(fields["bots"])
        fields["workdir"] = None if fields["workdir"] is None else Path(fields["workdir"])
        return cls(**fields)


def parser() -> argparse.ArgumentParser:
    defaults = SoakOptions()
    cli = argparse.ArgumentParser(
        prog="python -m tests.soak",
        description=(
            "Soak the service: simulated people play games over HTTP (Locust, headless) through "
            "several instances on one Redis (or a Redis Cluster) while a chaos loop kill -9s "
            "and restarts one instance at a time; then a table and an audit of every game's log."
        ),
    )
    add = cli.add_argument
    add("--games", type=positive_int, default=defaults.games, help="games in play at once")
    add("--duration", type=seconds, default=defaults.duration, help="e.g. 10m, 2m, 90s")
    add("--instances", type=positive_int, default=defaults.instances)
    add(
        "--chaos",
        dest="chaos_seconds",
        type=seconds,
        default=defaults.chaos_seconds,
        help="kill -9 and restart one instance this often (default 60s)",
    )
    add("--no-chaos", dest="chaos_seconds", action="store_const", const=0.0)
    add("--cluster", action="store_true", help="a three-master Redis Cluster instead of Redis")
    add("--invite-share", type=share, default=defaults.invite_share)
    add("--clock-share", type=share, default=defaults.clock_share)
    add("--turn-seconds", type=int, default=defaults.turn_seconds)
    add("--player-share", type=share, default=defaults.player_share)
    add("--stream-share", type=share, default=defaults.stream_share)
    add("--away-share", type=share, default=defaults.away_share)
    add("--think", type=think_range, default=defaults.think, help="seconds, e.g. 1-3")
    add("--poll", dest="poll_seconds", type=float, default=defaults.poll_seconds)
    add("--bots", type=bot_levels, default=defaults.bots, help="e.g. easy,normal,hard")
    add("--stuck", dest="stuck_seconds", type=seconds, default=defaults.stuck_seconds)
    add("--give-up", dest="give_up_seconds", type=seconds, default=defaults.give_up_seconds)
    add("--kill-grace", type=seconds, default=defaults.kill_grace)
    add("--ramp", dest="ramp_seconds", type=seconds, default=defaults.ramp_seconds)
    add("--workdir", type=Path, help="keep logs, CSVs and records here (default: a temp dir)")
    add("--seed", type=int, help="the people's random choices (not the deals)")
    return cli


def parse(argv: list[str] | None = None) -> SoakOptions:
    cli = parser()
    args = cli.parse_args(argv)
    if not 3 <= args.turn_seconds <= 86400:
        cli.error("--turn-seconds: the service takes 3 to 86400")
    if args.instances < 2 and args.chaos_seconds > 0:
        cli.error("--instances: chaos needs two or more (or --no-chaos)")
    return SoakOptions(**vars(args))

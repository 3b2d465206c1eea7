"""``make ladder``: the bot ladder's ratings after N rated games, from outside.

One real ``python -m service`` (memory store, limits off) with ``LADDER_GAMES`` set deals rated
two-seat games of the built-in levels among themselves, as a deployment's ladder does
(docs/ratings.md, "The bot ladder"); this waits until the four levels have played ``--games``
games in all, then prints each level's rating in ``classic`` as ``GET /v1/players/bot-…``
answers it, with its 95% interval (``mu`` ± 1.96 ``sigma``), and whether each step of the ladder
is ordered and its intervals apart.

    python -m tests.benchmarks.ladder --games 400 --parallel 4
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from engine.bots import LEVELS
from tests.redis_servers import LIMITS_OFF, ServiceInstance
from tests.waiting import eventually

NAMES = list(LEVELS)
"""The levels, weakest first."""
KEY = "classic"
Z95 = 1.96


def ratings(url: str) -> dict[str, dict[str, Any]]:
    """Each level's ``classic`` rating entry (absent before its first rated game)."""
    found: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for level in NAMES:
            player = client.get(f"/v1/players/bot-{level}").raise_for_status().json()
            if KEY in player["ratings"]:
                found[level] = player["ratings"][KEY]
    return found


def games_played(found: dict[str, dict[str, Any]]) -> int:
    """Games in all: each game has two seats, each a level."""
    return sum(int(entry["games"]) for entry in found.values()) // 2


def table(found: dict[str, dict[str, Any]]) -> str:
    lines = ["| level | games | mu | sigma | 95% interval | rating |", "|---|---|---|---|---|---|"]
    for level in NAMES:
        e = found[level]
        low, high = e["mu"] - Z95 * e["sigma"], e["mu"] + Z95 * e["sigma"]
        lines.append(
            f"| {level} | {e['games']} | {e['mu']:.2f} | {e['sigma']:.2f} | "
            f"{low:.2f} to {high:.2f} | {e['rating']:.2f} |"
        )
    lines.append("")
    for lower, upper in itertools.pairwise(NAMES):
        a, b = found[lower], found[upper]
        ordered = a["mu"] < b["mu"]
        apart = a["mu"] + Z95 * a["sigma"] < b["mu"] - Z95 * b["sigma"]
        lines.append(
            f"{lower} < {upper}: {'ordered' if ordered else 'NOT ordered'}, "
            f"intervals {'apart' if apart else 'overlap'} (mu {b['mu'] - a['mu']:+.2f})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="rated games in all (400)")
    parser.add_argument("--parallel", type=int, default=4, help="ladder games in play (4)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        instance = ServiceInstance(
            Path(directory) / "service.log",
            {**LIMITS_OFF, "REDIS_URL": "", "LADDER_GAMES": str(args.parallel)},
        ).start()
        started = time.monotonic()
        try:
            found = eventually(
                lambda: ratings(instance.url),
                f"{args.games} ladder games",
                until=lambda found: games_played(found) >= args.games,
                seconds=24 * 3600,
            )
        finally:
            instance.kill()
    minutes = (time.monotonic() - started) / 60
    print(f"{games_played(found)} rated games of the ladder in {minutes:.0f} min\n")
    print(table(found))


if __name__ == "__main__":
    main()

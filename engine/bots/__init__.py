"""Computer players: ``decide(level, view, log, seat=, rules=)`` → the action to post.

A bot is a pure function of what its seat may see: its own view, the public log as that seat
sees it, and the (public) rules; never the game state. Its randomness comes from ``seed`` and
the view's version, so the same seed in the same position always makes the same move. ``budget``
is the work a level may do (hands evaluated; None: the level's own), never time, so a decision
is a pure function of the seat's information and the seed, whatever the machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from engine.bots.expert import expert
from engine.bots.hard import hard
from engine.bots.levels import Level, easy, greedy, normal
from engine.bots.variants import SEPARATOR, variant
from engine.errors import IllegalAction, UnknownBotLevel
from engine.game.actions import Action
from engine.game.views import GameView, LogEntry
from engine.rules import Rules
from engine.seen import sight

LEVELS: Final[dict[str, Level]] = {"easy": easy, "normal": normal, "hard": hard, "expert": expert}
"""The levels a game may seat."""
BASELINES: Final[dict[str, Level]] = {"greedy": greedy}
"""Players the arena measures the levels against, not offered in games."""


def level_named(name: str) -> Level:
    """The level called ``name`` (a seatable level, a baseline, or an arena variant such as
    ``expert:later=0.6``: ``engine.bots.variants``)."""
    found = LEVELS.get(name) or BASELINES.get(name)
    if found is None and SEPARATOR in name:
        return variant(name, tuple(LEVELS))
    if found is None:
        raise UnknownBotLevel(name, tuple(LEVELS))
    return found


def decide(
    level: str,
    view: GameView,
    log: Sequence[LogEntry],
    *,
    seat: int,
    rules: Rules,
    seed: int = 0,
    budget: int | None = None,
) -> Action:
    """The action the bot of ``level`` in ``seat`` takes now, from that seat's ``view`` and
    the ``log`` it may see (``engine.game.view`` and ``engine.game.public_log`` for the seat)."""
    play = level_named(level)
    if view.turn != seat or view.phase is None:
        raise IllegalAction(f"seat {seat} is not on turn: no move to decide")
    rng = random.Random(f"three-thirteen-bot/{seed}/{view.version}")
    return play(sight(view, log, seat, rules), rng, budget)


__all__ = ["BASELINES", "LEVELS", "decide", "level_named"]

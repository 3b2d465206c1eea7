"""Crash points: named places on the commit and bot-driving paths where a fault-injection test
makes this instance die as ``kill -9`` would (``CRASH_POINTS``), to prove that no death at any of
them loses a game or applies a move twice (the invariant in ``service.storage.due_moves``).

    commit.before    an action decided and applied, not yet committed
    commit.after     committed (its due entry with it), not yet published nor answered
    drive.claimed    a game claimed by this instance's driver, its move not yet decided

Unset (production), a point costs one lookup in an empty tuple.
"""

from __future__ import annotations

import logging
import os
import random
import signal
from typing import Final

from service.settings import Settings

_log = logging.getLogger(__name__)

POINTS: Final = ("commit.before", "commit.after", "drive.claimed")


def reached(settings: Settings, point: str) -> None:
    """Die here, with the chance ``CRASH_POINTS`` gives this point."""
    for name, chance in settings.crash_points:
        if name == point and random.random() < chance:  # a test's dice, no secret
            _log.warning("crash point %s reached: this instance dies (CRASH_POINTS)", point)
            die()


def die() -> None:
    """SIGKILL this process's group: the server and its workers, with no cleanup at all (the
    tests start each instance in a process group of its own)."""
    os.killpg(os.getpgid(0), signal.SIGKILL)

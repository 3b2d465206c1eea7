"""Analyse requests costly enough to leave the event loop, shared by the tests of the analyses'
worker processes and their benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from tests.waiting import eventually


def codes(text: str) -> list[str]:
    return text.split()


SLOWEST_KNOWN: Final[dict[str, Any]] = {
    "hand": codes(
        "AC 3C 4C 5C 6C 7C 8C 3D 5D 7D JD AH 4H 4H 5H 6H 7H 8H 9H AS 3S 3S 3S 3S 4S 4S 5S 6S 8S QS"
    ),
    "wild": "3",
    "rules": {"preset": "online", "jokers": 8},
}
"""The slowest known 30-card hand (the last of tests/benchmarks/bench_analysis.HARD_HANDS): some
50 ms on the development machine, all of it holding the interpreter's lock."""

ISSUE_20: Final[dict[str, Any]] = {
    "hand": codes(
        "AC 2C 3C 4C 5C 7C AD 2D 3D 4D 5D AH 2H 3H 4H 5H 7H AS 2S 3S 4S 5S JK JK JK JK JK JK JK JK"
    ),
    "wild": "7",
    "rules": {"preset": "online", "jokers": 8, "max_wilds_per_meld": 1},
}
"""Issue 20's hand: eight jokers and two sevens, sevens wild, one wild per meld (a second, when
every split of its sevens into naturals and wilds was searched from scratch)."""

COSTLY_ADVICE: Final[dict[str, Any]] = {
    "hand": codes("AC 2C 3C 4C 5C 7C AD 2D 3D 4D 5D AH 2H 9S 9H"),
    "upcard": "JK",
    "wild": "7",
    "rules": {"preset": "online", "jokers": 8, "max_wilds_per_meld": 1},
}
"""Draw-phase advice for fifteen cards and an upcard, one wild per meld: some 25-35 ms of
analyses (one per distinct unseen card), all of it holding the interpreter's lock."""

LARGER_THAN_A_DEAL: Final[dict[str, Any]] = {
    "hand": codes("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS 2S 3S 4S"),
    "wild": "8",
}
"""Seventeen cards, one more than any deal, and a wild (8H): costly by the estimate, yet quick
to analyse."""


def hold_a_worker(started: str, release: str) -> str:
    """A job for the analyses' worker pool that holds its process until the test lets it go:
    it creates the file ``started`` once it runs, then waits for the file ``release`` to exist.
    The pool's tests occupy or kill a worker with it, whatever the machine's speed, where a
    slow hand's few milliseconds may be over before the test looks."""
    Path(started).touch()
    eventually(Path(release).exists, "the test to release the worker")
    return "released"


def note_done(name: str, log: str) -> str:
    """A job for the pool's lanes tests: append ``name`` to the file ``log`` (with the pool's
    one process, the file lists the jobs in the order they ran)."""
    with Path(log).open("a") as file:
        file.write(name + "\n")
    return name

"""A clock that moves only when a test moves it: the memory stores' expiry, tested without
racing the machine's own clock."""

from __future__ import annotations


class ManualClock:
    """Seconds, as ``time.monotonic`` gives them, from an arbitrary start."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

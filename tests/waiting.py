"""Waiting for a condition, never for a duration (STYLE.md 22): ``eventually`` asks a condition
again and again, with a short backoff between the tries, until it holds, and returns what it
answered. The bound on the wait only ends a failing test: it is generous (a minute unless the
caller names a longer one), so a loaded machine makes a passing test slower, never a failure.
Past the bound the wait fails with what was awaited and the last answer seen.

A condition holds when it answers anything but ``None`` or ``False``; given ``until``, when
``until`` holds of its answer (so a probe may answer a falsy value that counts). Exceptions of the
types in ``ignoring`` (a server not listening yet) count as "not yet", and the last one is shown.

``eventually_async`` is the same for asyncio tests: it sleeps on the event loop between tries,
so the tasks it waits for run, and it awaits a condition that answers an awaitable."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")

WAIT_SECONDS = 60.0
"""The default bound: far past anything a passing test waits for, on any machine we run on."""

FIRST_PAUSE = 0.001
LONGEST_PAUSE = 0.1
"""The backoff: the pause after a try is a tenth of the time waited so far, kept between these
two, so a condition is seen at most about a tenth of its time late (or 0.1 s), and a long wait,
often an HTTP request a try, asks ten times a second."""

SHOWN_CHARACTERS = 2000
"""How much of the last answer a failure shows (a game's view can be long)."""


class _Tries:
    """The bookkeeping of one wait: its bound, its next pause, the last answer seen."""

    def __init__(self, what: str, seconds: float) -> None:
        self.what = what
        self.seconds = seconds
        self.started = time.monotonic()
        self.count = 0
        self.last: object = "nothing (no try finished)"

    def saw(self, answer: object) -> None:
        self.count += 1
        self.last = answer

    def next_pause(self) -> float:
        """The pause before the next try; fails the wait once the bound has passed."""
        waited = time.monotonic() - self.started
        if waited >= self.seconds:
            shown = repr(self.last)
            if len(shown) > SHOWN_CHARACTERS:
                shown = shown[:SHOWN_CHARACTERS] + "…"
            raise AssertionError(
                f"waited {self.seconds:g} s for {self.what} ({self.count} tries);"
                f" last seen: {shown}"
            )
        return min(max(waited / 10, FIRST_PAUSE), LONGEST_PAUSE)


def _holds(answer: object, until: Callable[[Any], object] | None) -> bool:
    if until is not None:
        return bool(until(answer))
    return answer is not None and answer is not False


@overload
def eventually(
    condition: Callable[[], T],
    what: str,
    *,
    until: Callable[[T], object],
    seconds: float = ...,
    ignoring: tuple[type[Exception], ...] = ...,
) -> T: ...


@overload
def eventually(
    condition: Callable[[], T | None],
    what: str,
    *,
    seconds: float = ...,
    ignoring: tuple[type[Exception], ...] = ...,
) -> T: ...


def eventually(
    condition: Callable[[], Any],
    what: str,
    *,
    until: Callable[[Any], object] | None = None,
    seconds: float = WAIT_SECONDS,
    ignoring: tuple[type[Exception], ...] = (),
) -> Any:
    """``condition()`` until it holds (see the module's docstring); its answer.

    ``what`` names what is awaited, for the failure's message ("game 3 finished")."""
    tries = _Tries(what, seconds)
    while True:
        try:
            answer = condition()
        except ignoring as error:
            tries.saw(error)
        else:
            tries.saw(answer)
            if _holds(answer, until):
                return answer
        time.sleep(tries.next_pause())


@overload
async def eventually_async(
    condition: Callable[[], Awaitable[T]],
    what: str,
    *,
    until: Callable[[T], object],
    seconds: float = ...,
    ignoring: tuple[type[Exception], ...] = ...,
) -> T: ...


@overload
async def eventually_async(
    condition: Callable[[], Awaitable[T | None]],
    what: str,
    *,
    seconds: float = ...,
    ignoring: tuple[type[Exception], ...] = ...,
) -> T: ...


@overload
async def eventually_async(
    condition: Callable[[], T],
    what: str,
    *,
    until: Callable[[T], object],
    seconds: float = ...,
    ignoring: tuple[type[Exception], ...] = ...,
) -> T: ...


@overload
async def eventually_async(
    condition: Callable[[], T | None],
    what: str,
    *,
    seconds: float = ...,
    ignoring: tuple[type[Exception], ...] = ...,
) -> T: ...


async def eventually_async(
    condition: Callable[[], Any],
    what: str,
    *,
    until: Callable[[Any], object] | None = None,
    seconds: float = WAIT_SECONDS,
    ignoring: tuple[type[Exception], ...] = (),
) -> Any:
    """``eventually`` on the event loop: the condition may answer an awaitable, which is
    awaited; between tries the loop runs the other tasks."""
    tries = _Tries(what, seconds)
    while True:
        try:
            answer = condition()
            if inspect.isawaitable(answer):
                answer = await answer
        except ignoring as error:
            tries.saw(error)
        else:
            tries.saw(answer)
            if _holds(answer, until):
                return answer
        await asyncio.sleep(tries.next_pause())

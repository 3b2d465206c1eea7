"""The suite's one wait (tests/waiting.py): it answers as soon as its condition holds, with the
condition's answer, and past its bound it fails saying what it awaited and what it last saw.

The failure tests give a tiny bound to a condition that can never hold: nothing races it."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.waiting import eventually, eventually_async


class Counter:
    """A condition that holds from its ``holds_at``-th call on (``None`` before: never, when
    ``holds_at`` is 0), answering the number of that call."""

    def __init__(self, holds_at: int) -> None:
        self.holds_at = holds_at
        self.calls = 0

    def __call__(self) -> int | None:
        self.calls += 1
        return self.calls if self.holds_at and self.calls >= self.holds_at else None


def test_it_answers_as_soon_as_the_condition_holds() -> None:
    condition = Counter(holds_at=3)
    assert eventually(condition, "the third call") == 3
    assert condition.calls == 3  # no try after the one that held


def test_a_condition_that_holds_at_once_is_asked_once() -> None:
    condition = Counter(holds_at=1)
    assert eventually(condition, "the first call") == 1
    assert condition.calls == 1


def test_a_predicate_holds_when_true() -> None:
    answers = iter([False, False, True])
    assert eventually(lambda: next(answers), "the third answer") is True


def test_until_accepts_a_falsy_answer() -> None:
    answers = iter([3, 2, 1, 0])
    assert eventually(lambda: next(answers), "the count down", until=lambda n: n == 0) == 0


def test_ignored_exceptions_mean_not_yet() -> None:
    calls: list[int] = []

    def connect() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionRefusedError("not listening yet")
        return "connected"

    assert eventually(connect, "the server", ignoring=(ConnectionRefusedError,)) == "connected"
    assert len(calls) == 3


def test_other_exceptions_are_not_swallowed() -> None:
    def broken() -> None:
        raise KeyError("no such game")

    with pytest.raises(KeyError, match="no such game"):
        eventually(broken, "a broken condition", ignoring=(ConnectionRefusedError,))


def test_past_its_bound_it_fails_with_what_it_awaited_and_the_last_answer() -> None:
    with pytest.raises(AssertionError) as failure:
        eventually(lambda: None, "the moon to turn blue", seconds=0.01)
    message = str(failure.value)
    assert message.startswith("waited 0.01 s for the moon to turn blue (")
    assert message.endswith("; last seen: None")


def test_the_failure_shows_the_last_probed_value_and_the_last_error() -> None:
    views = iter(range(1_000_000))
    with pytest.raises(AssertionError, match=r"game over .* last seen: \d+$"):
        eventually(lambda: next(views), "game over", until=lambda n: n < 0, seconds=0.01)

    def refused() -> None:
        raise ConnectionRefusedError("port 1")

    with pytest.raises(AssertionError, match=re.escape("ConnectionRefusedError('port 1')")):
        eventually(refused, "a listener", seconds=0.01, ignoring=(ConnectionRefusedError,))


def test_a_long_last_answer_is_shortened() -> None:
    with pytest.raises(AssertionError) as failure:
        eventually(lambda: "x" * 100_000, "a short answer", until=lambda s: len(s) < 5, seconds=0)
    assert len(str(failure.value)) < 2_200


def test_the_async_wait_awaits_an_awaitable_condition() -> None:
    async def scenario() -> None:
        condition = Counter(holds_at=2)

        async def probe() -> int | None:
            await asyncio.sleep(0)
            return condition()

        assert await eventually_async(probe, "the second call") == 2
        assert condition.calls == 2

    asyncio.run(scenario())


def test_the_async_wait_lets_the_awaited_task_run() -> None:
    """A plain condition on the event loop: the task that makes it hold runs while it waits."""

    async def scenario() -> None:
        done: list[str] = []

        async def worker() -> None:
            for _ in range(5):
                await asyncio.sleep(0)
            done.append("done")

        task = asyncio.create_task(worker())
        assert await eventually_async(lambda: done == ["done"], "the worker") is True
        await task

    asyncio.run(scenario())


def test_the_async_wait_fails_past_its_bound() -> None:
    async def never() -> bool:
        return False

    async def scenario() -> None:
        await eventually_async(never, "never", seconds=0.01)

    with pytest.raises(
        AssertionError, match=r"^waited 0.01 s for never \(\d+ tries\); last seen: False$"
    ):
        asyncio.run(scenario())

"""Worker processes for costly work (analyses, reviews, the bots' decisions), so that one large
hand never holds up the event loop.

An exact analysis holds the interpreter's lock for all of its time (the compiled search never
lets go of it), so a worker thread does not free the event loop: a 30-card hand with eight
jokers, a tenth of a second or more, stalls every other request of the instance for as long. A
worker process does free it. The hands a game deals (at most 16 cards) are analysed on the event
loop in a millisecond or two at worst; only a hand that a cheap estimate (``is_costly``) calls
costly goes to the pool.

The pool is bounded twice: ``processes`` analyses run at once, and at most ``queue`` more wait
for a process; past that an analysis is refused at once with ``AnalysesBusy`` (503, with
Retry-After), never queued without bound. The processes start with the first costly analysis
(an app that never sees one, as most tests, starts none) and stop with the app.

**Two lanes, people first.** Work for a game with a person in it (and every request's own
analysis) goes in the people's lane; a decision in a game of bots only goes in the bots' lane
(``work_for``, which the game's load sets for the task that loaded it). Each lane has its own
queue of ``queue`` places, so bot-only games cannot fill the people's; a free process takes
the people's work first (strict priority); and bot-only work runs on ``processes - 1`` of the
processes at most, so with two or more processes a person's work never waits for one (with
one, it waits for the job running and the one handed ahead). The pool hands the executor one
job more than it has processes (``FED_AHEAD``): what waits beyond, waits here, in order, where
it can be refused or given up without the executor.
"""

from __future__ import annotations

import asyncio
import enum
import logging.config
import multiprocessing
import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from functools import partial
from typing import Any, Final, TypeVar

from service.http.problems import AnalysesBusy
from service.operations.log_lines import capture_python_output, process_logging

RETRY_AFTER_SECONDS: Final = 1
FED_AHEAD: Final = 1
"""Jobs handed to the executor beyond its processes: the next waits in the executor's own
queue, so a process that ends one starts the next at once, not after a round trip through the
event loop (which halved the bots' moves a second, their decisions being a millisecond or two)."""
_R = TypeVar("_R")


def _worker_started() -> None:
    """Lower a worker process' scheduling priority: on a machine with few cores, its long
    analyses then take the CPU only when the event loop's process does not need it. What it
    logs (warnings and worse) goes to the instance's stderr as JSON lines, like the instance's."""
    os.nice(10)
    logging.config.dictConfig(process_logging("WARNING"))
    capture_python_output()


class Lane(enum.IntEnum):
    """Whose work a job is: the people's lane is served first."""

    PEOPLE = 0
    BOTS_ONLY = 1


_LANE: ContextVar[Lane] = ContextVar("analysis_lane", default=Lane.PEOPLE)


def work_for(bots_only: bool) -> None:
    """Put the work this task sends to a pool from now on in the bots' lane (a game of bots
    only) or the people's. A context variable, set where the game is loaded, so that whoever
    runs the work need not carry the game's seats to the pool."""
    _LANE.set(Lane.BOTS_ONLY if bots_only else Lane.PEOPLE)


class WorkerPool:
    """Worker processes for costly analyses (and, a pool of their own, the computer players'
    decisions: ``service.bots.turns``), with a bounded queue per lane."""

    def __init__(self, *, processes: int, queue: int) -> None:
        self.processes = processes
        self.capacity = processes + queue
        """Jobs of one lane running or waiting at most; the next one is refused."""
        self._handed_at_most = processes + FED_AHEAD
        self._most_running = (
            self._handed_at_most,
            processes - 1 if processes > 1 else self._handed_at_most,
        )
        """Jobs of each lane handed to the executor at most: bot-only games leave a process
        free (with one process, they may keep it fed)."""
        self._executor: ProcessPoolExecutor | None = None
        self._running = [0, 0]
        self._waiting: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque())
        self._freed: list[asyncio.Future[None]] = []
        """Whoever waits for a job to finish (``room_for``), woken by the next that does."""

    @property
    def pending(self) -> int:
        """Jobs running or waiting now."""
        return sum(self._running) + sum(map(len, self._waiting))

    @property
    def room(self) -> int:
        """Jobs the pool takes now without refusing one, whichever lane they come in."""
        return max(
            0,
            self.capacity
            - max(r + len(w) for r, w in zip(self._running, self._waiting, strict=True)),
        )

    async def room_for(self, jobs: int) -> None:
        """Return once a job has finished and the pool takes ``jobs`` more without refusing
        one: for a sweeper that ran out of room, to take more games as soon as they can be
        queued."""
        while True:
            freed = asyncio.get_running_loop().create_future()
            self._freed.append(freed)
            try:
                await freed
            finally:
                if freed in self._freed:
                    self._freed.remove(freed)
            if self.room >= jobs:
                return

    @property
    def started(self) -> bool:
        """Whether the processes are up (from the first costly analysis until ``close``)."""
        return self._executor is not None

    async def run(self, work: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
        """``work(*args, **kwargs)`` in a worker process (a module-level function, its
        arguments and answer pickled), in the lane ``work_for`` set; ``AnalysesBusy`` when
        that lane's queue is full."""
        lane = _LANE.get()
        if self._running[lane] + len(self._waiting[lane]) >= self.capacity:
            raise AnalysesBusy(
                f"{self.capacity} costly analyses are running or waiting, the most this "
                "instance takes; try again shortly",
                retry_after=RETRY_AFTER_SECONDS,
            )
        await self._turn(lane)
        try:
            executor, future = self._submitted(partial(work, *args, **kwargs))
        except BaseException:
            self._given_back(lane)
            raise
        answer = asyncio.wrap_future(future)
        # Given back when the process is done with it, even if the caller has gone by then
        # (the shield keeps its cancellation from the job): the bound counts the work the
        # processes really have. Added first, it runs before the caller sees the answer.
        answer.add_done_callback(partial(self._done, lane))
        try:
            return await asyncio.shield(answer)
        except BrokenProcessPool:
            # A worker died (killed, or out of memory): the next analysis starts a fresh pool
            # (unless an analysis that failed with this one has already done so).
            self._discard(executor)
            raise AnalysesBusy(
                "the analysis' worker process stopped; try again",
                retry_after=RETRY_AFTER_SECONDS,
            ) from None

    def close(self) -> None:
        """Stop the processes (with the app, once the server has answered what it could): the
        jobs still waiting are refused (503), and those running end with their process, rather
        than hold up the interpreter's exit, which waits for the executor."""
        for waiting in self._waiting:
            while waiting:
                ticket = waiting.popleft()
                if not ticket.done():
                    ticket.set_exception(
                        AnalysesBusy("the instance is stopping", retry_after=RETRY_AFTER_SECONDS)
                    )
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # Its processes, taken before the shutdown forgets them (Python 3.14's
        # ``terminate_workers`` does this; 3.11 has no public way).
        processes = list(getattr(executor, "_processes", {}).values())
        _shut(executor)
        for process in processes:
            process.terminate()

    async def _turn(self, lane: Lane) -> None:
        """Wait until a process is free for ``lane`` (its place is then taken)."""
        if not self._waiting[lane] and self._may_start(lane):
            self._running[lane] += 1
            return
        ticket = asyncio.get_running_loop().create_future()
        self._waiting[lane].append(ticket)
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():  # given a place, then cancelled
                self._given_back(lane)
            elif ticket in self._waiting[lane]:
                self._waiting[lane].remove(ticket)
            raise

    def _may_start(self, lane: Lane) -> bool:
        return (
            sum(self._running) < self._handed_at_most
            and self._running[lane] < self._most_running[lane]
            and (lane == Lane.PEOPLE or not self._waiting[Lane.PEOPLE])
        )

    def _done(self, lane: Lane, answer: asyncio.Future[Any]) -> None:
        if not answer.cancelled():
            answer.exception()  # retrieved here, for a caller that has gone
        self._given_back(lane)

    def _given_back(self, lane: Lane) -> None:
        """A process is free again: the people's first waiting job takes it, else the bots'."""
        self._running[lane] -= 1
        for next_lane in Lane:
            waiting = self._waiting[next_lane]
            while waiting and self._may_start(next_lane):
                ticket = waiting.popleft()
                if not ticket.done():
                    self._running[next_lane] += 1
                    ticket.set_result(None)
        freed, self._freed = self._freed, []
        for waiter in freed:
            if not waiter.done():
                waiter.set_result(None)

    def _submitted(self, work: Callable[[], _R]) -> tuple[ProcessPoolExecutor, Future[_R]]:
        executor = self._started()
        try:
            return executor, executor.submit(work)
        except BrokenProcessPool:  # a worker died while the pool was idle: start afresh
            self._discard(executor)
            executor = self._started()
            return executor, executor.submit(work)

    def _discard(self, executor: ProcessPoolExecutor) -> None:
        """Give up a broken executor, unless it has already been replaced."""
        if self._executor is executor:
            self._executor = None
            _shut(executor)

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # Spawned, not forked: the server's process runs threads (granian's, the store's),
            # and a fork copies whatever locks they held.
            self._executor = ProcessPoolExecutor(
                max_workers=self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_started,
            )
        return self._executor


def _shut(executor: ProcessPoolExecutor) -> None:
    """Shut the executor down without waiting. Its futures are never cancelled here: the
    executor holds only the jobs running and one more (the pool keeps the waiting ones), and a
    future cancelled
    while the executor's thread fails every job of a broken pool makes that thread raise
    ``InvalidStateError`` (setting an exception on a cancelled future), a traceback at every
    shutdown with decisions queued."""
    executor.shutdown(wait=False, cancel_futures=False)

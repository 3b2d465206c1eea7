"""Costly analyses in worker processes, so that one large hand never holds up the event loop.

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
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, Final, TypeVar

import engine
from engine.cards import JOKER, Card, Rank, rank_of
from service.analysis.wire import AnalyseResponse
from service.http.problems import AnalysesBusy
from service.vocabulary import to_wire

RETRY_AFTER_SECONDS: Final = 1
_R = TypeVar("_R")


def is_costly(hand: list[Card], wild: Rank, inline_cards: int, inline_wilds: int) -> bool:
    """Whether the analysis of ``hand`` should leave the event loop: more cards than
    ``inline_cards`` and more wilds than ``inline_wilds``.

    The exact search's cost grows with the hand and, far faster, with its wilds (each can fill
    any meld). Measured by hill-climbing towards the slowest hands: at 16 cards, a millisecond or
    two whatever the wilds; at 30 cards, about 2 ms with no wild, 20 ms with two, 50 ms with
    four, and over 100 ms with eight. Counting them costs next to nothing."""
    if len(hand) <= inline_cards:
        return False
    wilds = 0
    for card in hand:
        if card == JOKER or rank_of(card) == wild:
            wilds += 1
    return wilds > inline_wilds


def analysed(hand: list[Card], wild: Rank, rules: engine.Rules) -> AnalyseResponse:
    """The analysis as the wire has it; what a worker process runs (its answer comes back
    pickled, so its wire structs, not the engine's values)."""
    return to_wire.analysis_to_wire(engine.analyse(hand, wild, rules))


def _yield_to_the_event_loop() -> None:
    """Lower a worker process' scheduling priority: on a machine with few cores, its long
    analyses then take the CPU only when the event loop's process does not need it."""
    os.nice(10)


class AnalysisPool:
    """Worker processes for costly analyses (and, a pool of their own, the computer players'
    decisions: ``service.bots.turns``), with a bounded queue."""

    def __init__(self, *, processes: int, queue: int) -> None:
        self.processes = processes
        self.capacity = processes + queue
        """Analyses running or waiting at most; the next one is refused."""
        self._executor: ProcessPoolExecutor | None = None
        self._taken = 0
        # Taken on the event loop's thread, given back on the executor's (a future's callback).
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Analyses running or waiting now."""
        return self._taken

    @property
    def started(self) -> bool:
        """Whether the processes are up (from the first costly analysis until ``close``)."""
        return self._executor is not None

    async def analyse(self, hand: list[Card], wild: Rank, rules: engine.Rules) -> AnalyseResponse:
        """The analysis, from a worker process; ``AnalysesBusy`` when the queue is full."""
        return await self.run(analysed, hand, wild, rules)

    async def run(self, work: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
        """``work(*args, **kwargs)`` in a worker process (a module-level function, its
        arguments and answer pickled); ``AnalysesBusy`` when the queue is full."""
        with self._lock:
            if self._taken >= self.capacity:
                raise AnalysesBusy(
                    f"{self._taken} costly analyses are running or waiting, the most this "
                    "instance takes; try again shortly",
                    retry_after=RETRY_AFTER_SECONDS,
                )
            self._taken += 1
        try:
            executor, future = self._submitted(partial(work, *args, **kwargs))
        except BaseException:
            self._give_back()
            raise
        # Given back when the process is done with it, even if the client has gone by then:
        # the bound counts the work the processes really have.
        future.add_done_callback(self._given_back)
        try:
            return await asyncio.wrap_future(future)
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
        analyses still waiting are cancelled, and those still running end with their process,
        rather than hold up the interpreter's exit, which waits for the executor."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # Its processes, taken before the shutdown forgets them (Python 3.14's
        # ``terminate_workers`` does this; 3.11 has no public way).
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()

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
            executor.shutdown(wait=False, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # Spawned, not forked: the server's process runs threads (granian's, the store's),
            # and a fork copies whatever locks they held.
            self._executor = ProcessPoolExecutor(
                max_workers=self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_yield_to_the_event_loop,
            )
        return self._executor

    def _given_back(self, _: Future[Any]) -> None:
        self._give_back()

    def _give_back(self) -> None:
        with self._lock:
            self._taken -= 1

"""Costly analyses in worker processes, so that one large hand never holds up the event loop.

An exact analysis holds the interpreter's lock for all of its time (the compiled search never
lets go of it), so a worker thread does not free the event loop: a 30-card hand with eight
jokers, a tenth of a second or more, stalls every other request of the instance for as long. A
worker process does free it. The hands a game deals (at most 16 cards) are analysed on the event
loop in well under a millisecond; only a hand that a cheap estimate (``is_costly``) calls costly
goes to the pool.

The pool is bounded twice: ``processes`` analyses run at once, and at most ``queue`` more wait
for a process; past that an analysis is refused at once with ``AnalysesBusy`` (503, with
Retry-After), never queued without bound. The processes start with the first costly analysis
(an app that never sees one, as most tests, starts none) and stop with the app.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

import engine
from engine.cards import JOKER, Card, Rank, rank_of
from service import translate, wire
from service.problems import AnalysesBusy

RETRY_AFTER_SECONDS: Final = 1


def is_costly(hand: list[Card], wild: Rank, inline_cards: int, inline_wilds: int) -> bool:
    """Whether the analysis of ``hand`` should leave the event loop: more cards than
    ``inline_cards``, or more wilds than ``inline_wilds``. The exact search's cost grows with
    both (each wild can fill any meld), and counting them is far cheaper than any analysis."""
    if len(hand) > inline_cards:
        return True
    wilds = 0
    for card in hand:
        if card == JOKER or rank_of(card) == wild:
            wilds += 1
    return wilds > inline_wilds


def analysed(hand: list[Card], wild: Rank, rules: engine.Rules) -> wire.AnalyseResponse:
    """The analysis as the wire has it; what a worker process runs (its answer comes back
    pickled, so its wire structs, not the engine's values)."""
    return translate.analysis_to_wire(engine.analyse(hand, wild, rules))


class AnalysisPool:
    """Worker processes for costly analyses, with a bounded queue."""

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

    async def analyse(
        self, hand: list[Card], wild: Rank, rules: engine.Rules
    ) -> wire.AnalyseResponse:
        """The analysis, from a worker process; ``AnalysesBusy`` when the queue is full."""
        with self._lock:
            if self._taken >= self.capacity:
                raise AnalysesBusy(
                    f"{self._taken} costly analyses are running or waiting, the most this "
                    "instance takes; try again shortly",
                    retry_after=RETRY_AFTER_SECONDS,
                )
            self._taken += 1
        try:
            future = self._started().submit(analysed, hand, wild, rules)
        except BaseException:
            self._give_back()
            raise
        # Given back when the process is done with it, even if the client has gone by then:
        # the bound counts the work the processes really have.
        future.add_done_callback(self._given_back)
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            # A worker died (killed, or out of memory): the next analysis starts a fresh pool.
            self._executor = None
            raise AnalysesBusy(
                "the analysis' worker process stopped; try again",
                retry_after=RETRY_AFTER_SECONDS,
            ) from None

    def close(self) -> None:
        """Stop the processes (with the app): waiting analyses are cancelled, running ones end
        with their process."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # Spawned, not forked: the server's process runs threads (granian's, the store's),
            # and a fork copies whatever locks they held.
            self._executor = ProcessPoolExecutor(
                max_workers=self.processes, mp_context=multiprocessing.get_context("spawn")
            )
        return self._executor

    def _given_back(self, _: Future[wire.AnalyseResponse]) -> None:
        self._give_back()

    def _give_back(self) -> None:
        with self._lock:
            self._taken -= 1

"""Costly analyses in worker processes (``service.workers.pool``): answered as the event loop
would answer them, from another process, refused with 503 past the queue's bound, and the
processes started with the first costly analysis and stopped with the app."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

import engine
from engine.cards import JOKER, parse_cards, parse_rank
from service.analysis.costly import analysed, is_costly
from service.analysis.to_wire import analysis_to_wire
from service.app import create_app
from service.http.problems import AnalysesBusy
from service.settings import Settings
from service.workers.pool import WorkerPool
from tests.service.costly_hands import LARGER_THAN_A_DEAL as LARGE
from tests.service.costly_hands import SLOWEST_KNOWN as SLOW
from tests.service.costly_hands import codes, hold_a_worker
from tests.service.games.test_games_api import assert_problem
from tests.waiting import eventually, eventually_async


def workers() -> set[int]:
    """The process ids of this process's live children (the pools' processes among them)."""
    return {child.pid for child in multiprocessing.active_children() if child.pid is not None}


@pytest.fixture
def pooled() -> Iterator[tuple[Litestar, TestClient[Litestar]]]:
    app = create_app(Settings(analysis_processes=1, analysis_queue=0))
    with TestClient(app) as client:
        yield app, client


def pool_of(app: Litestar) -> WorkerPool:
    pool: WorkerPool = app.state["services"].analyses
    return pool


class HeldWorker:
    """A job that holds the app's one worker process (``costly_hands.hold_a_worker``), run on
    the app's event loop; built once the job runs in the worker."""

    def __init__(self, client: TestClient[Litestar], pool: WorkerPool, folder: Path) -> None:
        started, self._release = folder / "started", folder / "release"
        self._answer = client.blocking_portal.start_task_soon(
            pool.run, hold_a_worker, str(started), str(self._release)
        )

        def running() -> bool:
            assert not self._answer.done(), self._answer
            return started.exists()

        eventually(running, "the held job to run in a worker")

    def released(self) -> str:
        """Let the job end; its answer (or the error the pool raised for it)."""
        self._release.touch()
        answer: str = self._answer.result(timeout=60)
        return answer


def test_a_costly_hand_is_larger_than_a_deal_and_holds_wilds() -> None:
    deal = parse_cards(codes("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS JK JK"))
    assert not is_costly(deal, 8, inline_cards=16, inline_wilds=0)  # 8H and two jokers
    larger = [*deal, JOKER]
    assert is_costly(larger, 8, inline_cards=16, inline_wilds=3)  # four wilds
    assert not is_costly(larger, 8, inline_cards=16, inline_wilds=4)
    assert not is_costly(larger, 8, inline_cards=17, inline_wilds=0)
    no_wild = parse_cards(codes("AH 2H 3H 4H 5H 6H 7H 9H TH JH QH KH AS 2S 3S 4S 5S"))
    assert not is_costly(no_wild, 8, inline_cards=16, inline_wilds=0)


def test_a_costly_hand_is_analysed_in_another_process(
    pooled: tuple[Litestar, TestClient[Litestar]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, client = pooled
    assert pool_of(app).started is False  # nothing costly yet: no process
    hand = parse_cards(LARGE["hand"])
    expected = analysis_to_wire(engine.analyse(hand, 8, engine.Rules.preset_named("classic")))

    def not_here(*_: Any) -> engine.Analysis:
        raise AssertionError("analysed on the event loop's process")

    monkeypatch.setattr(engine, "analyse", not_here)  # this process only: not the worker's
    response = client.post("/v1/analyse", json=LARGE)
    assert response.status_code == 200, response.text
    assert response.json()["deadwood_points"] == expected.deadwood_points
    assert [d["card"] for d in response.json()["discards"]] == [d.card for d in expected.discards]
    assert pool_of(app).started is True


def test_an_error_in_the_worker_is_answered_as_on_the_loop(
    pooled: tuple[Litestar, TestClient[Litestar]],
) -> None:
    _, client = pooled
    body = {**LARGE, "hand": [*LARGE["hand"], "4X"]}  # no stars in the classic pack
    problem = assert_problem(client.post("/v1/analyse", json=body), 422, "bad-hand", "hand")
    assert "4X" in problem["detail"]


def test_past_the_queue_an_analysis_is_refused_with_retry_after(
    pooled: tuple[Litestar, TestClient[Litestar]], tmp_path: Path
) -> None:
    app, client = pooled
    holding = HeldWorker(client, pool_of(app), tmp_path)
    refused = client.post("/v1/analyse", json=LARGE)
    assert_problem(refused, 503, "analyses-busy")
    assert refused.headers["retry-after"] == "1"
    # A hand of a deal does not wait for the pool.
    assert client.post("/v1/analyse", json={"hand": ["4H"], "wild": "8"}).status_code == 200
    assert holding.released() == "released"
    # The place is given back before the held job's answer reaches the loop.
    assert client.post("/v1/analyse", json=LARGE).status_code == 200


def test_the_bound_counts_every_analysis_running_or_waiting() -> None:
    async def scenario() -> None:
        pool = WorkerPool(processes=1, queue=1)
        hand, wild = parse_cards(SLOW["hand"]), parse_rank(SLOW["wild"])
        rules = engine.Rules.from_spec(SLOW["rules"])
        try:
            waiting = [
                asyncio.ensure_future(pool.run(analysed, hand, wild, rules)) for _ in range(2)
            ]
            await asyncio.sleep(0)
            assert pool.pending == 2
            with pytest.raises(AnalysesBusy):
                await pool.run(analysed, hand, wild, rules)
            answers = await asyncio.gather(*waiting)
            least = engine.min_deadwood(hand, wild, rules)
            assert [a.deadwood_points for a in answers] == [least, least]
        finally:
            pool.close()
        # Given back by the executor's thread, just after each answer.
        await eventually_async(lambda: pool.pending == 0, "the pool to give back every place")

    asyncio.run(scenario())


def test_a_wait_for_room_ends_once_jobs_have_ended_and_left_that_much(tmp_path: Path) -> None:
    """``room_for`` wakes with each job that ends, and returns once the room asked for is
    there: not at the first job's end when it leaves too little."""

    async def scenario() -> None:
        pool = WorkerPool(processes=1, queue=1)
        started, release = tmp_path / "started", [tmp_path / "release-0", tmp_path / "release-1"]
        try:
            jobs = [
                asyncio.ensure_future(pool.run(hold_a_worker, str(started), str(release[n])))
                for n in range(2)
            ]
            await asyncio.sleep(0)
            assert pool.room == 0
            roomy = asyncio.ensure_future(pool.room_for(2))
            await eventually_async(started.exists, "the first job to run in the worker")
            release[0].touch()
            await eventually_async(lambda: pool.pending == 1, "the first job to end")
            assert pool.room == 1
            assert not roomy.done()
            release[1].touch()
            await asyncio.wait_for(roomy, timeout=60)
            assert pool.room == 2
            assert await asyncio.gather(*jobs) == ["released", "released"]
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_worker_that_dies_is_answered_503_and_replaced(
    pooled: tuple[Litestar, TestClient[Litestar]], tmp_path: Path
) -> None:
    app, client = pooled
    assert client.post("/v1/analyse", json=LARGE).status_code == 200
    before = workers()
    holding = HeldWorker(client, pool_of(app), tmp_path)
    for pid in before:
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(AnalysesBusy):  # answered 503 analyses-busy, as the queue test shows
        holding.released()
    assert client.post("/v1/analyse", json=LARGE).status_code == 200  # a fresh process
    # A worker that dies while the pool is idle: the next analysis may find the pool broken
    # (a 503 asking to retry) until the executor has noticed; the one after starts afresh.
    for pid in workers() - before:
        os.kill(pid, signal.SIGKILL)
    answer = client.post("/v1/analyse", json=LARGE)
    if answer.status_code != 200:
        assert_problem(answer, 503, "analyses-busy")
        assert client.post("/v1/analyse", json=LARGE).status_code == 200


def test_the_processes_stop_with_the_app() -> None:
    before = workers()
    app = create_app(Settings(analysis_processes=1))
    with TestClient(app) as client:
        assert client.post("/v1/analyse", json=LARGE).status_code == 200
        started = workers() - before
        assert len(started) == 1
    eventually(lambda: not workers() & started, "the pool's process to stop with the app")
    assert pool_of(app).started is False

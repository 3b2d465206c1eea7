"""The worker pool's two lanes (``service.workers.pool``): work for games with a person goes
before work for games of bots only, has a queue of its own, and (with two processes or more)
always finds a process bot-only work may not take; a bot's decision takes its game's lane;
stopping the pool with work queued refuses
that work and leaves no traceback in the executor's thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.http.problems import AnalysesBusy
from service.settings import Settings
from service.workers.pool import _LANE as pool_lane
from service.workers.pool import Lane, WorkerPool, work_for
from tests.service.costly_hands import hold_a_worker, note_done
from tests.waiting import eventually, eventually_async


def in_lane(bots_only: bool, job: Callable[[], Awaitable[str]]) -> asyncio.Task[str]:
    """``job`` run in a task of its own, in the lane of a bot-only game or a person's."""

    async def lane() -> str:
        work_for(bots_only)
        return await job()

    return asyncio.ensure_future(lane())


async def held(pool: WorkerPool, bots_only: bool, folder: Path, name: str) -> asyncio.Task[str]:
    """A job holding one of the pool's processes until ``folder/name.release`` exists."""
    started = folder / f"{name}.started"
    task = in_lane(
        bots_only, lambda: pool.run(hold_a_worker, str(started), str(folder / f"{name}.release"))
    )
    await eventually_async(started.exists, f"{name} to run in a worker")
    return task


def scenario(body: Callable[[WorkerPool], Coroutine[Any, Any, None]], **sizes: int) -> None:
    async def run() -> None:
        pool = WorkerPool(**sizes)
        try:
            await body(pool)
        finally:
            pool.close()

    asyncio.run(run())


def test_a_persons_work_goes_before_bot_only_work_queued_earlier(tmp_path: Path) -> None:
    log = tmp_path / "order"

    async def body(pool: WorkerPool) -> None:
        holding = await held(pool, True, tmp_path, "hold")
        bots = [in_lane(True, partial(pool.run, note_done, f"bots{i}", str(log))) for i in range(3)]
        await eventually_async(lambda: pool.pending == 4, "the bots' jobs queued")
        person = in_lane(False, lambda: pool.run(note_done, "person", str(log)))
        await eventually_async(lambda: pool.pending == 5, "the person's job queued")
        (tmp_path / "hold.release").touch()
        answers = [*await asyncio.gather(holding, person, *bots)]
        assert answers == ["released", "person", "bots0", "bots1", "bots2"]
        # bots0 was handed ahead to the executor while the held job ran (FED_AHEAD); the
        # person's job goes before every bot-only job still waiting in the pool.
        assert log.read_text().split() == ["bots0", "person", "bots1", "bots2"]

    scenario(body, processes=1, queue=8)


def test_bot_only_work_cannot_fill_the_persons_queue(tmp_path: Path) -> None:
    async def body(pool: WorkerPool) -> None:
        holding = await held(pool, True, tmp_path, "hold")
        waiting = in_lane(True, lambda: pool.run(note_done, "bots", str(tmp_path / "log")))
        await eventually_async(lambda: pool.pending == 2, "the bots' job queued")
        with pytest.raises(AnalysesBusy):  # the bots' lane is full...
            await in_lane(True, lambda: pool.run(note_done, "more", str(tmp_path / "log")))
        # ... and a person's job is still taken.
        person = in_lane(False, lambda: pool.run(note_done, "person", str(tmp_path / "log")))
        await eventually_async(lambda: pool.pending == 3, "the person's job queued")
        (tmp_path / "hold.release").touch()
        assert [*await asyncio.gather(holding, person, waiting)] == ["released", "person", "bots"]

    scenario(body, processes=1, queue=1)


def test_with_two_processes_bot_only_work_leaves_one_to_people(tmp_path: Path) -> None:
    async def body(pool: WorkerPool) -> None:
        first = await held(pool, True, tmp_path, "bots1")
        second = in_lane(
            True,
            lambda: pool.run(
                hold_a_worker, str(tmp_path / "bots2.started"), str(tmp_path / "bots2.release")
            ),
        )
        await eventually_async(lambda: pool.pending == 2, "the second bots' job queued")
        person = await held(pool, False, tmp_path, "person")  # the free process is the person's
        assert not (tmp_path / "bots2.started").exists()  # never handed to the executor
        for name in ("bots1", "bots2", "person"):
            (tmp_path / f"{name}.release").touch()
        assert [*await asyncio.gather(first, second, person)] == ["released"] * 3

    scenario(body, processes=2, queue=4)


def test_stopping_with_work_queued_refuses_it_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)

    async def body(pool: WorkerPool) -> None:
        holding = await held(pool, True, tmp_path, "hold")
        queued = [
            in_lane(True, partial(pool.run, note_done, f"q{i}", str(tmp_path / "log")))
            for i in range(4)
        ]
        await eventually_async(lambda: pool.pending == 5, "the jobs queued")
        executor = pool._executor
        assert executor is not None
        manager: threading.Thread = getattr(executor, "_executor_manager_thread")  # noqa: B009
        pool.close()
        for job in queued:
            with pytest.raises(AnalysesBusy):
                await job
        with pytest.raises(AnalysesBusy):  # it ended with its process
            await holding
        await asyncio.get_running_loop().run_in_executor(None, manager.join, 60)
        assert not manager.is_alive()
        assert [f.exc_value for f in failures] == []

    scenario(body, processes=1, queue=8)


def test_a_bots_decision_takes_the_lane_of_its_games_seats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through the app: the decisions of a game of bots only go in the bots' lane, those of a
    game a person plays in go in the people's (the game's load sets the lane of its task)."""
    app = create_app(Settings(bot_games_per_client=0))
    pool: WorkerPool = app.state["services"].bots.pool
    lanes: dict[str, set[Lane]] = {}
    run = pool.run

    async def noted(work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        task = asyncio.current_task()
        assert task is not None
        lanes.setdefault(task.get_name().removeprefix("bot-decision:"), set()).add(pool_lane.get())
        return await run(work, *args, **kwargs)

    monkeypatch.setattr(pool, "run", noted)
    with TestClient(app) as client:
        bots = client.post("/v1/games", json={"players": [{"bot": "easy"}] * 2}).json()
        mixed = client.post(
            "/v1/games", json={"players": [{"name": "ann"}, {"bot": "easy"}]}
        ).json()
        view, auth = mixed["view"], {"Authorization": f"Bearer {mixed['seats'][0]['token']}"}
        actions = f"/v1/games/{mixed['game_id']}/actions"
        if view["turn"] == 0:  # the person first: a draw and a discard, then the bot's turn
            drawn = client.post(actions, json={"type": "draw", "source": "stock"}, headers=auth)
            card = drawn.json()["hand"][0]
            client.post(actions, json={"type": "discard", "card": card}, headers=auth)
        eventually(
            lambda: {bots["game_id"], mixed["game_id"]} <= lanes.keys(),
            "both games' bots to ask the pool",
        )
    assert lanes[bots["game_id"]] == {Lane.BOTS_ONLY}
    assert lanes[mixed["game_id"]] == {Lane.PEOPLE}

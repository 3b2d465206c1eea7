"""The computer players' moves, made by the service as ordinary actions, on any instance.

``drive`` makes the moves due in one game, one action at a time, each as a person's is made
(``service.games.turns.take_turn``): load the game, decide, apply it and commit the next
version through the one commit every change of a game takes (``service.games.commits``). The
bot decides in a worker process from its seat's view and the public log as that seat sees them,
never from the state (``service.bots.decisions``). A commit that finds the version moved on (a
person acted, or another instance made the move first) changes nothing; the driver loads the
game again and looks afresh, so a move is made exactly once, whoever gets there first.

Who drives: the instance whose commit put a bot on turn starts its driver at once (after
answering, never making the person's request wait); ``sweep_forever``, on every instance, takes
the due entries (``service.storage.due_moves``) of its shards whose time has come (a clock run out,
a move left for a busy pool, or a lease left by an instance that died) and drives those games.
Every driver claims the game first and renews the claim before each decision (and while one
waits for a worker), so a second instance's nudge does nothing while the first drives; the
commit writes the game's due entry, so an instance that dies anywhere on the way leaves an entry
that a sweep finds once the claim has run out.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Final

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol

from engine import game
from engine.game.actions import (
    CALL_TIMEOUT,
    Action,
)
from service.bots.decisions import decided
from service.bots.deps import BotServices
from service.games import lifecycle as game_flow
from service.games import movers
from service.games.commits import acted, commit
from service.games.lifecycle import LoadedGame, LoadedTable
from service.http.problems import AnalysesBusy, GameNotFound
from service.operations import crash_points, metrics
from service.storage.game_store import StoreUnavailable
from service.storage.redis_connection import being_cancelled

_log = logging.getLogger(__name__)

SWEEP_BATCH: Final = 512
"""Due games a sweep takes in one round trip; it takes batch after batch until none is due."""


def _room(services: BotServices) -> int:
    """Due games a sweep may take now (``BotTasks.room``), a batch at most."""
    return min(SWEEP_BATCH, services.bots.room)


def bot_seed(game_id: str, seat: int) -> int:
    """The seed of a seat's bot: fixed per game and seat, so a decision made again (another
    instance racing for the same move) is the same decision."""
    return int.from_bytes(hashlib.sha256(f"bot/{game_id}/{seat}".encode()).digest()[:8], "big")


async def drive(services: BotServices, game_id: str) -> None:
    """Make every move a bot owes in the game now, one committed action at a time, until a
    person is to move (or the game is over); then give the game back, its due entry at the next
    deadline. Each move starts with a claim on the game (or its renewal): while another
    instance's claim holds, this driver does nothing."""
    owner, lease = services.bots.owner, services.settings.bot_lease_seconds
    while True:
        if not await services.due.claim(game_id, owner, time.time(), lease):
            return  # another instance drives it
        crash_points.reached(services.settings, "drive.claimed")
        try:
            loaded = await game_flow.load_any(services, game_id)
        except GameNotFound:  # expired: nothing is owed any more
            await services.due.release(game_id, owner, None, None)
            return
        if isinstance(loaded, LoadedTable):  # not dealt yet: nothing to do
            await services.due.release(game_id, owner, loaded.stored_version, None)
            return
        record, state = loaded.record, loaded.state
        move = movers.next_move(record, state, time.time())
        if move is None:
            due = movers.entry_due(record, state)
            await services.due.release(game_id, owner, loaded.stored_version, due)
            return
        action = await _decision(services, game_id, state, move)
        if action is None:  # every worker busy: due again at once, for the next sweep
            await services.due.release(game_id, owner, loaded.stored_version, time.time())
            return
        await _commit(services, loaded, move, action)


async def _decision(
    services: BotServices, game_id: str, state: game.GameState, move: tuple[int, str | None]
) -> Action | None:
    """The action the service makes for ``move``'s seat (None if every worker is busy): the
    caller's timeout, or the bot's decision, the game's lease renewed while it waits for a
    worker, so no other instance takes the game over a decision queued behind others."""
    seat, level = move
    if level is None:  # a speed call's time ran out: the caller's timeout
        return CALL_TIMEOUT
    decision = asyncio.create_task(
        services.bots.pool.run(decided, level, game.dumps(state), seat, bot_seed(game_id, seat)),
        name=f"bot-decision:{game_id}",
    )
    lease = services.settings.bot_lease_seconds
    while not (await asyncio.wait({decision}, timeout=lease / 3))[0]:
        await services.due.claim(game_id, services.bots.owner, time.time(), lease)
    try:
        return decision.result()
    except AnalysesBusy:
        _log.warning("game %s: the bots' worker processes are busy", game_id)
        return None


async def _commit(
    services: BotServices, loaded: LoadedGame, move: tuple[int, str | None], action: Action
) -> None:
    """Commit the service's move, its due entry with it; a commit that lost the race changes
    nothing (the driver looks again)."""
    seat, level = move
    change = acted(loaded, seat, action, by_token=False)
    if not await commit(services, loaded.game_id, loaded.stored_version, change, by_service=True):
        return  # someone else moved first
    metrics.count_action(action)
    if level is not None:
        metrics.BOT_MOVES.labels(level=level).inc()


class BotDriversPlugin(InitPluginProtocol):
    """This instance's drivers and sweeper, for the app's lifespan. Listed after the event
    channels' plugin, their lifespan is entered after the channels' and so left before it: a move
    committed while the app shuts down publishes its event into channels still running."""

    def __init__(self, services: BotServices) -> None:
        self._services = services

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.lifespan.append(self._lifespan)
        return app_config

    @asynccontextmanager
    async def _lifespan(self, _app: Litestar) -> AsyncIterator[None]:
        services = self._services
        services.bots.start(partial(drive, services), partial(sweep_forever, services))
        try:
            yield
        finally:
            await services.bots.close()


async def sweep_forever(services: BotServices) -> None:
    """Every ``sweep_seconds``: take the games whose move is due (their lease is this
    instance's now) and drive each. While due games wait for room (``BotTasks.behind``), a
    sweep comes again as soon as the bots' pool has room for half its capacity: after an
    instance died, its survivor took a pool's worth of games a second (65) while its pool sat
    idle between sweeps."""
    while not being_cancelled():  # a cancellation redis-py turned into an outage stops it too
        await _until_next_sweep(services)
        await sweep_once(services)


async def _until_next_sweep(services: BotServices) -> None:
    bots, seconds = services.bots, services.settings.sweep_seconds
    if not bots.behind and bots.room > 0:  # the last sweep took every due game, or none ran
        await asyncio.sleep(seconds)
        return
    half = max(1, bots.pool.capacity // 2)
    if bots.room >= half:  # a bot put on turn found no room, which has come since
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(bots.pool.room_for(half), seconds)


async def sweep_once(services: BotServices) -> int:
    """Take every due game there is room to drive, a batch at a time, and drive each; how many
    were taken."""
    bots = services.bots
    taken = 0
    while (room := _room(services)) > 0:
        try:
            due = await services.due.take_due(
                time.time(), services.settings.bot_lease_seconds, room, sweeper=bots.owner
            )
        except StoreUnavailable:  # noted in the store's outage log
            bots.behind = False  # the next sweep tries again, a sweep's time from now
            return taken
        for game_id in due:
            bots.nudge(game_id)
        taken += len(due)
        if len(due) < room:
            bots.behind = False
            return taken
        await asyncio.sleep(0)  # requests go on between batches
    bots.behind = True
    return taken

"""A tournament runs itself: at its start the first round is paired and its games created; when
every game of a round is over, the next round; after the last, it is finished.

**Who runs it.** Whoever holds its due entry (``service.tournaments.store``): every instance's
runner takes the due tournaments every ``SWEEP_SECONDS`` (an open one at its ``starts_at``; a
running one a lease after its last change, the safety net) and looks at each (``advance``). A
game of a tournament that finishes tells the runner of the instance that committed it at once
(``tournaments_told``, a subscriber of the games' bus), so a round follows the last game of the
one before without waiting for the safety net.

**Exactly once.** ``advance`` reads the record, works out the change due (the results of games
over, the next round paired, the end), and makes it with one compare-and-set, its due entry
with it; a change that lost the race is worked out again from the record that won. A round's
games have ids fixed by their place (``records.game_id_of``) and are created after the record
that pairs them is stored: the instance that stored it creates them, and a look that finds one
missing (that instance died in between) creates it; of two creating the same game, the second
finds it made. Pairing and deals are functions of the record, so every instance pairs the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Final

import msgspec
from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol

from engine.records import rotated, shuffled_deals
from engine.seeds import mixed_seed
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.bus import Committed, GameNews, Subscriber
from service.games.lifecycle import LoadedGame
from service.games.wire import CreateGameRequest, PlayerIn
from service.http.problems import GameNotFound
from service.players.event_wire import PlayerEvent
from service.players.news import log_events
from service.records.given import deployment_secret
from service.storage.game_store import GameExists, StoreUnavailable
from service.storage.redis_connection import being_cancelled
from service.tournaments import pairing, standings
from service.tournaments import records as tournament_records
from service.tournaments.deps import TournamentServices
from service.tournaments.records import RoundRecord, TableRecord, TournamentRecord
from service.vocabulary.wire import SEED_LIMIT, RulesOverrides

LEASE: Final = 30.0
"""How long a runner's take of a tournament holds, and how long after each change of a running
tournament a runner looks at it anyway (the safety net under the games' news)."""
SWEEP_SECONDS: Final = 1.0
"""How often each instance's runner takes the due tournaments."""
SWEEP_BATCH: Final = 64
CHANGE_ATTEMPTS: Final = 16
"""Compare-and-sets ``advance`` tries before it leaves the tournament to the next look."""

_log = logging.getLogger(__name__)
_rules_decoder: Final = msgspec.json.Decoder(RulesOverrides)


def due_of(record: TournamentRecord, now: float) -> float | None:
    """When a runner must look at the tournament next: its start; a lease on while it runs;
    never once finished."""
    if record.status == "open":
        return record.starts_at
    if record.status == "running":
        return now + LEASE
    return None


def planned_rounds(record: TournamentRecord) -> int:
    """The rounds a tournament starting now plays (``wire.TournamentRequest.rounds``)."""
    entrants, size = len(record.entrants), record.table_size
    if record.format == "round_robin":
        whole = pairing.round_robin_length(entrants, size)
        return whole if record.rounds is None else min(whole, record.rounds)
    if record.rounds is not None:
        return record.rounds
    needed, reach = 0, 1
    while reach < entrants:
        reach *= size
        needed += 1
    return max(2, needed)


def paired(record: TournamentRecord, played: tuple[RoundRecord, ...], now: float) -> RoundRecord:
    """The round after ``played``."""
    index, entrants, size = len(played), len(record.entrants), record.table_size
    history = [r.pairing for r in played]
    if record.format == "round_robin":
        found = pairing.round_robin(entrants, size, history)
        assert found is not None  # ``planned_rounds`` stops within the schedule
    else:
        found = pairing.swiss(standings.ranking(entrants, size, played), size, history)
    tables = tuple(
        TableRecord(tournament_records.game_id_of(record.tournament_id, index, t), seated)
        for t, seated in enumerate(found.tables)
    )
    seed = (
        tournament_records.deal_seed_of(record.tournament_id, index) if record.duplicate else None
    )
    return RoundRecord(tables, found.byes, now, seed)


def started(record: TournamentRecord, now: float) -> TournamentRecord:
    """The tournament at its start: round 1 paired, or finished for want of entrants."""
    replace = msgspec.structs.replace
    if len(record.entrants) < record.table_size:
        note = (
            f"{len(record.entrants)} entrants at the start, fewer than a table of "
            f"{record.table_size}: nothing was played"
        )
        return replace(record, status="finished", finished=now, note=note)
    planned = replace(record, planned=planned_rounds(record))
    return replace(planned, status="running", played=(paired(planned, (), now),))


def with_results(
    record: TournamentRecord, scores: dict[str, tuple[int, ...]], now: float
) -> TournamentRecord:
    """The tournament once the games in ``scores`` (final totals by game id) are noted: the next
    round paired when they end the current one, or the tournament finished after the last."""
    current = record.played[-1]
    noted = msgspec.structs.replace(
        current,
        tables=tuple(
            msgspec.structs.replace(t, scores=scores[t.game_id]) if t.game_id in scores else t
            for t in current.tables
        ),
    )
    played = (*record.played[:-1], noted)
    replace = msgspec.structs.replace
    if not noted.over:
        return replace(record, played=played)
    if len(played) >= record.planned:
        return replace(record, played=played, status="finished", finished=now)
    return replace(record, played=(*played, paired(record, played, now)))


# -- what a look does -----------------------------------------------------------------------------


async def advance(services: TournamentServices, tournament_id: str) -> None:
    """Make every change due in the tournament now, each one compare-and-set, and create the
    games of a round it pairs."""
    for _ in range(CHANGE_ATTEMPTS):
        raw = await services.tournaments.get(tournament_id)
        if raw is None:
            return
        record = tournament_records.decode(raw)
        now = game_records.now()
        changed = await _change_due(services, record, now)
        if changed is None:
            if record.status == "running":
                await _games_made(services, record, missing_only=True)
            return
        new = tournament_records.encode(changed)
        if not await services.tournaments.replace(
            tournament_id, raw, new, due=due_of(changed, now)
        ):
            continue  # another change won: work it out again from the record that did
        await _after_change(services, record, changed)
        return
    _log.warning(
        "tournament %s: changes kept losing the race; left to the next look", tournament_id
    )


async def _change_due(
    services: TournamentServices, record: TournamentRecord, now: float
) -> TournamentRecord | None:
    if record.status == "open":
        return started(record, now) if now >= record.starts_at else None
    if record.status == "finished":
        return None
    scores = {}
    for table in record.played[-1].tables:
        if table.scores is None:
            final = await _final_scores(services, table.game_id)
            if final is not None:
                scores[table.game_id] = final
    return with_results(record, scores, now) if scores else None


async def _final_scores(services: TournamentServices, game_id: str) -> tuple[int, ...] | None:
    """Each seat's final total once the game is over; None while it is played (or missing)."""
    try:
        loaded = await game_flow.load_any(services, game_id)
    except GameNotFound:
        return None
    if not isinstance(loaded, LoadedGame) or loaded.state.status != "finished":
        return None
    return tuple(p.score for p in game_flow.shared_view(services, loaded, None).players)


async def _after_change(
    services: TournamentServices, before: TournamentRecord, after: TournamentRecord
) -> None:
    """What follows a change stored: the new round's games and its entrants told; at the end,
    every entrant told its place."""
    if len(after.played) > len(before.played):
        await _games_made(services, after, missing_only=False)
        await _round_told(services, after)
    if after.status == "finished" and before.status != "finished":
        await _finish_told(services, after)


async def _games_made(
    services: TournamentServices, record: TournamentRecord, *, missing_only: bool
) -> None:
    """Create the current round's games (those not made yet, with ``missing_only``)."""
    index = len(record.played) - 1
    current = record.played[index]
    for number, table in enumerate(current.tables):
        if table.scores is not None:
            continue
        if missing_only:
            try:
                await game_flow.load_any(services, table.game_id)
            except GameNotFound:
                pass
            else:
                continue
        await _game_made(services, record, current, number)


async def _game_made(
    services: TournamentServices, record: TournamentRecord, current: RoundRecord, number: int
) -> None:
    table = current.tables[number]
    seated = [record.entrants[e] for e in table.entrants]
    size = len(seated)
    given = None
    if current.deal_seed is not None:
        seed = mixed_seed(current.deal_seed, await deployment_secret(services)) % SEED_LIMIT
        rules = game_records.rules_of(record.rules)
        deals = rotated(shuffled_deals(rules, size, seed, seed % size), number % size, size)
        given = (deals.first_dealer, deals.deals)
    request = CreateGameRequest(
        players=[PlayerIn(me=True)] * size,
        rules=_rules_decoder.decode(record.rules),
        turn_seconds=record.turn_seconds,
    )
    levels = tuple(e.level for e in seated)
    with contextlib.suppress(GameExists):  # another instance made it meanwhile
        await game_flow.create_game(
            services,
            request,
            [e.name for e in seated],
            levels if any(levels) else (),
            given=given,
            players=tuple(None if e.level else e.player_id for e in seated),
            game_id=table.game_id,
            tournament=record.tournament_id,
        )


async def _round_told(services: TournamentServices, record: TournamentRecord) -> None:
    """Each player entrant's ``tournament_round``: its table's game and seat, or its bye."""
    number = len(record.played)
    current = record.played[-1]
    made: list[tuple[str, PlayerEvent]] = []
    for table in current.tables:
        for seat, entrant in enumerate(table.entrants):
            player = record.entrants[entrant]
            if player.level is None:
                made.append((player.player_id, _round_event(record, number, table.game_id, seat)))
    for entrant in current.byes:
        player = record.entrants[entrant]
        if player.level is None:
            made.append((player.player_id, _round_event(record, number, None, None)))
    await log_events(services.players, services.channels, made)


async def _finish_told(services: TournamentServices, record: TournamentRecord) -> None:
    rows = standings.standings(len(record.entrants), record.table_size, record.played)
    made = [
        (
            record.entrants[row.entrant].player_id,
            PlayerEvent("tournament_finish", tournament_id=record.tournament_id, place=rank),
        )
        for rank, row in enumerate(rows, start=1)
        if record.entrants[row.entrant].level is None
    ]
    await log_events(services.players, services.channels, made)


def _round_event(
    record: TournamentRecord, number: int, game_id: str | None, seat: int | None
) -> PlayerEvent:
    """``tournament_round``: the player's table (its game and seat), or none for a bye."""
    return PlayerEvent(
        "tournament_round", game_id, seat, tournament_id=record.tournament_id, round=number
    )


# -- this instance's runner -----------------------------------------------------------------------

Look = Callable[[str], Awaitable[None]]
TakeDue = Callable[[float, float, int], Awaitable[list[str]]]
"""``TournamentStore.take_due``."""


class TournamentRunner:
    """This instance's looks at tournaments: the due ones every ``SWEEP_SECONDS`` (or when
    woken), and those the games' news name, at most one look per tournament at once."""

    def __init__(self) -> None:
        self._take_due: TakeDue | None = None
        self._look: Look | None = None
        self._looking: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._wake = asyncio.Event()
        self._sweeper: asyncio.Task[None] | None = None

    def start(self, look: Look, take_due: TakeDue) -> None:
        """Look at tournaments with ``look`` from now on, sweeping the entries ``take_due``
        takes (with the app: its startup)."""
        self._look, self._take_due = look, take_due
        self._wake = asyncio.Event()
        self._sweeper = asyncio.create_task(self._sweep(), name="tournament-sweeper")

    def wake(self) -> None:
        """Take the due tournaments now (one was just made to start at once)."""
        self._wake.set()

    def nudge(self, tournament_id: str) -> None:
        """Look at the tournament soon (one of its games is over)."""
        if self._look is None:  # not started (an app used without its lifespan)
            return
        if tournament_id in self._looking:
            self._again.add(tournament_id)
            return
        task = asyncio.create_task(self._run(tournament_id), name=f"tournament:{tournament_id}")
        self._looking[tournament_id] = task

    async def _run(self, tournament_id: str) -> None:
        assert self._look is not None
        try:
            while True:
                self._again.discard(tournament_id)
                try:
                    await self._look(tournament_id)
                except StoreUnavailable:
                    _log.warning("tournament %s: the store is unavailable", tournament_id)
                    return
                except Exception:  # its due entry brings another look after the lease
                    _log.exception("tournament %s: the look failed", tournament_id)
                    return
                if tournament_id not in self._again:
                    return
        finally:
            del self._looking[tournament_id]
            self._again.discard(tournament_id)

    async def _sweep(self) -> None:
        assert self._take_due is not None
        while not being_cancelled():
            self._wake.clear()
            try:
                for tournament_id in await self._take_due(time.time(), LEASE, SWEEP_BATCH):
                    self.nudge(tournament_id)
            except StoreUnavailable:
                pass
            except Exception:  # the sweeper outlives anything one sweep meets
                _log.exception("tournaments: taking the due ones failed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SWEEP_SECONDS):
                    await self._wake.wait()

    async def close(self) -> None:
        tasks = [*self._looking.values(), *([self._sweeper] if self._sweeper else [])]
        self._look, self._sweeper = None, None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def tournaments_told(runner: TournamentRunner) -> Subscriber:
    """The subscriber that has the runner look at a tournament when one of its games ends."""

    def heard(news: GameNews) -> None:
        if (
            isinstance(news, Committed)
            and news.record.tournament is not None
            and news.state.status == "finished"
        ):
            runner.nudge(news.record.tournament)

    return heard


class TournamentRunnerPlugin(InitPluginProtocol):
    """This instance's runner, for the app's lifespan."""

    def __init__(self, services: TournamentServices) -> None:
        self._services = services

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.lifespan.append(self._lifespan)
        return app_config

    @asynccontextmanager
    async def _lifespan(self, _app: Litestar) -> AsyncIterator[None]:
        runner = self._services.tournament_runner

        async def look(tournament_id: str) -> None:
            await advance(self._services, tournament_id)

        runner.start(look, self._services.tournaments.take_due)
        try:
            yield
        finally:
            await runner.close()

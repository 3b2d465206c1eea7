"""A tournament runs itself: at its start the first round is paired and its games created; when
every game of a round is over, the next round; after the last, it is finished.

**Who runs it.** Whoever holds its due entry (``service.tournaments.store``): every instance's
runner (``service.tournaments.runner``) takes the due tournaments every second (an open one at
its ``starts_at``; a running one a lease after its last change, the safety net) and looks at each
(``advance``). A game of a tournament that finishes tells the runner of the instance that
committed it at once (``tournaments_told``, a subscriber of the games' bus), so a round follows
the last game of the one before without waiting for the safety net.

**Exactly once.** ``advance`` reads the record, works out the change due (the results of games
over, the next round paired, the end), and makes it with one compare-and-set, its due entry
with it; a change that lost the race is worked out again from the record that won. A round's
games have ids fixed by their place (``records.game_id_of``) and are created after the record
that pairs them is stored: the instance that stored it creates them, and a look that finds one
missing (that instance died in between) creates it; of two creating the same game, the second
finds it made. Pairing and deals are functions of the record, so every instance pairs the same.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Final

import msgspec

from engine.records import rotated, shuffled_deals
from engine.seeds import mixed_seed
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.lifecycle import LoadedGame
from service.games.wire import CreateGameRequest, PlayerIn
from service.http.problems import GameNotFound
from service.players.event_wire import PlayerEvent
from service.players.news import log_events
from service.records.given import deployment_secret
from service.storage.game_store import GameExists
from service.tournaments import pairing, standings
from service.tournaments import records as tournament_records
from service.tournaments.deps import TournamentServices
from service.tournaments.records import RoundRecord, TableRecord, TournamentRecord
from service.vocabulary.wire import SEED_LIMIT, RulesOverrides

LEASE: Final = 30.0
"""How long a runner's take of a tournament holds, and how long after each change of a running
tournament a runner looks at it anyway (the safety net under the games' news)."""
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
            rated=record.rated,
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

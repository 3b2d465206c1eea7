"""A tournament's record on the wire: its rounds, standings and crosstable."""

from __future__ import annotations

from service.games import records as game_records
from service.http.wire import utc_time
from service.tournaments import standings
from service.tournaments.records import RoundRecord, TableRecord, TournamentRecord
from service.tournaments.wire import (
    CrossResultOut,
    CrosstableRowOut,
    EntrantOut,
    PairingOut,
    RoundOut,
    StandingOut,
    Tournament,
    TournamentSummary,
)
from service.vocabulary import to_wire


def tournament_out(record: TournamentRecord) -> Tournament:
    ids = [e.player_id for e in record.entrants]
    rows = standings.standings(len(ids), record.table_size, record.played)
    return Tournament(
        tournament_id=record.tournament_id,
        name=record.name,
        creator=record.creator,
        status=record.status,
        format=record.format,
        rules=to_wire.game_rules_to_wire(game_records.rules_of(record.rules)),
        table_size=record.table_size,
        duplicate=record.duplicate,
        turn_seconds=record.turn_seconds,
        rated=record.rated,
        open_registration=record.open_registration,
        starts_at=utc_time(record.starts_at),
        created=utc_time(record.created),
        finished_at=None if record.finished is None else utc_time(record.finished),
        planned_rounds=record.planned if record.status != "open" else None,
        note=record.note,
        entrants=[
            EntrantOut(player_id=e.player_id, name=e.name, bot=e.level is not None)
            for e in record.entrants
        ],
        rounds=[
            _round_out(record, number, played, ids)
            for number, played in enumerate(record.played, start=1)
        ],
        standings=[
            StandingOut(
                rank=rank,
                player_id=ids[row.entrant],
                name=record.entrants[row.entrant].name,
                points=row.halves / 2,
                buchholz=row.buchholz_halves / 2,
                wins=row.wins,
                total=row.total,
                games=row.games,
                byes=row.byes,
            )
            for rank, row in enumerate(rows, start=1)
        ],
        crosstable=[_row_out(record, entrant) for entrant in range(len(ids))],
    )


def _round_out(
    record: TournamentRecord, number: int, played: RoundRecord, ids: list[str]
) -> RoundOut:
    size = record.table_size
    return RoundOut(
        round=number,
        status="finished" if played.over else "playing",
        pairings=[
            PairingOut(
                table=t,
                game_id=table.game_id,
                players=[ids[e] for e in table.entrants],
                rotation=t % size if played.deal_seed is not None else None,
                scores=None if table.scores is None else list(table.scores),
                points=_points(table),
            )
            for t, table in enumerate(played.tables)
        ],
        games=[table.game_id for table in played.tables],
        byes=[ids[e] for e in played.byes],
    )


def _points(table: TableRecord) -> list[float] | None:
    if table.scores is None:
        return None
    return [standings.seat_halves(table.scores, seat) / 2 for seat in range(len(table.scores))]


def _row_out(record: TournamentRecord, entrant: int) -> CrosstableRowOut:
    ids = [e.player_id for e in record.entrants]
    results = []
    for number, played in enumerate(record.played, start=1):
        if entrant in played.byes:
            bye_points = (record.table_size - 1) / 2 if played.over else None
            results.append(
                CrossResultOut(
                    round=number,
                    bye=True,
                    game_id=None,
                    table=None,
                    place=None,
                    points=bye_points,
                    opponents=[],
                )
            )
            continue
        for t, table in enumerate(played.tables):
            if entrant not in table.entrants:
                continue
            seat = table.entrants.index(entrant)
            results.append(
                CrossResultOut(
                    round=number,
                    bye=False,
                    game_id=table.game_id,
                    table=t,
                    place=None if table.scores is None else standings.place_of(table.scores, seat),
                    points=None
                    if table.scores is None
                    else standings.seat_halves(table.scores, seat) / 2,
                    opponents=[ids[e] for e in table.entrants if e != entrant],
                )
            )
    player = record.entrants[entrant]
    return CrosstableRowOut(player_id=player.player_id, name=player.name, results=results)


def summary_out(record: TournamentRecord) -> TournamentSummary:
    return TournamentSummary(
        tournament_id=record.tournament_id,
        name=record.name,
        status=record.status,
        format=record.format,
        table_size=record.table_size,
        duplicate=record.duplicate,
        rated=record.rated,
        entrants=len(record.entrants),
        rounds_played=len(record.played),
        planned_rounds=record.planned if record.status != "open" else None,
        starts_at=utc_time(record.starts_at),
    )

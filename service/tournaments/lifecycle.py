"""Making a tournament, joining and leaving it before its start, and reading it.

Each change is one compare-and-set of the tournament's record (``service.tournaments.store``),
tried again when another change won meanwhile. A player has at most ``STANDING_MAX``
tournaments of its own not finished (counted before the creation, as challenges are: two
creations at once may pass the count together).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

import msgspec

from engine.errors import RulesError
from service.games import records as game_records
from service.http import cursors, idempotency
from service.http.idempotency import Retry
from service.http.problems import IdempotencyKeyReused, InvalidField, PlayerNotFound
from service.identity.store import PlayerRecord
from service.ratings.model import built_in_player, check_rated
from service.tables import waiting_tables as waiting
from service.tournaments import records as tournament_records
from service.tournaments.deps import TournamentServices
from service.tournaments.problems import (
    AlreadyEntered,
    NotEntered,
    RegistrationClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentQuotaReached,
)
from service.tournaments.records import Entrant, TournamentRecord
from service.tournaments.running import due_of
from service.tournaments.store import TournamentExists
from service.tournaments.to_wire import summary_out, tournament_out
from service.tournaments.wire import (
    MAX_ENTRANTS,
    REGISTRATION_SECONDS,
    STARTS_WITHIN,
    Tournament,
    TournamentRequest,
    Tournaments,
)
from service.vocabulary import to_engine
from service.vocabulary.names import display_name

STANDING_MAX: Final = 5
"""The most tournaments of a player's own that are not finished."""
_CHANGE_ATTEMPTS: Final = 16


async def create(
    services: TournamentServices,
    creator: PlayerRecord,
    request: TournamentRequest,
    retry: Retry | None = None,
) -> Tournament:
    """``POST /v1/tournaments`` (201). With an Idempotency-Key its id is the key's: a retry, on
    any instance, answers the tournament made, as it stands now."""
    tournament_id = (
        tournament_records.new_tournament_id() if retry is None else idempotency.derived_id(retry)
    )
    if retry is not None and (raw := await services.tournaments.get(tournament_id)) is not None:
        return _retried(tournament_records.decode(raw), creator, request)
    rules = to_engine.game_rules_from_wire(request.rules, None, request.turn_seconds)
    try:
        rules.check_players(request.table_size)
    except RulesError as error:
        raise InvalidField(f"table_size: {error}", field="table_size") from None
    check_rated(rules, request.rated)
    entrants = await _named_entrants(services, request)
    if entrants is not None and len(entrants) < request.table_size:
        raise InvalidField(
            f"entrants: {len(entrants)} entrants cannot fill one table of {request.table_size}",
            field="entrants",
        )
    now = game_records.now()
    starts_at = _start_of(request, now)
    await _check_quota(services, creator.player_id)
    record = TournamentRecord(
        tournament_id=tournament_id,
        name=display_name(request.name, "name"),
        creator=creator.player_id,
        rules=waiting.encoded_rules(rules),
        format=request.format,
        rounds=request.rounds,
        table_size=request.table_size,
        duplicate=request.duplicate,
        starts_at=starts_at,
        turn_seconds=request.turn_seconds,
        open_registration=entrants is None,
        entrants=() if entrants is None else tuple(entrants),
        created=now,
        rated=request.rated,
    )
    try:
        await services.tournaments.create(
            tournament_id,
            tournament_records.encode(record),
            creator=creator.player_id,
            created=now,
            due=starts_at,
        )
    except TournamentExists:
        if retry is None:  # pragma: no cover - 96 random bits
            raise
        raw = await services.tournaments.get(tournament_id)
        assert raw is not None
        return _retried(tournament_records.decode(raw), creator, request)
    if starts_at <= now:
        services.tournament_runner.wake()
    return tournament_out(record)


def _retried(
    record: TournamentRecord, creator: PlayerRecord, request: TournamentRequest
) -> Tournament:
    if (record.creator, record.name) != (creator.player_id, display_name(request.name, "name")):
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first sent with a different tournament: use a new key "
            "for a new request",
            field="Idempotency-Key",
        )
    return tournament_out(record)


def _start_of(request: TournamentRequest, now: float) -> float:
    if request.starts_at is None:
        return now if request.entrants is not None else now + REGISTRATION_SECONDS
    starts_at = request.starts_at.timestamp()
    if starts_at > now + STARTS_WITHIN:
        raise InvalidField(
            f"starts_at: at most {STARTS_WITHIN // 86400} days ahead", field="starts_at"
        )
    return max(starts_at, now)


async def _named_entrants(
    services: TournamentServices, request: TournamentRequest
) -> list[Entrant] | None:
    """The entrants the request names (each once; 404 for one there is not), or None for open
    registration."""
    if request.entrants is None:
        return None
    if len(set(request.entrants)) != len(request.entrants):
        raise InvalidField("entrants: each player enters once", field="entrants")
    found = await asyncio.gather(*(_entrant(services, p) for p in request.entrants))
    for player_id, entrant in zip(request.entrants, found, strict=True):
        if entrant is None:
            raise PlayerNotFound(f"entrants: no player {player_id!r}")
    return [e for e in found if e is not None]


async def _entrant(services: TournamentServices, player_id: str) -> Entrant | None:
    level = built_in_player(player_id)
    if level is not None:
        return Entrant(player_id, f"{level.capitalize()} bot", level)
    player = await services.players.get(player_id)
    return None if player is None else Entrant(player_id, player.name)


async def _check_quota(services: TournamentServices, player_id: str) -> None:
    mine = await services.tournaments.created_by(player_id, STANDING_MAX * 4)
    found = await asyncio.gather(*(services.tournaments.get(t) for t in mine))
    standing = sum(
        raw is not None and tournament_records.decode(raw).status != "finished" for raw in found
    )
    if standing >= STANDING_MAX:
        raise TournamentQuotaReached(
            f"the player has {STANDING_MAX} tournaments not finished: wait for one to end"
        )


# -- joining and leaving --------------------------------------------------------------------------


async def join(
    services: TournamentServices, tournament_id: str, player: PlayerRecord, *, retried: bool
) -> Tournament:
    """The player entered. ``retried`` (an Idempotency-Key sent): a player entered already is
    answered the tournament as it stands, as the first attempt's retry."""
    if retried:
        record = tournament_records.decode(await _raw(services, tournament_id))
        if any(e.player_id == player.player_id for e in record.entrants):
            return tournament_out(record)

    def joined(record: TournamentRecord) -> TournamentRecord:
        _check_open(record)
        if not record.open_registration:
            raise RegistrationClosed(
                "registration: the entrants of this tournament were named at its creation"
            )
        if any(e.player_id == player.player_id for e in record.entrants):
            raise AlreadyEntered("the player is an entrant of this tournament already")
        if len(record.entrants) >= MAX_ENTRANTS:
            raise TournamentFull(f"the tournament has {MAX_ENTRANTS} entrants, the most it takes")
        entrant = Entrant(player.player_id, player.name)
        return msgspec.structs.replace(record, entrants=(*record.entrants, entrant))

    return tournament_out(await _changed(services, tournament_id, joined))


async def leave(
    services: TournamentServices, tournament_id: str, player_id: str, *, retried: bool
) -> Tournament:
    """The player withdrawn. ``retried``: a player not entered is answered the tournament as
    it stands."""
    if retried:
        record = tournament_records.decode(await _raw(services, tournament_id))
        if record.status == "open" and all(e.player_id != player_id for e in record.entrants):
            return tournament_out(record)

    def left(record: TournamentRecord) -> TournamentRecord:
        _check_open(record)
        kept = tuple(e for e in record.entrants if e.player_id != player_id)
        if len(kept) == len(record.entrants):
            raise NotEntered("the player is not an entrant of this tournament")
        return msgspec.structs.replace(record, entrants=kept)

    return tournament_out(await _changed(services, tournament_id, left))


def _check_open(record: TournamentRecord) -> None:
    if record.status != "open" or game_records.now() >= record.starts_at:
        raise RegistrationClosed(f"the tournament is {record.status}: its entrants are fixed")


async def _changed(
    services: TournamentServices,
    tournament_id: str,
    change: Callable[[TournamentRecord], TournamentRecord],
) -> TournamentRecord:
    """The record once ``change`` is made to it by compare-and-set, tried again on a race."""
    for _ in range(_CHANGE_ATTEMPTS):
        raw = await _raw(services, tournament_id)
        record = tournament_records.decode(raw)
        changed = change(record)
        new = tournament_records.encode(changed)
        due = due_of(changed, game_records.now())
        if await services.tournaments.replace(tournament_id, raw, new, due=due):
            return changed
    raise RegistrationClosed(  # pragma: no cover - sixteen races lost in a row
        "the tournament kept changing meanwhile: try again"
    )


# -- reading --------------------------------------------------------------------------------------


async def _raw(services: TournamentServices, tournament_id: str) -> bytes:
    raw = await services.tournaments.get(tournament_id)
    if raw is None:
        raise TournamentNotFound(f"no tournament {tournament_id!r} (or it is no longer kept)")
    return raw


async def stored(services: TournamentServices, tournament_id: str) -> TournamentRecord:
    """The tournament's record (404 for one there is not, or no longer kept)."""
    return tournament_records.decode(await _raw(services, tournament_id))


async def get(services: TournamentServices, tournament_id: str) -> Tournament:
    return tournament_out(await stored(services, tournament_id))


async def listing(services: TournamentServices, limit: int, cursor: str | None) -> Tournaments:
    """``GET /v1/tournaments``: newest first (one no longer kept is left out of its page)."""
    after = None if cursor is None else cursors.position_of(cursor)
    ids, last = await services.tournaments.page(limit, after)
    found = await asyncio.gather(*(services.tournaments.get(t) for t in ids))
    return Tournaments(
        tournaments=[summary_out(tournament_records.decode(raw)) for raw in found if raw],
        next_cursor=None if last is None else cursors.cursor_of(last),
    )

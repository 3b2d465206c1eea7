"""Quick play: ``POST /v1/seeks`` puts the player in the pool of a table's terms (its rules,
size, rated or not, clock); when the pool holds a table's seekers, they are matched in one
atomic step of the pool (``service.players.seek_pool``) and their game is dealt at once, every
seat a player's, so each seeker's stream gets ``game_start``. An unrated pool matches its oldest
seekers; a rated one the nearest ratings within a window that widens as they wait
(``service.players.seek_matching``): a rated seek carries its seeker's rating under the seek's
preset and mode, a provisional player's ``mu`` (its conservative rating, ``mu - 3 sigma``, says
little before a few games and would seat every newcomer with the weakest players).
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Final

import msgspec

from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.wire import CreateGameRequest, PlayerIn
from service.http import idempotency
from service.http.idempotency import Retry
from service.http.problems import GameNotFound, IdempotencyKeyReused
from service.http.wire import utc_time
from service.identity.store import PlayerRecord
from service.players.challenge_wire import SEEK_SECONDS, Seek, SeekRequest
from service.players.deps import PlayerServices
from service.players.problems import SeekNotFound, SeekQuotaReached, SeekTaken
from service.players.seek_pool import (
    AlreadySeeking,
    SeekRecord,
    SeekState,
    TooManySeeks,
    is_waiting,
)
from service.ratings import model as rating_model
from service.ratings.model import check_rated
from service.storage.game_store import GameExists
from service.tables import waiting_tables as waiting
from service.vocabulary import to_engine
from service.vocabulary.wire import RulesOverrides

_rules_decoder: Final = msgspec.json.Decoder(RulesOverrides)


async def seek(
    services: PlayerServices, player: PlayerRecord, request: SeekRequest, retry: Retry | None
) -> Seek:
    """A new seek of the player's (201): matched at once if it completes a table. With an
    Idempotency-Key its id is the key's: a retry, on any instance, finds the seek made and
    answers how it stands now (matched, perhaps), making nothing again."""
    rules = to_engine.game_rules_from_wire(request.rules, None, request.turn_seconds)
    rules.check_players(request.players)
    check_rated(rules, request.rated)
    encoded_rules = waiting.encoded_rules(rules)
    seek_id = game_records.new_game_id() if retry is None else idempotency.derived_id(retry)
    if retry is not None and (found := await services.seeks.get(seek_id)) is not None:
        return _retried(found, player.player_id, pool_of(encoded_rules, request))
    now = game_records.now()
    record = SeekRecord(
        seek_id=seek_id,
        player_id=player.player_id,
        name=player.name,
        pool=pool_of(encoded_rules, request),
        rules=encoded_rules,
        players=request.players,
        rated=request.rated,
        turn_seconds=request.turn_seconds,
        created=now,
        expires=now + SEEK_SECONDS,
        rating=await _rating(services, player.player_id, rating_model.rating_key(rules))
        if request.rated
        else None,
    )
    try:
        state = await services.seeks.add(record, game_records.new_game_id())
    except AlreadySeeking as taken:
        if taken.seek_id == seek_id:  # this request's twin, on another instance, made it
            found = await services.seeks.get(seek_id)
            assert found is not None
            return _retried(found, player.player_id, record.pool)
        raise SeekTaken(
            f"the player already seeks a table of these terms: seek {taken.seek_id!r}"
        ) from None
    except TooManySeeks:
        raise SeekQuotaReached("a player may have 20 seeks waiting at once") from None
    if state.status == "matched":
        await dealt(services, state)
    return seek_out(record, state, now)


async def _rating(services: PlayerServices, player_id: str, key: str | None) -> float:
    """The rating a rated seek is matched by: the player's under ``key``, a provisional
    player's ``mu`` (a newcomer's first)."""
    assert key is not None  # a rated seek's rules are a preset's (check_rated)
    [data] = await services.ratings.entries(key, [player_id])
    if data is None:
        return rating_model.NEW_MU
    entry = rating_model.decode_entry(data)
    return entry.mu if entry.provisional else entry.rating


def _retried(found: tuple[SeekRecord, SeekState], player_id: str, pool: str) -> Seek:
    record, state = found
    if (record.player_id, record.pool) != (player_id, pool):
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first sent with a different seek: use a new key for a new "
            "request",
            field="Idempotency-Key",
        )
    return seek_out(record, state, game_records.now())


def pool_of(encoded_rules: bytes, request: SeekRequest) -> str:
    """The pool of a seek's terms: seeks are matched only with seeks of the same."""
    terms = b"%s|%d|%d|%s" % (
        encoded_rules,
        request.players,
        request.rated,
        str(request.turn_seconds).encode(),
    )
    return hashlib.sha256(terms).hexdigest()[:24]


async def dealt(services: PlayerServices, state: SeekState) -> None:
    """Deal the game of a match, unless it was dealt before (by its matcher or another reader):
    every seat the player of a seek of the match, in the order they came."""
    assert state.game_id is not None
    try:
        await game_flow.load_any(services, state.game_id)
    except GameNotFound:
        pass
    else:
        return
    seeks = [await services.seeks.get(mate) for mate in state.mates]
    records = [found[0] for found in seeks if found is not None]
    if len(records) != len(state.mates):  # forgotten: a match older than a seek is kept
        return
    first = records[0]
    request = CreateGameRequest(
        players=[PlayerIn(me=True)] * len(records),
        rules=_rules_decoder.decode(first.rules),
        turn_seconds=first.turn_seconds,
    )
    with contextlib.suppress(GameExists):  # another instance dealt it meanwhile
        await game_flow.create_game(
            services,
            request,
            [s.name for s in records],
            players=tuple(s.player_id for s in records),
            game_id=state.game_id,
            rated=first.rated,
        )


async def get(services: PlayerServices, player_id: str, seek_id: str) -> Seek:
    """The player's seek; 404 for anyone else's. A match whose game is missing (its matcher
    died before dealing it) is dealt here."""
    record, state = await _own(services, player_id, seek_id)
    if state.status == "matched":
        await dealt(services, state)
    return seek_out(record, state, game_records.now())


async def cancel(services: PlayerServices, player_id: str, seek_id: str) -> None:
    """Take the player's waiting seek out of its pool; 409 once it is matched."""
    record, _ = await _own(services, player_id, seek_id)
    state = await services.seeks.cancel(record)
    if state.status == "matched":
        raise SeekTaken(f"seek {seek_id!r} is matched already: its game is {state.game_id!r}")


async def _own(
    services: PlayerServices, player_id: str, seek_id: str
) -> tuple[SeekRecord, SeekState]:
    found = await services.seeks.get(seek_id)
    if found is None or found[0].player_id != player_id:
        raise SeekNotFound(f"the player has no seek {seek_id!r} (or it is no longer kept)")
    return found


def seek_out(record: SeekRecord, state: SeekState, now: float) -> Seek:
    status = state.status
    if status == "waiting" and not is_waiting(state, record, now):
        status = "expired"
    rules = game_records.rules_of(record.rules)
    return Seek(
        seek_id=record.seek_id,
        status=status,  # type: ignore[arg-type]  # one of the four, as the pool keeps them
        players=record.players,
        preset=rules.preset,
        turns=rules.turns,
        rated=record.rated,
        turn_seconds=record.turn_seconds,
        created=utc_time(record.created),
        expires_at=utc_time(record.expires),
        game_id=state.game_id,
    )

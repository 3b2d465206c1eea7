"""Challenges: a player's invitation to a game, to named players (each with a seat kept for
them), or open (anyone may take its open seats), with computer players seated at once.

A challenge is a table (``service.tables``) whose record carries its terms
(``GameRecord.challenge``): its id is the table's game id. Its seats are the challenger's
(seat 0), then one kept for each player challenged (named, with the player's id, but held by
nobody until accepted) or the open seats, then the bots. Accepting takes the player's seat with
the table's compare-and-set commit, as a claim does, and the commit that takes the last seat
deals the game, so every seat's stream gets ``game_start`` (``service.players.news``).
Declining and canceling are commits of the same record, so of an acceptance and a cancel at
once exactly one wins. A challenge not accepted by its expiry can no longer be; its table is
left to expire.

Each player challenged gets a ``challenge`` event, and again on every stream connection while it
stands (``pending``); the challenger gets ``challenge_declined``, the others
``challenge_canceled`` when it can no longer start. Open challenges are listed in a lobby of
their own (``GET /v1/challenges``).
"""

from __future__ import annotations

import asyncio
from typing import Final

import msgspec

import engine
from engine import game
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.lifecycle import LoadedTable
from service.games.records import ChallengeTerms, GameRecord, Seating
from service.http import cursors, idempotency
from service.http.idempotency import Retry, SavedAnswer, encoded
from service.http.problems import GameNotFound, InvalidField, PlayerNotFound
from service.http.wire import utc_time
from service.identity.callers import list_game
from service.identity.store import PlayerRecord
from service.players.challenge_views import (
    challenge_event,
    challenge_out,
    held_seats,
    load,
    status_of,
)
from service.players.challenge_wire import (
    Challenge,
    ChallengeRequest,
    Challenges,
)
from service.players.deps import PlayerServices
from service.players.event_wire import PlayerEvent
from service.players.news import log_events
from service.players.problems import ChallengeQuotaReached
from service.ratings.model import check_rated
from service.storage.game_store import GameExists
from service.tables import waiting_tables as waiting
from service.tables.seat_changes import SeatHolders, commit_seats
from service.vocabulary import to_engine

OPEN_CHALLENGES_MAX: Final = 20
"""The most challenges a player may have standing at once."""
SCANNED: Final = 100
"""The newest games of a player's list read for its standing challenges."""
_decoder: Final = msgspec.json.Decoder(Challenge)


# -- making one -----------------------------------------------------------------------------------


async def create(
    services: PlayerServices,
    challenger: PlayerRecord,
    request: ChallengeRequest,
    retry: Retry | None = None,
) -> SavedAnswer:
    """``POST /v1/challenges`` (201): the table, each player challenged told. With an
    Idempotency-Key its id is the key's and its answer is saved with it, so a retry, on any
    instance, is answered the same and makes nothing again."""
    if retry is not None:
        saved = await services.store.recall(idempotency.derived_id(retry), retry.stored_key)
        if saved is not None:
            return retry.replayed(saved)
    rules = to_engine.game_rules_from_wire(
        request.rules, request.call_seconds, request.turn_seconds
    )
    check_rated(rules, request.rated)
    invited = await _invited(services, challenger, request)
    standing = await _standing(services, challenger.player_id)
    if sum(terms.challenger == challenger.player_id for _, terms in standing) >= (
        OPEN_CHALLENGES_MAX
    ):
        raise ChallengeQuotaReached(
            f"the player has {OPEN_CHALLENGES_MAX} challenges standing: cancel one first"
        )
    record = _challenge_table(challenger, invited, request, rules)
    assert record.table is not None
    challenge_id = game_records.new_game_id() if retry is None else idempotency.derived_id(retry)
    view = await challenge_out(services, LoadedTable(challenge_id, 0, record, record.table))
    answer = SavedAnswer(b"", encoded(view), 201, f"/v1/challenges/{challenge_id}")
    await list_game(services.players, record.players, challenge_id, record.created)
    try:
        await services.store.create(
            challenge_id,
            game_records.encode_record(record),
            idempotency=None if retry is None else retry.saved(answer.body, 201, answer.location),
        )
    except GameExists:
        if retry is None:  # pragma: no cover - 96 random bits
            raise
        return await game_flow.created_before(services, challenge_id, retry)
    if view.status == "accepted":  # only bots: dealt now
        loaded = await load(services, challenge_id)
        assert isinstance(loaded, LoadedTable)
        held = SeatHolders(loaded.seating.names, record.token_hashes, record.players)
        await commit_seats(services, loaded, held)
    elif request.to is None:
        await services.open_challenges.list_table(challenge_id, encoded(view))
    told = [
        (p.player_id, challenge_event("challenge", challenge_id, seat, challenge=view))
        for seat, p in enumerate(invited, start=1)
    ]
    await log_events(services.players, services.channels, told)
    return answer


def _challenge_table(
    challenger: PlayerRecord,
    invited: list[PlayerRecord],
    request: ChallengeRequest,
    rules: engine.Rules,
) -> GameRecord:
    """The challenge's table: the challenger's seat held, a seat kept for each player
    challenged (or the open seats), then the bots; the terms beside."""
    open_count = 0 if request.to is not None else request.seats or 1
    levels = list(request.bots)
    first_bot = 1 + len(invited) + open_count
    rules.check_players(first_bot + len(levels))
    names = (
        challenger.name,
        *(p.name for p in invited),
        *(None,) * open_count,
        *(waiting.bot_name(level, first_bot + i) for i, level in enumerate(levels)),
    )
    seats = len(names)
    now = game_records.now()
    seating = Seating(
        names=names,
        rules=waiting.encoded_rules(rules),
        seed=None,
        first_dealer=game.choose_first_dealer(seats, None),
        invite_code=None,
        listed=False,
        bots=(None,) * first_bot + tuple(levels) if levels else (),
        turn_seconds=request.turn_seconds,
        call_seconds=game_flow.call_seconds_of(rules, request.call_seconds),
    )
    return GameRecord(
        state=b"",
        # The challenger's seat is held (its key acts for it); the others wait for their players.
        token_hashes=(game_records.token_hash(game_records.new_token()),) + (b"",) * (seats - 1),
        created=now,
        table=seating,
        players=(
            challenger.player_id,
            *(p.player_id for p in invited),
            *(None,) * (seats - 1 - len(invited)),
        ),
        challenge=ChallengeTerms(
            challenger=challenger.player_id,
            invited=None if request.to is None else tuple(p.player_id for p in invited),
            expires=now + request.expires_in,
            rated=request.rated,
        ),
    )


async def _invited(
    services: PlayerServices, challenger: PlayerRecord, request: ChallengeRequest
) -> list[PlayerRecord]:
    """The players challenged by name, each once and none the challenger; 404 for one there
    is not."""
    if request.to is None:
        return []
    if request.seats is not None:
        raise InvalidField(
            "seats: only an open challenge (no `to`) has open seats; a challenge to players "
            "keeps one seat for each",
            field="seats",
        )
    if challenger.player_id in request.to:
        raise InvalidField("to: a player cannot challenge themself", field="to")
    if len(set(request.to)) != len(request.to):
        raise InvalidField("to: each player is challenged once", field="to")
    found = await asyncio.gather(*(services.players.get(p) for p in request.to))
    for player_id, player in zip(request.to, found, strict=True):
        if player is None:
            raise PlayerNotFound(f"to: no player {player_id!r}")
    return [p for p in found if p is not None]


# -- reading --------------------------------------------------------------------------------------


async def get(services: PlayerServices, challenge_id: str) -> Challenge:
    return await challenge_out(services, await load(services, challenge_id))


async def listing(services: PlayerServices, limit: int, cursor: str | None) -> Challenges:
    """``GET /v1/challenges``: the open challenges that stand, newest first (a page may hold
    fewer than ``limit``: those that expired since they were listed are left out)."""
    after = None if cursor is None else cursors.position_of(cursor)
    entries, last = await services.open_challenges.page(limit, after)
    now = utc_time(game_records.now())
    standing = [
        c for c in map(_decoder.decode, entries) if c.status == "open" and c.expires_at > now
    ]
    return Challenges(
        challenges=standing,
        next_cursor=None if last is None else cursors.cursor_of(last),
    )


async def pending(services: PlayerServices, player_id: str) -> list[PlayerEvent]:
    """A ``challenge`` event for each challenge to the player that stands and that the player
    has not accepted (among the newest games of the player's list)."""
    events = []
    for loaded, terms in await _standing(services, player_id):
        seat = game_records.seat_of_player(player_id, loaded.record.players)
        if (
            terms.challenger != player_id
            and seat is not None
            and not held_seats(loaded.record)[seat]
        ):
            view = await challenge_out(services, loaded)
            events.append(challenge_event("challenge", loaded.game_id, seat, challenge=view))
    return events


async def _standing(
    services: PlayerServices, player_id: str
) -> list[tuple[LoadedTable, ChallengeTerms]]:
    """The challenges that stand among the newest games of the player's list."""
    entries = await services.players.games(player_id, None, SCANNED)
    loaded = await asyncio.gather(*(_table(services, game_id) for _, game_id in entries))
    now = game_records.now()
    return [
        (table, table.record.challenge)
        for table in loaded
        if table is not None
        and table.record.challenge is not None
        and status_of(table.record, table.record.challenge, now) == "open"
    ]


async def _table(services: PlayerServices, game_id: str) -> LoadedTable | None:
    try:
        loaded = await game_flow.load_any(services, game_id)
    except GameNotFound:
        return None
    return loaded if isinstance(loaded, LoadedTable) else None

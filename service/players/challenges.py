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
from typing import Final, Literal

import msgspec

from engine import game
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.commits import Change, commit
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import ChallengeTerms, GameRecord, Seating
from service.http import cursors
from service.http.problems import GameNotFound, InvalidField, PlayerNotFound, PlayerSeated
from service.identity.callers import list_game
from service.identity.store import PlayerRecord
from service.players.challenge_views import challenge_out, load, status_of
from service.players.challenge_wire import (
    Challenge,
    ChallengeAccepted,
    ChallengeRequest,
    Challenges,
    DeclineReason,
)
from service.players.deps import PlayerServices
from service.players.event_wire import PlayerEvent
from service.players.news import log_events
from service.players.problems import ChallengeClosed, ChallengeQuotaReached, NotYourChallenge
from service.players.turns import utc
from service.tables import waiting_tables as waiting
from service.tables.seat_changes import SeatHolders, commit_seats, replaced, seat_race_lost
from service.tables.seating import SEAT_ATTEMPTS
from service.vocabulary import to_engine

OPEN_CHALLENGES_MAX: Final = 20
"""The most challenges a player may have standing at once."""
SCANNED: Final = 100
"""The newest games of a player's list read for its standing challenges."""
_encoder: Final = msgspec.json.Encoder()
_decoder: Final = msgspec.json.Decoder(Challenge)


# -- making one -----------------------------------------------------------------------------------


async def create(
    services: PlayerServices, challenger: PlayerRecord, request: ChallengeRequest
) -> Challenge:
    """``POST /v1/challenges`` (201): the table, each player challenged told."""
    rules = to_engine.game_rules_from_wire(
        request.rules, request.call_seconds, request.turn_seconds
    )
    invited = await _invited(services, challenger, request)
    open_count = 0 if request.to is not None else request.seats or 1
    levels = list(request.bots)
    first_bot = 1 + len(invited) + open_count
    rules.check_players(first_bot + len(levels))
    standing = await _standing(services, challenger.player_id)
    if sum(terms.challenger == challenger.player_id for _, terms in standing) >= (
        OPEN_CHALLENGES_MAX
    ):
        raise ChallengeQuotaReached(
            f"the player has {OPEN_CHALLENGES_MAX} challenges standing: cancel one first"
        )
    names = (
        challenger.name,
        *(p.name for p in invited),
        *(None,) * open_count,
        *(waiting.bot_name(level, first_bot + i) for i, level in enumerate(levels)),
    )
    seats = len(names)
    players = (
        challenger.player_id,
        *(p.player_id for p in invited),
        *(None,) * (seats - 1 - len(invited)),
    )
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
    record = GameRecord(
        state=b"",
        # The challenger's seat is held (its key acts for it); the others wait for their players.
        token_hashes=(game_records.token_hash(game_records.new_token()),) + (b"",) * (seats - 1),
        created=now,
        table=seating,
        players=players,
        challenge=ChallengeTerms(
            challenger=challenger.player_id,
            invited=None if request.to is None else tuple(p.player_id for p in invited),
            expires=now + request.expires_in,
            rated=request.rated,
        ),
    )
    challenge_id = game_records.new_game_id()
    await list_game(services.players, players, challenge_id, now)
    await services.store.create(challenge_id, game_records.encode_record(record))
    loaded = await load(services, challenge_id)
    if not (invited or open_count):  # only bots: dealt now
        assert isinstance(loaded, LoadedTable)
        held = SeatHolders(names, loaded.record.token_hashes, players)
        await commit_seats(services, loaded, held)
        loaded = await load(services, challenge_id)
    view = await challenge_out(services, loaded)
    if request.to is None and view.status == "open":
        await services.open_challenges.list_table(challenge_id, _encoder.encode(view))
    told = [
        (p.player_id, _event("challenge", challenge_id, seat, challenge=view))
        for seat, p in enumerate(invited, start=1)
    ]
    await log_events(services.players, services.channels, told)
    return view


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
    now = utc(game_records.now())
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
        if terms.challenger != player_id and seat is not None and not _held(loaded, seat):
            view = await challenge_out(services, loaded)
            events.append(_event("challenge", loaded.game_id, seat, challenge=view))
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
        and status_of(table, table.record.challenge, now) == "open"
    ]


async def _table(services: PlayerServices, game_id: str) -> LoadedTable | None:
    try:
        loaded = await game_flow.load_any(services, game_id)
    except GameNotFound:
        return None
    return loaded if isinstance(loaded, LoadedTable) else None


# -- answering ------------------------------------------------------------------------------------


async def accept(
    services: PlayerServices, challenge_id: str, player: PlayerRecord
) -> ChallengeAccepted:
    """``POST …/accept``: the player's seat (the one kept for them, or the first open one);
    the last seat taken deals the game."""
    player_id = player.player_id
    for _ in range(SEAT_ATTEMPTS):
        loaded, terms = _standing_terms(await load(services, challenge_id))
        record, names = loaded.record, loaded.seating.names
        if player_id in record.players:
            seat = record.players.index(player_id)
            if terms.invited is None or _held(loaded, seat):
                raise PlayerSeated(f"the player holds seat {seat} of {challenge_id!r} already")
        elif terms.invited is not None:
            raise NotYourChallenge(f"challenge {challenge_id!r} is to other players")
        else:
            free = waiting.open_seats(loaded.seating)
            if not free:  # pragma: no cover - the last seat taken deals: it no longer stands
                raise ChallengeClosed(f"challenge {challenge_id!r} has no open seat left")
            seat = free[0]
            names = replaced(names, seat, player.name)
        holders = SeatHolders(
            names,
            replaced(record.token_hashes, seat, game_records.token_hash(game_records.new_token())),
            replaced(record.players, seat, player_id),
        )
        await list_game(services.players, (player_id,), challenge_id, record.created)
        if await commit_seats(services, loaded, holders) is not None:
            break
    else:
        raise seat_race_lost(challenge_id)
    view = await challenge_out(services, await load(services, challenge_id))
    if terms.invited is None:
        if view.status == "open":
            await services.open_challenges.list_table(challenge_id, _encoder.encode(view))
        else:
            await services.open_challenges.unlist_table(challenge_id)
    return ChallengeAccepted(challenge=view, game_id=challenge_id, seat=seat)


async def decline(
    services: PlayerServices, challenge_id: str, player_id: str, reason: DeclineReason
) -> Challenge:
    """``POST …/decline``: by a player challenged who has not accepted; the game will not be."""
    for _ in range(SEAT_ATTEMPTS):
        loaded, terms = _standing_terms(await load(services, challenge_id))
        if terms.invited is None or player_id not in terms.invited:
            raise NotYourChallenge(
                f"only a player challenged by name declines challenge {challenge_id!r}"
            )
        seat = loaded.record.players.index(player_id)
        if _held(loaded, seat):
            raise PlayerSeated(f"the player accepted challenge {challenge_id!r} already")
        ended = msgspec.structs.replace(terms, ended="declined", reason=reason, ended_by=player_id)
        if await _ended(services, loaded, ended):
            break
    else:
        raise seat_race_lost(challenge_id)
    return await _told_of_end(services, challenge_id, player_id)


async def cancel(services: PlayerServices, challenge_id: str, player_id: str) -> Challenge:
    """``POST …/cancel``: by its challenger, while it stands."""
    for _ in range(SEAT_ATTEMPTS):
        loaded, terms = _standing_terms(await load(services, challenge_id))
        if terms.challenger != player_id:
            raise NotYourChallenge(f"only its challenger cancels challenge {challenge_id!r}")
        ended = msgspec.structs.replace(terms, ended="canceled", ended_by=player_id)
        if await _ended(services, loaded, ended):
            break
    else:
        raise seat_race_lost(challenge_id)
    return await _told_of_end(services, challenge_id, player_id)


async def _ended(
    services: PlayerServices, loaded: LoadedGame | LoadedTable, terms: ChallengeTerms
) -> bool:
    record = msgspec.structs.replace(loaded.record, challenge=terms)
    return await commit(services, loaded.game_id, loaded.stored_version, Change(record, None))


async def _told_of_end(services: PlayerServices, challenge_id: str, by: str) -> Challenge:
    """After a decline or a cancel: the challenge off the lists, its players told."""
    loaded = await load(services, challenge_id)
    view = await challenge_out(services, loaded)
    terms = loaded.record.challenge
    assert terms is not None
    players = [(seat, p) for seat, p in enumerate(loaded.record.players) if p is not None]
    if terms.invited is None:
        await services.open_challenges.unlist_table(challenge_id)
    for _, player_id in players:
        await services.players.drop_games(player_id, [challenge_id])
    made = []
    for seat, player_id in players:
        if player_id == by:
            continue
        if player_id == terms.challenger and terms.ended == "declined":
            event = _event("challenge_declined", challenge_id, seat, reason=view.reason)
        else:
            event = _event("challenge_canceled", challenge_id, seat)
        made.append((player_id, event))
    await log_events(services.players, services.channels, made)
    return view


def _standing_terms(loaded: LoadedGame | LoadedTable) -> tuple[LoadedTable, ChallengeTerms]:
    """The table and terms of a challenge that stands; 409 naming how it ended otherwise."""
    terms = loaded.record.challenge
    assert terms is not None  # ``_load`` checked
    status = status_of(loaded, terms, game_records.now())
    if status != "open" or not isinstance(loaded, LoadedTable):
        raise ChallengeClosed(f"challenge {loaded.game_id!r} is {status}")
    return loaded, terms


def _held(loaded: LoadedTable, seat: int) -> bool:
    return bool(loaded.record.token_hashes[seat])


def _event(
    kind: Literal["challenge", "challenge_canceled", "challenge_declined"],
    challenge_id: str,
    seat: int,
    *,
    challenge: Challenge | None = None,
    reason: DeclineReason | None = None,
) -> PlayerEvent:
    """A challenge event: its ``game_id`` and ``challenge_id`` are both the challenge's."""
    return PlayerEvent(
        kind, challenge_id, seat, challenge_id=challenge_id, challenge=challenge, reason=reason
    )

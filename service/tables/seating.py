"""A table's seats: open seats claimed by invite code, the lobby, leaving before the deal, the
rematch, and the stream URL a browser follows. (Creating a table is ``service.tables.creation``.)

A table is a game record whose ``table`` (``game_records.Seating``) says who sits where; it
holds no cards. Every change of its seats is one compare-and-set commit of that record, as an
action is (a load and a commit: two round trips on Redis), so two people claiming the last seat
at once cannot both get it: the loser's commit finds the version moved, loads again, and finds
no open seat (409). The commit that takes the last seat deals the first round in the same step.
After each commit the invite code and the lobby (``service.tables.index``) are brought up to date.

A rematch is the table with the id ``rematch_id(game_id)``: every seat that asks, on whichever
instance, creates it if nobody has (the store's create is atomic, so only one creation wins),
then claims its own seat in it, kept for it; the last seat claimed deals. So every caller lands
in the same game, with its own token only.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
from typing import Final

import msgspec
from msgspec import UnsetType

import engine
from engine import game
from service.games import lifecycle as game_flow
from service.games import movers
from service.games import records as game_records
from service.games.acting_seat import ActingSeat
from service.games.commits import Change, commit
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import GameRecord, Seating
from service.games.stream_keys import stream_key
from service.games.to_wire import waiting_view
from service.http import cursors
from service.http.idempotency import Retry, SavedAnswer, encoded
from service.http.problems import (
    GameNotFinished,
    GameNotFound,
    InvalidSeat,
    InviteNotFound,
    RematchTaken,
    SeatKept,
    TableFull,
)
from service.identity.callers import Caller, list_game, myself
from service.storage.game_store import GameExists
from service.tables import invite_codes
from service.tables import waiting_tables as waiting
from service.tables.deps import TableServices
from service.tables.index import LOBBY_LIMIT
from service.tables.seat_changes import (
    Answer,
    SeatHolders,
    claim_answer,
    commit_seats,
    players_with,
    replaced,
    saved_answer,
    seat_race_lost,
)
from service.tables.wire import ClaimRequest, Lobby, StreamUrl, TableOut
from service.vocabulary.names import display_name

SEAT_ATTEMPTS: Final = 40
"""Commits a seat change tries before answering 409: each failure means another seat changed
in between (16 seats at most), so this many only under a storm of joins and leaves."""
_SEED_LIMIT: Final = 2**63
_lobby_decoder: Final = msgspec.json.Decoder(TableOut)


# -- claiming by invite code ----------------------------------------------------------------------


async def claim(
    services: TableServices,
    code_text: str,
    request: ClaimRequest,
    retry: Retry | None = None,
    caller: Caller | None = None,
) -> SavedAnswer:
    """``POST /v1/invites/{code}``: the lowest open seat of the code's table, for the name the
    request gives, or for the calling player (201). With an Idempotency-Key the answer is saved
    in the seat's commit: a retry, or the first attempt's twin on another instance, replays it
    and never takes a second seat."""
    name, player_id = await _claimant(services, request, caller)
    code = canonical_code(code_text)
    game_id = await services.tables.game_of_code(code)
    if game_id is None:
        raise InviteNotFound(f"no table waits with invite code {code} (it may have expired)")
    token = game_records.new_token()
    recall = None if retry is None else retry.stored_key
    for _ in range(SEAT_ATTEMPTS):
        try:
            loaded = await game_flow.load_any(services, game_id, recall=recall)
        except GameNotFound:
            raise InviteNotFound(f"the table of invite code {code} has expired") from None
        if retry is not None and loaded.saved is not None:
            return retry.replayed(loaded.saved)
        if isinstance(loaded, LoadedGame) or loaded.seating.invite_code != code:
            raise TableFull(f"the table of invite code {code} is full: its game has started")
        free = waiting.open_seats(loaded.seating)
        if not free:
            raise TableFull(f"the table of invite code {code} has no open seat left")
        seat = free[0]
        seats = SeatHolders(
            replaced(loaded.seating.names, seat, name),
            replaced(loaded.record.token_hashes, seat, game_records.token_hash(token)),
            players_with(loaded, seat, player_id),
        )
        answer_of = functools.partial(claim_answer, game_id, seat, token)
        answer = None if retry is None else (retry, answer_of)
        if player_id is not None:
            await list_game(services.players, (player_id,), game_id, loaded.record.created)
        record = await commit_seats(services, loaded, seats, answer)
        if record is not None:
            return answer_of(record)
    raise seat_race_lost(game_id)


async def _claimant(
    services: TableServices, request: ClaimRequest, caller: Caller | None
) -> tuple[str, str | None]:
    """The name of the seat a claim asks for, and its player (None for a person by name)."""
    if isinstance(request.me, UnsetType):
        if isinstance(request.name, UnsetType):
            raise InvalidSeat('give {"name": …}, or {"me": true} with a player\'s key')
        return display_name(request.name, "name"), None
    if not isinstance(request.name, UnsetType):
        raise InvalidSeat("a seat for me takes the player's name: send no name with it")
    player = await myself(services.players, caller)
    return player.name, player.player_id


async def lobby(
    services: TableServices, limit: int = LOBBY_LIMIT, cursor: str | None = None
) -> Lobby:
    """``GET /v1/tables``: the listed tables waiting for players, newest change first, a page
    of ``limit`` after ``cursor``."""
    after = None if cursor is None else cursors.position_of(cursor)
    entries, last = await services.tables.page(limit, after)
    return Lobby(
        tables=[_lobby_decoder.decode(e) for e in entries],
        next_cursor=None if last is None else cursors.cursor_of(last),
    )


# -- leaving --------------------------------------------------------------------------------------


async def leave(
    services: TableServices, game_id: str, caller: Caller, retry: Retry | None = None
) -> SavedAnswer:
    """``POST …/leave``: before the deal the seat opens again; during play a ``normal`` bot
    takes it over for the rest of the game. Either way its token and stream key stop working;
    the answer is the public view. A retry with its Idempotency-Key gets that answer again
    (recalled before the token, which no longer works, is checked)."""
    recall = None if retry is None else retry.stored_key
    for _ in range(SEAT_ATTEMPTS):
        loaded = await game_flow.load_any(services, game_id, recall=recall)
        if retry is not None and loaded.saved is not None:
            return retry.replayed(loaded.saved)
        seat = loaded.seat_of(caller)
        if isinstance(loaded, LoadedGame):
            if loaded.state.status != "playing":
                raise engine.errors.GameFinished()
            state = loaded.state
            answer_of = functools.partial(_public_answer, game_id, state)
            handed_over = await _hand_over(
                services, loaded, seat, None if retry is None else (retry, answer_of)
            )
            if handed_over is not None:
                return answer_of(handed_over)
            continue
        if loaded.seating.invite_code is None:
            raise SeatKept("a rematch's seats are kept for the players of the game before")
        seats = SeatHolders(
            replaced(loaded.seating.names, seat, None),
            replaced(loaded.record.token_hashes, seat, b""),
            players_with(loaded, seat, None),
        )
        answer = None if retry is None else (retry, functools.partial(_waiting_answer, game_id))
        record = await commit_seats(services, loaded, seats, answer)
        if record is not None:
            return _waiting_answer(game_id, record)
    raise seat_race_lost(game_id)


def _public_answer(game_id: str, state: game.GameState, record: GameRecord) -> SavedAnswer:
    return SavedAnswer(b"", encoded(game_flow.view_of(game_id, state, None, record)))


def _waiting_answer(game_id: str, record: GameRecord) -> SavedAnswer:
    """The public view of a table after a seat left it (it still waits: a seat is open)."""
    assert record.table is not None  # a seat was opened, so it cannot have been dealt
    return SavedAnswer(b"", encoded(waiting_view(game_id, record.table, None, record.players)))


async def _hand_over(
    services: TableServices, loaded: LoadedGame, seat: int, answer: Answer | None
) -> GameRecord | None:
    """Commit the seat to a ``normal`` bot, its token no longer any seat's; None, changing
    nothing, if the game moved on since it was loaded. On its turn the bot moves at once."""
    before = loaded.record
    seats = len(before.token_hashes)
    bots = replaced(before.bots or (None,) * seats, seat, movers.TAKEOVER_LEVEL)
    away = replaced(before.away, seat, False) if before.away else ()
    record = msgspec.structs.replace(
        before,
        token_hashes=replaced(before.token_hashes, seat, b""),
        bots=bots,
        away=away if any(away) else (),
        players=players_with(loaded, seat, None),
    )
    saved = None if answer is None else saved_answer(answer, record)
    change = Change(record, loaded.state)
    if not await commit(services, loaded.game_id, loaded.stored_version, change, saved=saved):
        return None
    return record


# -- rematch --------------------------------------------------------------------------------------


def rematch_id(game_id: str) -> str:
    """The id of a game's rematch: the same on every instance, for every seat that asks."""
    digest = hashlib.sha256(f"rematch/{game_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


def _rematch_seating(state: game.GameState, record: GameRecord) -> Seating:
    seats = len(state.players)
    return Seating(
        names=tuple(state.players),
        rules=waiting.encoded_rules(state.rules),
        seed=None if state.seed is None else (state.seed + 1) % _SEED_LIMIT,
        first_dealer=(state.first_dealer + 1) % seats,
        invite_code=None,
        listed=False,
        bots=record.bots,
        turn_seconds=record.turn_seconds,
        call_seconds=record.call_seconds,
    )


async def rematch(
    services: TableServices, acting: ActingSeat, retry: Retry | None = None
) -> SavedAnswer:
    """``POST …/rematch``: this seat's place in the finished game's rematch (same players and
    rules, the first deal one seat on), with a token of its own; dealt once every seat asked.
    With an Idempotency-Key the answer (and so the token) is saved in the seat's commit in the
    rematch: a retry whose first answer was lost gets it again."""
    loaded, seat, game_id = acting.loaded, acting.seat, acting.loaded.game_id
    if isinstance(loaded, LoadedTable) or loaded.state.status != "finished":
        raise GameNotFinished(f"game {game_id!r} is not over: a rematch follows a finished game")
    new_id = rematch_id(game_id)
    seating = _rematch_seating(loaded.state, loaded.record)
    empty = GameRecord(
        state=b"",
        token_hashes=(b"",) * len(seating.names),
        created=game_records.now(),
        table=seating,
        players=loaded.record.players,
    )
    # Another seat (on any instance) may have made it first: then this one joins that one.
    await list_game(services.players, empty.players, new_id, empty.created)
    with contextlib.suppress(GameExists):
        await services.store.create(new_id, game_records.encode_record(empty))
    new_token = game_records.new_token()
    recall = None if retry is None else retry.stored_key
    answer_of = functools.partial(claim_answer, new_id, seat, new_token)
    for _ in range(SEAT_ATTEMPTS):
        table = await game_flow.load_any(services, new_id, recall=recall)
        if retry is not None and table.saved is not None:
            return retry.replayed(table.saved)
        if isinstance(table, LoadedGame) or table.record.token_hashes[seat]:
            raise RematchTaken(f"seat {seat} already has its token for the rematch {new_id!r}")
        hashes = replaced(table.record.token_hashes, seat, game_records.token_hash(new_token))
        seats = SeatHolders(table.seating.names, hashes, table.record.players)
        answer = None if retry is None else (retry, answer_of)
        record = await commit_seats(services, table, seats, answer)
        if record is not None:
            return answer_of(record)
    raise seat_race_lost(new_id)


# -- the browser's stream -------------------------------------------------------------------------


def stream_url(acting: ActingSeat, base_url: str) -> StreamUrl:
    """``POST …/stream-url``: the absolute URL of this seat's private stream, with its stream
    key (``service.games.stream_keys``) in the query: what an ``EventSource`` on any origin
    opens."""
    game_id, seat = acting.loaded.game_id, acting.seat
    key = stream_key(game_id, seat, acting.loaded.record.token_hashes[seat])
    return StreamUrl(url=f"{base_url.rstrip('/')}/v1/games/{game_id}/events?key={key}")


def canonical_code(code_text: str) -> str:
    """The invite code ``code_text`` spells, or ``InviteNotFound`` for text that cannot be one."""
    code = invite_codes.normalised(code_text)
    if code is None:
        raise InviteNotFound(
            f"{code_text!r} is not an invite code: eight of {' '.join(invite_codes.ALPHABET)}"
        )
    return code

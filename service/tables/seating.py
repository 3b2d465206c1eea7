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

import asyncio
import base64
import contextlib
import functools
import hashlib
import logging
from collections.abc import Callable
from typing import Final, TypeVar

import msgspec

import engine
from engine import game
from service.games import lifecycle as game_flow
from service.games import movers
from service.games import records as game_records
from service.games.acting_seat import ActingSeat
from service.games.commits import Change, commit
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import GameRecord, Seating, rules_of
from service.games.stream_keys import stream_key
from service.games.to_wire import waiting_view
from service.http.idempotency import Retry, SavedAnswer, encoded
from service.http.problems import (
    GameNotFinished,
    GameNotFound,
    InviteNotFound,
    RematchTaken,
    SeatKept,
    StaleVersion,
    TableFull,
)
from service.storage.game_store import GameExists, StoreUnavailable
from service.tables import invite_codes, lobby_cursor
from service.tables import waiting_tables as waiting
from service.tables.deps import TableServices
from service.tables.index import FULL_CODE_GRACE, LOBBY_LIMIT
from service.tables.wire import Lobby, SeatClaimed, StreamUrl, TableOut
from service.vocabulary.names import display_name

_log = logging.getLogger(__name__)
_V = TypeVar("_V")

SEAT_ATTEMPTS: Final = 40
"""Commits a seat change tries before answering 409: each failure means another seat changed
in between (16 seats at most), so this many only under a storm of joins and leaves."""
_SEED_LIMIT: Final = 2**63
_lobby_decoder: Final = msgspec.json.Decoder(TableOut)


# -- seat changes ---------------------------------------------------------------------------------


async def _commit_seats(
    services: TableServices,
    loaded: LoadedTable,
    names: tuple[str | None, ...],
    hashes: tuple[bytes, ...],
    answer: _Answer | None = None,
) -> GameRecord | None:
    """Store the table with these seats, dealt if every seat is now held; None, changing
    nothing, if the table changed since it was loaded. ``answer`` is the request's retry and
    its answer from the record about to be committed: saved in the same commit."""
    seating = loaded.seating
    record: GameRecord
    state: game.GameState | None = None
    if all(held or (seating.bots and seating.bots[seat]) for seat, held in enumerate(hashes)):
        seated = [name or "" for name in names]
        state = game.new_game(
            seated, rules_of(seating.rules), seating.seed, first_dealer=seating.first_dealer
        )
        record = GameRecord(
            state=game.dumps(state),
            token_hashes=hashes,
            created=loaded.record.created,
            bots=seating.bots,
            turn_seconds=seating.turn_seconds,
            turn_started=game_records.now(),
            call_seconds=seating.call_seconds,
        )
    else:
        record = GameRecord(
            state=b"",
            token_hashes=hashes,
            created=loaded.record.created,
            table=msgspec.structs.replace(seating, names=names),
        )
    saved = None if answer is None else _saved(answer, record)
    change = Change(record, state)
    if not await commit(services, loaded.game_id, loaded.stored_version, change, saved=saved):
        return None
    await _update_indexes(services, loaded.game_id, seating, record.table)
    return record


async def _update_indexes(
    services: TableServices, game_id: str, before: Seating, after: Seating | None
) -> None:
    """The code and the lobby follow a committed seat change: while the table waits, both live
    as long as it does; once it is dealt (``after`` is None) the code answers "full" for
    ``FULL_CODE_GRACE`` and the lobby forgets the table.

    Best effort: the seat is taken (and its token must reach its caller) whether or not they
    can be written, and a code or an entry left behind only ever leads to the record itself."""
    code = before.invite_code
    if code is None:  # a rematch: neither code nor lobby
        return
    index = services.tables
    try:
        if after is None:
            updates = [index.keep_code(code, FULL_CODE_GRACE)]
            if before.listed:
                updates.append(index.unlist_table(game_id))
        else:
            updates = [index.keep_code(code, services.settings.game_ttl)]
            if after.listed:
                updates.append(index.list_table(game_id, waiting.lobby_entry(game_id, after)))
        await asyncio.gather(*updates)
    except StoreUnavailable:
        _log.warning("table %s: invite code and lobby not updated (store unavailable)", game_id)


_Answer = tuple[Retry, Callable[[GameRecord], SavedAnswer]]
"""A request's ``Retry`` and how its answer follows from the record it commits."""


def _saved(answer: _Answer, record: GameRecord) -> tuple[str, bytes]:
    retry, answer_of = answer
    first = answer_of(record)
    return retry.saved(first.body, first.status, first.location)


def _claim_answer(game_id: str, seat: int, token: str, record: GameRecord) -> SavedAnswer:
    return game_flow.created_answer(_claimed(game_id, seat, token, record), game_id)


def _claimed(game_id: str, seat: int, token: str, record: GameRecord) -> SeatClaimed:
    if record.table is None:
        view = game_flow.view_of(game_id, game.loads(record.state), seat, record)
    else:
        view = waiting_view(game_id, record.table, seat)
    return SeatClaimed(game_id=game_id, seat=seat, token=token, view=view)


def _replaced(values: tuple[_V, ...], index: int, value: _V) -> tuple[_V, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _seat_race_lost(game_id: str) -> StaleVersion:
    return StaleVersion(f"the seats of {game_id!r} kept changing while this request was applied")


# -- claiming by invite code ----------------------------------------------------------------------


async def claim(
    services: TableServices, code_text: str, name: str, retry: Retry | None = None
) -> SavedAnswer:
    """``POST /v1/invites/{code}``: the lowest open seat of the code's table, for ``name``
    (201). With an Idempotency-Key the answer is saved in the seat's commit: a retry, or the
    first attempt's twin on another instance, replays it and never takes a second seat."""
    name = display_name(name, "name")
    code = invite_codes.normalised(code_text)
    if code is None:
        raise InviteNotFound(
            f"{code_text!r} is not an invite code: eight of {' '.join(invite_codes.ALPHABET)}"
        )
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
        names = _replaced(loaded.seating.names, seat, name)
        hashes = _replaced(loaded.record.token_hashes, seat, game_records.token_hash(token))
        answer_of = functools.partial(_claim_answer, game_id, seat, token)
        answer = None if retry is None else (retry, answer_of)
        record = await _commit_seats(services, loaded, names, hashes, answer)
        if record is not None:
            return answer_of(record)
    raise _seat_race_lost(game_id)


async def lobby(
    services: TableServices, limit: int = LOBBY_LIMIT, cursor: str | None = None
) -> Lobby:
    """``GET /v1/tables``: the listed tables waiting for players, newest change first, a page
    of ``limit`` after ``cursor``."""
    after = None if cursor is None else lobby_cursor.position_of(cursor)
    entries, last = await services.tables.page(limit, after)
    return Lobby(
        tables=[_lobby_decoder.decode(e) for e in entries],
        next_cursor=None if last is None else lobby_cursor.cursor_of(last),
    )


# -- leaving --------------------------------------------------------------------------------------


async def leave(
    services: TableServices, game_id: str, token: str, retry: Retry | None = None
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
        seat = loaded.seat_of(token)
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
        names = _replaced(loaded.seating.names, seat, None)
        hashes = _replaced(loaded.record.token_hashes, seat, b"")
        answer = None if retry is None else (retry, functools.partial(_waiting_answer, game_id))
        record = await _commit_seats(services, loaded, names, hashes, answer)
        if record is not None:
            return _waiting_answer(game_id, record)
    raise _seat_race_lost(game_id)


def _public_answer(game_id: str, state: game.GameState, record: GameRecord) -> SavedAnswer:
    return SavedAnswer(b"", encoded(game_flow.view_of(game_id, state, None, record)))


def _waiting_answer(game_id: str, record: GameRecord) -> SavedAnswer:
    """The public view of a table after a seat left it (it still waits: a seat is open)."""
    assert record.table is not None  # a seat was opened, so it cannot have been dealt
    return SavedAnswer(b"", encoded(waiting_view(game_id, record.table, None)))


async def _hand_over(
    services: TableServices, loaded: LoadedGame, seat: int, answer: _Answer | None
) -> GameRecord | None:
    """Commit the seat to a ``normal`` bot, its token no longer any seat's; None, changing
    nothing, if the game moved on since it was loaded. On its turn the bot moves at once."""
    before = loaded.record
    seats = len(before.token_hashes)
    bots = _replaced(before.bots or (None,) * seats, seat, movers.TAKEOVER_LEVEL)
    away = _replaced(before.away, seat, False) if before.away else ()
    record = msgspec.structs.replace(
        before,
        token_hashes=_replaced(before.token_hashes, seat, b""),
        bots=bots,
        away=away if any(away) else (),
    )
    saved = None if answer is None else _saved(answer, record)
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
    )
    # Another seat (on any instance) may have made it first: then this one joins that one.
    with contextlib.suppress(GameExists):
        await services.store.create(new_id, game_records.encode_record(empty))
    new_token = game_records.new_token()
    recall = None if retry is None else retry.stored_key
    answer_of = functools.partial(_claim_answer, new_id, seat, new_token)
    for _ in range(SEAT_ATTEMPTS):
        table = await game_flow.load_any(services, new_id, recall=recall)
        if retry is not None and table.saved is not None:
            return retry.replayed(table.saved)
        if isinstance(table, LoadedGame) or table.record.token_hashes[seat]:
            raise RematchTaken(f"seat {seat} already has its token for the rematch {new_id!r}")
        hashes = _replaced(table.record.token_hashes, seat, game_records.token_hash(new_token))
        answer = None if retry is None else (retry, answer_of)
        record = await _commit_seats(services, table, table.seating.names, hashes, answer)
        if record is not None:
            return answer_of(record)
    raise _seat_race_lost(new_id)


# -- the browser's stream -------------------------------------------------------------------------


def stream_url(acting: ActingSeat, base_url: str) -> StreamUrl:
    """``POST …/stream-url``: the absolute URL of this seat's private stream, with its stream
    key (``service.games.stream_keys``) in the query: what an ``EventSource`` on any origin
    opens."""
    game_id, seat = acting.loaded.game_id, acting.seat
    key = stream_key(game_id, seat, acting.loaded.record.token_hashes[seat])
    return StreamUrl(url=f"{base_url.rstrip('/')}/v1/games/{game_id}/events?key={key}")

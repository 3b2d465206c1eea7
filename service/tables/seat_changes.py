"""A change of a table's seats, as every flow of ``service.tables.seating`` commits it: who
holds each seat after it (``SeatHolders``), one compare-and-set commit of the table's record
(dealt if every seat is now held), and the invite code and the lobby brought up to date."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import msgspec

from engine import game
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.commits import Change, commit
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import ChallengeTerms, GameRecord, Seating, rules_of
from service.games.to_wire import waiting_view
from service.http.idempotency import Retry, SavedAnswer
from service.http.problems import PlayerSeated, StaleVersion
from service.storage.game_store import StoreUnavailable
from service.tables import waiting_tables as waiting
from service.tables.deps import TableServices
from service.tables.index import FULL_CODE_GRACE
from service.tables.wire import SeatClaimed

_log = logging.getLogger(__name__)
_V = TypeVar("_V")


class SeatHolders(NamedTuple):
    """Who holds a table's seats after a change: each seat's name (None: open), token hash
    (empty: none) and player (``GameRecord.players``)."""

    names: tuple[str | None, ...]
    hashes: tuple[bytes, ...]
    players: tuple[str | None, ...]


async def commit_seats(
    services: TableServices,
    loaded: LoadedTable,
    seats: SeatHolders,
    answer: Answer | None = None,
) -> GameRecord | None:
    """Store the table with these seats, dealt if every seat is now held; None, changing
    nothing, if the table changed since it was loaded. ``answer`` is the request's retry and
    its answer from the record about to be committed: saved in the same commit."""
    seating = loaded.seating
    names, hashes = seats.names, seats.hashes
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
            players=seats.players,
            challenge=loaded.record.challenge,
            rated=_rated(loaded.record.challenge, seats.players, seating),
        )
    else:
        record = GameRecord(
            state=b"",
            token_hashes=hashes,
            created=loaded.record.created,
            table=msgspec.structs.replace(seating, names=names),
            players=seats.players,
            challenge=loaded.record.challenge,
        )
    saved = None if answer is None else saved_answer(answer, record)
    change = Change(record, state)
    if not await commit(services, loaded.game_id, loaded.stored_version, change, saved=saved):
        return None
    await _update_indexes(services, loaded.game_id, seating, record.table)
    return record


def _rated(
    challenge: ChallengeTerms | None, players: tuple[str | None, ...], seating: Seating
) -> tuple[str, ...]:
    """A rated challenge's game is rated when dealt, each seat a player's or a bot's."""
    if challenge is None or not challenge.rated:
        return ()
    return game_records.rating_ids(players, seating.bots, len(seating.names))


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


Answer = tuple[Retry, Callable[[GameRecord], SavedAnswer]]
"""A request's ``Retry`` and how its answer follows from the record it commits."""


def saved_answer(answer: Answer, record: GameRecord) -> tuple[str, bytes]:
    retry, answer_of = answer
    first = answer_of(record)
    return retry.saved(first.body, first.status, first.location)


def claim_answer(game_id: str, seat: int, token: str, record: GameRecord) -> SavedAnswer:
    return game_flow.created_answer(_claimed(game_id, seat, token, record), game_id)


def _claimed(game_id: str, seat: int, token: str, record: GameRecord) -> SeatClaimed:
    if record.table is None:
        view = game_flow.view_of(game_id, game.loads(record.state), seat, record)
    else:
        view = waiting_view(game_id, record.table, seat, record.players)
    return SeatClaimed(game_id=game_id, seat=seat, token=token, view=view)


def replaced(values: tuple[_V, ...], index: int, value: _V) -> tuple[_V, ...]:
    return (*values[:index], value, *values[index + 1 :])


def seat_race_lost(game_id: str) -> StaleVersion:
    return StaleVersion(f"the seats of {game_id!r} kept changing while this request was applied")


def players_with(
    loaded: LoadedTable | LoadedGame, seat: int, player_id: str | None
) -> tuple[str | None, ...]:
    """The record's seats' players with ``seat`` now ``player_id``'s (None: a person's, by
    token alone); 409 if the player holds another seat already."""
    before = loaded.record.players or (None,) * len(loaded.record.token_hashes)
    if player_id is not None and player_id in before:
        raise PlayerSeated(
            f"the player holds seat {before.index(player_id)} of {loaded.game_id!r} already"
        )
    after = replaced(before, seat, player_id)
    return after if any(after) else ()

"""A game's life through the store: create it, load it (decoding only what this process has
not decoded yet), check a seat's token, and view it. Changing it goes through one commit
(``service.games.commits``); a seat's turn is ``service.games.turns``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import msgspec

import engine
from engine import game
from engine.cards import Card
from engine.errors import StateFormatError
from engine.game.state import GameState, Record, RoundResult
from service.games import calls, movers
from service.games import records as game_records
from service.games.bus import Committed
from service.games.deps import GameServices
from service.games.records import GameRecord, Seating
from service.games.stream_keys import seat_of_stream_key
from service.games.to_wire import call_to_wire, legal_to_wire, view_to_wire, waiting_view
from service.games.wire import (
    DEFAULT_CALL_SECONDS,
    CreateGameRequest,
    GameCreated,
    GameView,
    SeatToken,
)
from service.http import idempotency
from service.http.idempotency import Retry
from service.http.problems import (
    GameNotFound,
    IdempotencyKeyReused,
    TableWaiting,
    UnknownStreamKey,
    UnknownToken,
)
from service.identity.callers import Caller, list_game
from service.operations import metrics
from service.storage.channels import channel_of
from service.storage.game_store import GameExists
from service.vocabulary import to_engine, to_wire
from service.workers.pool import work_for

_encoder: Final = msgspec.json.Encoder()
_NOTHING_SEALED: Final = game.Sealed(0, 0, 0)


def announce(services: GameServices, game_id: str, version: int) -> None:
    """Wake the game's streams after a commit, the notice its new stored version. A store that
    ``announces_commits`` (Redis) did so in the commit's own atomic step, where no crash or
    refused write can part the notice from the action; on memory, publish it here (in this
    process: nothing can lose it)."""
    if not services.store.announces_commits:
        services.channels.publish(str(version).encode(), channel_of(game_id))


class _Seats:
    """Who a request speaks for, from the seats' token hashes and players of a loaded
    record."""

    __slots__ = ()
    game_id: str
    record: GameRecord

    def seat_of(self, caller: Caller) -> int:
        """The seat of the caller's token, or of the caller's player; 401 for neither."""
        seat = game_records.seat_of_token(caller.token, self.record.token_hashes)
        if seat is None and caller.player_id is not None:
            seat = game_records.seat_of_player(caller.player_id, self.record.players)
        if seat is None:
            raise UnknownToken(
                "the token is not one of this game's seats"
                if caller.player_id is None
                else "the player holds no seat in this game"
            )
        return seat

    def viewer(self, caller: Caller | None) -> int | None:
        """The seat ``caller`` names, None for the public (no token), 401 for a bad token."""
        return None if caller is None else self.seat_of(caller)

    def stream_viewer(self, caller: Caller | None, key: str | None) -> int | None:
        """The seat of a stream: a stream key's (``service.games.stream_keys``), else the
        caller's."""
        if key is None:
            return self.viewer(caller)
        seat = seat_of_stream_key(self.game_id, key, self.record.token_hashes)
        if seat is None:
            raise UnknownStreamKey("the stream key is not one of this game's seats", field="key")
        return seat


@dataclass(frozen=True, slots=True)
class LoadedGame(_Seats):
    game_id: str
    stored_version: int
    record: GameRecord
    state: GameState
    saved: bytes | None = None
    """The response saved under the idempotency key the load recalled, if any."""
    sealed: game.Sealed = _NOTHING_SEALED
    """What the store holds of the state apart from its record (its segments)."""

    def view(self, seat: int | None) -> GameView:
        return view_of(self.game_id, self.state, seat, self.record)


@dataclass(frozen=True, slots=True)
class LoadedTable(_Seats):
    """A table still waiting for players: its record holds seating, no game state yet."""

    game_id: str
    stored_version: int
    record: GameRecord
    seating: Seating
    saved: bytes | None = None
    """The answer saved under the idempotency key the load recalled, if any."""

    def view(self, seat: int | None) -> GameView:
        return waiting_view(self.game_id, self.seating, seat, self.record.players)


def shared_view(
    services: GameServices, loaded: LoadedGame | LoadedTable, seat: int | None
) -> GameView:
    """The game as ``seat`` (None: the public) sees it: built once per version in this process
    (``DecodedGames.view``) and shared by every viewer of that seat, the public's by the
    players' lists too."""
    if isinstance(loaded, LoadedTable):
        return loaded.view(seat)
    return services.decoded.view(
        loaded.game_id, loaded.stored_version, loaded.state, seat, lambda: loaded.view(seat)
    )


def view_of(game_id: str, state: GameState, seat: int | None, record: GameRecord) -> GameView:
    """The wire view, its players marked bot or away as ``record`` says; a seat's view lists
    its legal actions (at most one analysis of its hand: ``engine.game.legal_actions``' go-out
    check)."""
    rules = to_wire.game_rules_to_wire(state.rules)
    if seat is None:
        seen, legal = game.public_view(state), None
    else:
        seen, legal = game.view(state, seat), legal_to_wire(game.legal_actions(state, seat))
    view = view_to_wire(game_id, seen, seat, rules, legal)
    players = movers.seated_players(view.players, record)
    if seen.call is not None:
        call = call_to_wire(seen.call, calls.deadline_text(record, state.version))
        return msgspec.structs.replace(view, players=players, call=call)
    return view if players is view.players else msgspec.structs.replace(view, players=players)


def call_seconds_of(rules: engine.Rules, asked: int | None) -> int | None:
    """A game's time per call: what its creation asked, or the default in a speed game."""
    if rules.turns != "speed":
        return None
    return DEFAULT_CALL_SECONDS if asked is None else asked


async def create_game(
    services: GameServices,
    request: CreateGameRequest,
    names: list[str],
    bots: tuple[str | None, ...] = (),
    *,
    given: tuple[int | None, Mapping[int, game.Deal]] | None = None,
    retry: Retry | None = None,
    players: tuple[str | None, ...] = (),
    game_id: str | None = None,
    rated: bool = False,
    tournament: str | None = None,
) -> idempotency.SavedAnswer:
    """A game whose every seat is named (``names``), some perhaps bots (``bots``, each seat's
    level or None): dealt at once, every person's token in the answer (201). ``players``: each
    seat's player (``service.identity``), the game listed as theirs; ``rated``: asked rated (it
    is, when every seat is a player's or a bot's: ``GameRecord.rated``).
    ``given``: the first dealer and the deals by round (``service.records.given``).
    (``service.tables.creation.create`` decides; a table with open seats waits instead.)
    With an Idempotency-Key the game's id is the key's and its answer is saved with it; a
    ``game_id`` given is the game's (``GameExists`` if it was made before); ``tournament``: the
    tournament it is a table of (``GameRecord.tournament``)."""
    rules = to_engine.game_rules_from_wire(
        request.rules, request.call_seconds, request.turn_seconds
    )
    first_dealer, deals = (None, None) if given is None else given
    state = game.new_game(names, rules, request.seed, first_dealer=first_dealer, deals=deals)
    tokens = [
        None if bots and bots[seat] else game_records.new_token() for seat in range(len(names))
    ]
    parts = game.dumps_parts(state, _NOTHING_SEALED)
    created = game_records.now()
    record = GameRecord(
        state=parts.head,
        token_hashes=tuple(b"" if t is None else game_records.token_hash(t) for t in tokens),
        created=created,
        bots=bots if any(bots) else (),
        turn_seconds=request.turn_seconds,
        turn_started=created,
        call_seconds=call_seconds_of(rules, request.call_seconds),
        players=players if any(players) else (),
        rated=game_records.rating_ids(players, bots, len(names)) if rated else (),
        tournament=tournament,
    )
    encoded = game_records.encode_record(record)
    fixed_id = game_id
    while True:
        if fixed_id is not None:
            game_id = fixed_id
        elif retry is None:
            game_id = game_records.new_game_id()
        else:
            game_id = idempotency.derived_id(retry)
        answer = created_answer(
            GameCreated(
                game_id=game_id,
                seats=[
                    SeatToken(seat=seat, name=name, token=token)
                    for seat, (name, token) in enumerate(zip(names, tokens, strict=True))
                    if token is not None
                ],
                invite_code=None,
                view=view_of(game_id, state, None, record),
                seed_key=request.seed_key,
            ),
            game_id,
        )
        await list_game(services.players, players, game_id, created)
        try:
            await services.store.create(
                game_id,
                encoded,
                segments=game_records.segments_of(parts),
                idempotency=None
                if retry is None
                else retry.saved(answer.body, answer.status, answer.location),
                due=movers.entry_due(record, state),
            )
            break
        except GameExists:
            if retry is not None:  # this request's first attempt made it
                return await created_before(services, game_id, retry)
            if fixed_id is not None:
                raise
            continue  # 96 random bits: practically never, but never overwrite a game
    metrics.GAMES_CREATED.labels(preset=rules.preset).inc()
    services.bus.publish(Committed(game_id, record, state))
    return answer


def created_answer(answer: msgspec.Struct, game_id: str) -> idempotency.SavedAnswer:
    """A 201 answer (a game created, a seat claimed), with the ``Location`` of the game it made
    or seated the caller in (not yet fingerprinted: ``Retry.saved`` adds that)."""
    return idempotency.SavedAnswer(b"", idempotency.encoded(answer), 201, f"/v1/games/{game_id}")


async def created_before(
    services: GameServices, game_id: str, retry: Retry
) -> idempotency.SavedAnswer:
    """The saved answer of a create whose id is its key's (the game exists already)."""
    data = await services.store.recall(game_id, retry.stored_key)
    if data is None:  # the answer expired before the game did
        raise IdempotencyKeyReused(
            "this Idempotency-Key made a game whose answer is no longer kept: use a new key",
            field="Idempotency-Key",
        )
    return retry.replayed(data)


async def load_any(
    services: GameServices, game_id: str, *, recall: str | None = None
) -> LoadedGame | LoadedTable:
    """The game, or the table still waiting for players (with ``recall``, and the answer saved
    under that idempotency key)."""
    return await _load(services, game_id, recall)


async def load_game(
    services: GameServices,
    game_id: str,
    *,
    recall: str | None = None,
    caller: Caller | None = None,
) -> LoadedGame:
    """A game in play or finished; 409 for a table still waiting. With the caller of the
    request, a waiting table checks it first: a token that is none of its seats' is a 401
    whatever the table's state, as it is for a game in play."""
    loaded = await _load(services, game_id, recall)
    if isinstance(loaded, LoadedTable) and caller is not None:
        loaded.seat_of(caller)
    return dealt(loaded)


def dealt(loaded: LoadedGame | LoadedTable) -> LoadedGame:
    """The game; 409 for a table still waiting for players."""
    if isinstance(loaded, LoadedTable):
        raise TableWaiting(
            f"game {loaded.game_id!r} waits for players: it is dealt once every open seat is taken"
        )
    return loaded


async def _load(
    services: GameServices, game_id: str, recall: str | None
) -> LoadedGame | LoadedTable:
    """The game, decoded from its record and segments, or the table still waiting. Only the
    segments this process has not decoded yet are read: those of the last state it decoded of
    the game are its first ones."""
    earlier = services.decoded.latest(game_id)
    known = _NOTHING_SEALED if earlier is None else game.sealed_of(earlier)
    stored = await services.store.load(game_id, recall=recall, segments_from=sum(known))
    if stored is None:
        raise GameNotFound(f"no game {game_id!r} (it may have expired)")
    record = game_records.decode_record(stored.record)
    # This task's work for the worker processes (its bots' decisions) from now on: a game of
    # bots only waits behind every game a person plays in.
    work_for(bots_only=bool(record.bots) and all(record.bots))
    if record.table is not None:
        return LoadedTable(game_id, stored.version, record, record.table, stored.saved)
    state = services.decoded.get(game_id, record.state)
    if state is None:
        try:
            state = await _decoded(record.state, stored.segments, earlier, known)
        except StateFormatError:
            if earlier is None:
                raise
            # The earlier state was not this game's prefix after all (an id reused after its
            # game expired): read the whole game.
            stored = await services.store.load(game_id, recall=recall) or stored
            state = await _decoded(record.state, stored.segments, None, _NOTHING_SEALED)
        services.decoded.put(game_id, record.state, state)
    sealed = game.sealed_of(state) if _in_parts(record.state) else _NOTHING_SEALED
    return LoadedGame(game_id, stored.version, record, state, stored.saved, sealed)


def _in_parts(head: bytes) -> bool:
    """Whether the record holds a head of parts, or a whole state as written before parts
    (a quote inside a JSON string is escaped, so only the key can spell this)."""
    return b',"sealed":[' in head


SEGMENTS_PER_SLICE: Final = 8
"""Segments decoded between two turns of the event loop: the first load of a long game in a
process decodes hundreds (tens of thousands of actions), which must not hold other requests."""


async def _decoded(
    head: bytes, segments: tuple[bytes, ...], earlier: GameState | None, known: game.Sealed
) -> GameState:
    if not _in_parts(head):
        return game.loads(head)
    chunks: list[tuple[Record, ...]] = []
    packs: list[tuple[Card, ...]] = []
    results: list[RoundResult] = []
    for start in range(0, len(segments), SEGMENTS_PER_SLICE):
        if start:
            await asyncio.sleep(0)
        more = game_records.decoded_segments(segments[start : start + SEGMENTS_PER_SLICE])
        chunks += more.chunks
        packs += more.packs
        results += more.results
    if earlier is not None:
        chunks[:0] = earlier.records[: known.chunks]
        packs[:0] = earlier.shuffles[: known.packs]
        results[:0] = earlier.results[: known.results]
    return game.loads_parts(head, chunks, packs, results)

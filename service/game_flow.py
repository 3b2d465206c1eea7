"""A game's life through the store: create, load with a seat's token, take a turn.

Taking a turn is load → check the token → (a retried Idempotency-Key answers from its saved
response) → ``engine.game.apply`` → one compare-and-set commit that also saves the response for
the key → publish the new version. Two actions racing for the same version cannot both commit;
the loser answers 409 and nothing of it is applied.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

import msgspec

from engine import game
from engine.cards import Card
from engine.errors import StateFormatError
from engine.game.state import GameState, Record
from service import game_records, metrics, translate, wire
from service.game_records import GameRecord, SavedResponse
from service.names import display_name
from service.problems import (
    GameNotFound,
    IdempotencyKeyReused,
    MissingToken,
    StaleVersion,
    UnknownToken,
)
from service.services import Services
from service.store import GameExists

_BEARER: Final = "bearer "
_encoder: Final = msgspec.json.Encoder()
_NOTHING_SEALED: Final = game.Sealed(0, 0)


def channel_of(game_id: str) -> str:
    return f"game:{game_id}"


def token_from_header(authorization: str | None) -> str | None:
    """The token of ``Authorization: Bearer <token>``; None when the header is absent."""
    if authorization is None:
        return None
    if not authorization[: len(_BEARER)].lower() == _BEARER or not authorization[7:].strip():
        raise MissingToken("the Authorization header must be 'Bearer <token>'")
    return authorization[len(_BEARER) :].strip()


@dataclass(frozen=True, slots=True)
class LoadedGame:
    game_id: str
    stored_version: int
    record: GameRecord
    state: GameState
    saved: bytes | None = None
    """The response saved under the idempotency key the load recalled, if any."""
    sealed: game.Sealed = _NOTHING_SEALED
    """What the store holds of the state apart from its record (its segments)."""

    def seat_of(self, token: str) -> int:
        seat = game_records.seat_of_token(token, self.record.token_hashes)
        if seat is None:
            raise UnknownToken("the token is not one of this game's seats")
        return seat

    def viewer(self, authorization: str | None) -> int | None:
        """The seat the Authorization header names, None for the public, 401 for a bad token."""
        token = token_from_header(authorization)
        return None if token is None else self.seat_of(token)

    def view(self, seat: int | None) -> wire.GameView:
        return view_of(self.game_id, self.state, seat)


def view_of(game_id: str, state: GameState, seat: int | None) -> wire.GameView:
    shown = game.public_view(state) if seat is None else game.view(state, seat)
    return translate.view_to_wire(game_id, shown)


async def create_game(services: Services, request: wire.CreateGameRequest) -> wire.GameCreated:
    rules = translate.rules_from_wire(request.rules)
    names = [
        display_name(p.name, f"players[{seat}].name") for seat, p in enumerate(request.players)
    ]
    state = game.new_game(names, rules, request.seed)
    tokens = [game_records.new_token() for _ in names]
    parts = game.dumps_parts(state, _NOTHING_SEALED)
    record = GameRecord(
        state=parts.head,
        token_hashes=tuple(game_records.token_hash(t) for t in tokens),
        created=game_records.now(),
    )
    encoded = game_records.encode_record(record)
    while True:
        game_id = game_records.new_game_id()
        try:
            await services.store.create(game_id, encoded, segments=game_records.segments_of(parts))
            break
        except GameExists:  # 96 random bits: practically never, but never overwrite a game
            continue
    metrics.GAMES_CREATED.labels(preset=rules.preset).inc()
    return wire.GameCreated(
        game_id=game_id,
        seats=[
            wire.SeatToken(seat=seat, name=name, token=token)
            for seat, (name, token) in enumerate(zip(names, tokens, strict=True))
        ],
        view=view_of(game_id, state, None),
    )


async def load_game(services: Services, game_id: str, *, recall: str | None = None) -> LoadedGame:
    """The game, decoded from its record and segments. Only the segments this process has not
    decoded yet are read: those of the last state it decoded of the game are its first ones."""
    earlier = services.decoded.latest(game_id)
    known = _NOTHING_SEALED if earlier is None else game.sealed_of(earlier)
    stored = await services.store.load(game_id, recall=recall, segments_from=sum(known))
    if stored is None:
        raise GameNotFound(f"no game {game_id!r} (it may have expired)")
    record = game_records.decode_record(stored.record)
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
    for start in range(0, len(segments), SEGMENTS_PER_SLICE):
        if start:
            await asyncio.sleep(0)
        more_chunks, more_packs = game_records.decoded_segments(
            segments[start : start + SEGMENTS_PER_SLICE]
        )
        chunks += more_chunks
        packs += more_packs
    if earlier is not None:
        chunks[:0] = earlier.records[: known.chunks]
        packs[:0] = earlier.shuffles[: known.packs]
    return game.loads_parts(head, chunks, packs)


async def take_turn(
    services: Services,
    game_id: str,
    authorization: str | None,
    idempotency_key: str | None,
    request: wire.ActionRequest,
) -> bytes:
    """Apply one action; the JSON of the seat's new view (or of the first response to this
    Idempotency-Key)."""
    token = token_from_header(authorization)
    if token is None:
        raise MissingToken("send the seat's token as 'Authorization: Bearer <token>'")
    # Keys are per seat: named by the token's hash, so the load can fetch a saved response in
    # the same round trip, before the token has been matched to its seat.
    saved_key = (
        None
        if idempotency_key is None
        else f"{game_records.token_hash(token).hex()[:32]}:{idempotency_key}"
    )
    loaded = await load_game(services, game_id, recall=saved_key)
    seat = loaded.seat_of(token)
    # The decoded request, re-encoded: the same action sent with other spacing or key order is
    # the same request.
    fingerprint = game_records.fingerprint(_encoder.encode(request))
    if loaded.saved is not None:
        return _replay(loaded.saved, fingerprint)
    if request.expected_version is not None and request.expected_version != loaded.state.version:
        raise StaleVersion(
            f"expected_version is {request.expected_version} but the game is at version "
            f"{loaded.state.version}",
            field="expected_version",
        )
    action = translate.action_from_wire(request)
    state = game.apply(loaded.state, seat, action)
    response = _encoder.encode(view_of(game_id, state, seat))
    parts = game.dumps_parts(state, loaded.sealed)
    serialised = parts.head
    record = GameRecord(
        state=serialised,
        token_hashes=loaded.record.token_hashes,
        created=loaded.record.created,
    )
    idempotency = (
        None
        if saved_key is None
        else (saved_key, game_records.encode_saved(SavedResponse(fingerprint, response)))
    )
    committed = await services.store.commit(
        game_id,
        loaded.stored_version,
        game_records.encode_record(record),
        segments=game_records.segments_of(parts),
        idempotency=idempotency,
    )
    if not committed:
        # Another request won the race. If it was this very request's first attempt, its
        # response is saved under the key by now.
        if saved_key is not None:
            replayed = await _recall(services, game_id, saved_key, fingerprint)
            if replayed is not None:
                return replayed
        raise StaleVersion(
            f"the game moved on from version {loaded.state.version} while this action was "
            "applied; load it again"
        )
    services.decoded.put(game_id, serialised, state)
    metrics.ACTIONS_APPLIED.labels(type=request.__struct_config__.tag).inc()
    services.channels.publish(str(state.version).encode(), channel_of(game_id))
    return response


async def _recall(services: Services, game_id: str, key: str, fingerprint: bytes) -> bytes | None:
    data = await services.store.recall(game_id, key)
    return None if data is None else _replay(data, fingerprint)


def _replay(data: bytes, fingerprint: bytes) -> bytes:
    """The saved first response, if this request is the one that was saved with its key."""
    saved = game_records.decode_saved(data)
    if saved.fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first sent with a different body: use a new key for a "
            "new action",
            field="Idempotency-Key",
        )
    metrics.ACTIONS_REPLAYED.inc()
    return saved.body

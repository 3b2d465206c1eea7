"""What the store keeps for a game, as msgspec-encoded bytes (a saved answer is
``service.http.idempotency``'s).

A game record holds the engine's serialised state (which contains secrets: every hand, the stock,
the seed), the SHA-256 hash of each seat's token (never the token), and when it was created. Only
the service ever decodes it; no response is built from it except through the engine's views.

The state is written in parts (``engine.game.dumps_parts``): the record holds its head, of a
bounded size however long the game, and the full chunks of its history, the packs dealt and
each deal's result are segments the store appends once, each tagged with its kind
(``segments_of``). So an action writes its head and at most a chunk, a pack and a result, not
the whole growing history.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Iterable
from functools import lru_cache
from typing import Final, NamedTuple

import msgspec

import engine
from engine import game
from engine.cards import Card
from engine.errors import StateFormatError
from engine.game import Record, RoundResult, StateParts

TOKEN_BYTES: Final = 32
"""256 random bits per seat token (the contract asks for at least 128)."""


class Seating(msgspec.Struct, frozen=True, array_like=True):
    """A table waiting for players (``service.tables.seating``): what the deal will need."""

    names: tuple[str | None, ...]
    """Each seat's player; None for an open seat, which anyone with the invite code may claim."""
    rules: bytes
    """The JSON of the game's complete rules (``Rules.to_spec``)."""
    seed: int | None
    first_dealer: int
    invite_code: str | None
    """None for a rematch, whose seats are kept for the players of the game before."""
    listed: bool
    bots: tuple[str | None, ...] = ()
    """Each seat's bot level, None for a person (``service.games.movers``); empty: no bots."""
    turn_seconds: int | None = None
    """The turn clock (``service.games.movers``), None for none."""
    call_seconds: int | None = None
    """A speed game's time per call (``service.games.calls``); None for a game in turns."""


class ChallengeTerms(msgspec.Struct, frozen=True, array_like=True):
    """What a challenge (``service.players.challenges``) asked, kept with its table and, once
    dealt, with its game: who challenged whom, until when, and how it ended if not by a deal."""

    challenger: str
    """The player who made it (seat 0)."""
    invited: tuple[str, ...] | None
    """The players challenged by name, each with a seat kept for them; None: an open challenge,
    whose open seats anyone may take."""
    expires: float
    """Unix time after which it can no longer be accepted."""
    rated: bool
    ended: str = ""
    """``declined`` or ``canceled``; empty while it stands (or once its game is dealt)."""
    reason: str | None = None
    """Why it was declined."""
    ended_by: str | None = None
    """The player who declined or canceled it."""


class GameRecord(msgspec.Struct, frozen=True, array_like=True):
    state: bytes
    """``engine.game.dumps`` of the state; empty while the table waits."""
    token_hashes: tuple[bytes, ...]
    """SHA-256 of each seat's token, seat 0 first; empty for a seat nobody holds yet."""
    created: float
    """Unix time of creation."""
    table: Seating | None = None
    """While seats are open, before the deal; None once the first round is dealt."""
    bots: tuple[str | None, ...] = ()
    """Each seat's bot level, None for a person; empty when no seat is a bot. A bot's seat has
    no token (an empty hash). ``service.games.movers`` reads these four fields."""
    away: tuple[bool, ...] = ()
    """Each seat whose turn the clock played for it, until its token acts again; empty: none."""
    turn_seconds: int | None = None
    """The turn clock: a person's turn not done this many seconds after it started is played
    for them by a ``normal`` bot. None: no clock."""
    turn_started: float = 0.0
    """Unix time the current turn started (the seat on turn changed, or a round was dealt); in
    a speed game, the current call (its deadline is this plus ``call_seconds``)."""
    call_seconds: int | None = None
    """A speed game's caller: the time per call (``service.games.calls``). None: in turns."""
    ended_calls: tuple[tuple[int, float], ...] = ()
    """A speed game's last calls before the open one (at most ``service.games.calls.CALLS_KEPT``),
    oldest first: the version that ended each, and when it had started. A view of an earlier
    version shows its own call's deadline from them."""
    finished: float | None = None
    """Unix time of the commit that ended the game, whoever made its last move (``stamped``);
    None while it is played, and in games stored before the stamp existed (``finished_at``)."""
    players: tuple[str | None, ...] = ()
    """Each seat's player (``service.identity``), None for a seat held by its token alone;
    empty when no seat is a player's. A player's key acts for the player's seat."""
    challenge: ChallengeTerms | None = None
    """The challenge that made this table (and then game); None for any other."""
    rated: tuple[str, ...] = ()
    """A rated game (``service.ratings``): each seat's rating id, fixed when it was dealt (the
    seat's player, or ``bot-<level>`` for a computer player's seat); empty for an unrated game.
    A game is rated when it was asked rated (a challenge or a seek with ``rated: true``) and
    every seat was a player's or a built-in level's at the deal (``rating_ids``)."""
    tournament: str | None = None
    """The tournament this game is a table of (``service.tournaments``); None for any other."""


BOT_PLAYER_PREFIX: Final = "bot-"
"""A built-in level's player id is the level's name after this (``bot-hard``)."""


def rating_ids(
    players: tuple[str | None, ...], bots: tuple[str | None, ...], seats: int
) -> tuple[str, ...]:
    """Each seat's rating id for a rated game: its player, or ``bot-<level>`` for a computer
    player's seat; empty when a seat is neither (held by a token alone): such a game is
    unrated."""
    ids = []
    for seat in range(seats):
        player = players[seat] if players else None
        level = bots[seat] if bots else None
        if player is not None:
            ids.append(player)
        elif level is not None:
            ids.append(BOT_PLAYER_PREFIX + level)
        else:
            return ()
    return tuple(ids)


def seat_of_player(player_id: str, players: tuple[str | None, ...]) -> int | None:
    """The seat ``player_id`` holds, or None (a player holds at most one seat of a game)."""
    return players.index(player_id) if player_id in players else None


def stamped(record: GameRecord, *, finished: bool) -> GameRecord:
    """The record with the time the game ended, when this commit ends it."""
    if finished and record.finished is None:
        return msgspec.structs.replace(record, finished=now())
    return record


def finished_at(record: GameRecord) -> float:
    """When a finished game ended: its stamp, or for a game stored without one, the start of
    the turn or call that ended it (within a turn's time of the end)."""
    return record.turn_started if record.finished is None else record.finished


CHUNK_TAG: Final = b"c"
PACK_TAG: Final = b"p"
RESULT_TAG: Final = b"r"


def segments_of(parts: StateParts) -> tuple[bytes, ...]:
    """The parts newly sealed, as the store appends them: tag, then the part's JSON."""
    return (
        *(CHUNK_TAG + chunk.encode() for chunk in parts.chunks),
        *(PACK_TAG + pack.encode() for pack in parts.packs),
        *(RESULT_TAG + result.encode() for result in parts.results),
    )


class Segments(NamedTuple):
    """The parts of stored segments, decoded, each kind in order."""

    chunks: list[tuple[Record, ...]]
    packs: list[tuple[Card, ...]]
    results: list[RoundResult]


def decoded_segments(segments: Iterable[bytes]) -> Segments:
    """The chunks, packs and results of stored segments, decoded, each kind in order."""
    decoded = Segments([], [], [])
    for segment in segments:
        tag, text = segment[:1], segment[1:]
        if tag == CHUNK_TAG:
            decoded.chunks.append(game.chunk_in(text))
        elif tag == PACK_TAG:
            decoded.packs.append(game.pack_in(text))
        elif tag == RESULT_TAG:
            decoded.results.append(game.result_in(text))
        else:
            raise StateFormatError(f"stored game segment of unknown kind {tag!r}")
    return decoded


_record_encoder: Final = msgspec.msgpack.Encoder()
_record_decoder: Final = msgspec.msgpack.Decoder(GameRecord)


def encode_record(record: GameRecord) -> bytes:
    return _record_encoder.encode(record)


def decode_record(data: bytes) -> GameRecord:
    return _record_decoder.decode(data)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def seat_of_token(token: str, hashes: tuple[bytes, ...]) -> int | None:
    """The seat whose token this is, or None. Every hash is compared, in constant time, so the
    time taken says nothing about which seat (if any) matched."""
    candidate = token_hash(token)
    found: int | None = None
    for seat, stored in enumerate(hashes):  # an empty hash (no holder) never matches
        if hmac.compare_digest(candidate, stored):
            found = seat
    return found


def new_game_id() -> str:
    return secrets.token_urlsafe(12)


def now() -> float:
    return time.time()


@lru_cache(maxsize=256)
def rules_of(encoded: bytes) -> engine.Rules:
    """A seating's rules (their JSON, as stored), decoded once per process."""
    return engine.Rules.from_spec(msgspec.json.decode(encoded))

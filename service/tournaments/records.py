"""What the store keeps of a tournament: one record, replaced whole by each change (a
compare-and-set: ``service.tournaments.store``), msgpack-encoded."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Final, Literal

import msgspec

from service.tournaments.pairing import Pairing

Format = Literal["round_robin", "swiss"]
Status = Literal["open", "running", "finished"]


class Entrant(msgspec.Struct, frozen=True, array_like=True):
    player_id: str
    name: str
    level: str | None = None
    """A built-in computer player's level (``bot-<level>``), seated as a bot; None for a
    player."""


class TableRecord(msgspec.Struct, frozen=True, array_like=True):
    game_id: str
    entrants: tuple[int, ...]
    """Each seat's entrant (its index in ``TournamentRecord.entrants``), seat 0 first."""
    scores: tuple[int, ...] | None = None
    """Each seat's final total, once the game is over."""


class RoundRecord(msgspec.Struct, frozen=True, array_like=True):
    tables: tuple[TableRecord, ...]
    byes: tuple[int, ...]
    started: float
    deal_seed: int | None = None
    """A duplicate round's seed: every table's deals are shuffled from it
    (``engine.records.shuffled_deals``), table ``t`` rotated ``t`` seats on."""

    @property
    def pairing(self) -> Pairing:
        return Pairing(tuple(t.entrants for t in self.tables), self.byes)

    @property
    def over(self) -> bool:
        return all(t.scores is not None for t in self.tables)


class TournamentRecord(msgspec.Struct, frozen=True, array_like=True):
    tournament_id: str
    name: str
    creator: str
    rules: bytes
    """The rules' JSON (``engine.Rules.to_spec``)."""
    format: Format
    rounds: int | None
    """The rounds asked for; None: as many as the format needs (``planned`` at the start)."""
    table_size: int
    duplicate: bool
    starts_at: float
    turn_seconds: int
    open_registration: bool
    entrants: tuple[Entrant, ...]
    created: float
    status: Status = "open"
    planned: int = 0
    """The rounds it plays, fixed when it starts."""
    played: tuple[RoundRecord, ...] = ()
    finished: float | None = None
    note: str | None = None
    """Why a tournament finished without playing (too few entrants at its start)."""
    rated: bool = True
    """Its games are created rated (``GameRecord.rated``): each seat's rating moves."""


_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(TournamentRecord)


def encode(record: TournamentRecord) -> bytes:
    return _encoder.encode(record)


def decode(data: bytes) -> TournamentRecord:
    return _decoder.decode(data)


def new_tournament_id() -> str:
    return secrets.token_urlsafe(12)


def _derived(text: str) -> bytes:
    return hashlib.sha256(f"three-thirteen/tournament/{text}".encode()).digest()


def game_id_of(tournament_id: str, round_index: int, table: int) -> str:
    """A round's table's game id: fixed by its place, so two instances making the same round
    make the same games (the second finds them made)."""
    return base64.urlsafe_b64encode(
        _derived(f"{tournament_id}/{round_index}/{table}")[:12]
    ).decode()


def deal_seed_of(tournament_id: str, round_index: int) -> int:
    """A duplicate round's deal seed, fixed by the round."""
    return int.from_bytes(_derived(f"{tournament_id}/{round_index}/deals")[:8], "big")

"""What a table waiting for players is: its seats from the creation's specs, its view, its entry
in the lobby. (The flows that change it are in ``service.tables.seating``.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import msgspec
from msgspec import UNSET, UnsetType

import engine
from engine import bots
from service.games.records import Seating, rules_of
from service.games.wire import PlayerIn
from service.http.problems import InvalidSeat, UnknownBotLevel
from service.tables.wire import TableOut, TableSeatOut

_encoder: Final = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class NamedSeat:
    """A person seated at creation."""

    name: str


@dataclass(frozen=True, slots=True)
class MeSeat:
    """The caller, a player, seated at creation (``{"me": true}``)."""


@dataclass(frozen=True, slots=True)
class OpenSeat:
    """A seat someone claims later with the invite code."""


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A computer player (``service.bots.turns`` makes its moves); seated from the start."""

    level: str
    name: str | None


SeatSpec = NamedSeat | MeSeat | OpenSeat | BotSeat


def seat_spec(player: PlayerIn, index: int) -> SeatSpec:
    """One entry of ``players`` as the seat it asks for; 422 naming it unless it is exactly one
    of ``{"name"}``, ``{"me": true}``, ``{"open": true}``, ``{"bot": level, "name"?}``."""
    field = f"players[{index}]"
    name = None if isinstance(player.name, UnsetType) else player.name
    if not isinstance(player.me, UnsetType):
        if (name, player.open, player.bot) != (None, UNSET, UNSET):
            raise InvalidSeat(
                f"{field}: a seat for me takes the player's name, and is neither open nor a bot",
                field=field,
            )
        return MeSeat()
    if not isinstance(player.bot, UnsetType):
        if not isinstance(player.open, UnsetType):
            raise InvalidSeat(f"{field}: a seat is a bot or open, not both", field=field)
        if player.bot not in bots.LEVELS:
            raise UnknownBotLevel(
                f"{field}.bot: no computer player of level {player.bot!r}; the levels are "
                f"{', '.join(bots.LEVELS)}",
                field=f"{field}.bot",
            )
        return BotSeat(player.bot, name)
    if not isinstance(player.open, UnsetType):
        if name is not None:
            raise InvalidSeat(
                f"{field}: an open seat has no name yet (whoever claims it names it)", field=field
            )
        return OpenSeat()
    if name is None:
        raise InvalidSeat(
            f'{field}: give {{"name": …}}, {{"me": true}}, {{"open": true}} or {{"bot": level}}',
            field=field,
        )
    return NamedSeat(name)


def encoded_rules(rules: engine.Rules) -> bytes:
    return _encoder.encode(rules.to_spec())


def open_seats(seating: Seating) -> list[int]:
    return [seat for seat, name in enumerate(seating.names) if name is None]


def bot_name(level: str, seat: int) -> str:
    """A bot seat's name when its spec gives none."""
    return f"{level.capitalize()} bot {seat + 1}"


def lobby_entry(game_id: str, seating: Seating) -> bytes:
    """The JSON of the table's ``TableOut``, as the lobby index keeps it."""
    assert seating.invite_code is not None  # only tables with a code are listed
    taken = sum(name is not None for name in seating.names)
    rules = rules_of(seating.rules)
    return _encoder.encode(
        TableOut(
            game_id=game_id,
            invite_code=seating.invite_code,
            preset=rules.preset,
            turns=rules.turns,
            seats=[
                TableSeatOut(
                    seat=seat,
                    name=name,
                    open=name is None,
                    bot=seating.bots[seat] if seating.bots else None,  # type: ignore[arg-type]
                )
                for seat, name in enumerate(seating.names)
            ],
            seats_taken=taken,
            seats_open=len(seating.names) - taken,
        )
    )

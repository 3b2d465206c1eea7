"""What a table waiting for players is: its seats from the creation's specs, its view, its entry
in the lobby. (The flows that change it are in ``service.tables.seating``.)"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import msgspec
from msgspec import UnsetType

import engine
from engine import bots, game
from service.games.records import GameRecord, Seating
from service.games.wire import GameView, PlayerIn, PlayerOut
from service.http.problems import InvalidSeat, UnknownBotLevel
from service.tables.wire import TableOut, TableSeatOut
from service.vocabulary import to_wire

_encoder: Final = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class NamedSeat:
    """A person seated at creation."""

    name: str


@dataclass(frozen=True, slots=True)
class OpenSeat:
    """A seat someone claims later with the invite code."""


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A computer player (``service.bots.turns`` makes its moves); seated from the start."""

    level: str
    name: str | None


SeatSpec = NamedSeat | OpenSeat | BotSeat


def seat_spec(player: PlayerIn, index: int) -> SeatSpec:
    """One entry of ``players`` as the seat it asks for; 422 naming it unless it is exactly one
    of ``{"name"}``, ``{"open": true}``, ``{"bot": level, "name"?}``."""
    field = f"players[{index}]"
    name = None if isinstance(player.name, UnsetType) else player.name
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
            f'{field}: give {{"name": …}}, {{"open": true}} or {{"bot": level}}', field=field
        )
    return NamedSeat(name)


@lru_cache(maxsize=256)
def rules_of(encoded: bytes) -> engine.Rules:
    """A seating's rules (their JSON, as stored), decoded once per process."""
    return engine.Rules.from_spec(msgspec.json.decode(encoded))


def encoded_rules(rules: engine.Rules) -> bytes:
    return _encoder.encode(rules.to_spec())


def open_seats(seating: Seating) -> list[int]:
    return [seat for seat, name in enumerate(seating.names) if name is None]


def bot_name(level: str, seat: int) -> str:
    """A bot seat's name when its spec gives none."""
    return f"{level.capitalize()} bot {seat + 1}"


def waiting_view(game_id: str, record: GameRecord, seating: Seating, seat: int | None) -> GameView:
    """The view of a table before the deal: who sits where, the rules, the first round's wild
    and dealer; no cards. A seat's view has an empty hand and nothing legal to do."""
    rules = rules_of(seating.rules)
    seats = len(seating.names)
    return GameView(
        game_id=game_id,
        version=0,
        status="waiting",
        round=1,
        rounds=rules.rounds,
        wild=to_wire.rank_code(game.wild_rank(rules, 1)),
        dealer=seating.first_dealer,
        turn=None,
        phase=None,
        out_seat=None,
        stock_count=0,
        discard_top=None,
        discard_tops=[None] * seats if rules.discard_piles == "per_player" else None,
        players=[
            PlayerOut(
                seat=number,
                name=name,
                open=name is None,
                hand_count=0,
                score=0,
                round_scores=[],
                bot=seating.bots[number] if seating.bots else None,  # type: ignore[arg-type]
            )
            for number, name in enumerate(seating.names)
        ],
        last_round=None,
        winners=None,
        hand=None if seat is None else [],
        active=list(range(seats)),
        tiebreak=False,
        last_turns=0,
        upcard=None,
        table=[[] for _ in range(seats)] if rules.redemption else None,
        seat=seat,
        rules=to_wire.game_rules_to_wire(rules),
        legal=None if seat is None else [],
        invite_code=seating.invite_code,
        seeded=seating.seed is not None,
    )


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

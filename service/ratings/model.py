"""The rating model: what a rated game's result is, and how it moves its players' ratings.

Plackett-Luce (``openskill``), a multiplayer Bayesian model: each player's skill is a normal
belief (``mu``, ``sigma``); a game's result, the seats ranked by their final totals (lowest
first, equal totals share a place; the winners of a tie-break round before the others), moves
every seat's belief at once. The rating shown and ranked is the conservative one,
``mu - 3 sigma``. A player with fewer than ``PROVISIONAL_GAMES`` games is provisional.

Ratings are kept per rating key: the preset, and ``:speed`` after it for a speed game
(``classic``, ``classic:speed``). A game played with rules other than its preset's (apart from
``turns``) is not rated.

Everything here is pure: the same results in the same order give the same numbers, bit for bit,
which is what the rebuild (``service.ratings.rebuild``) relies on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, get_args

import msgspec
from openskill.models import PlackettLuce

from engine.bots import LEVELS
from engine.game.state import GameState
from engine.rule_checks import Turns
from engine.rules import PRESETS, Rules
from service.games.records import BOT_PLAYER_PREFIX, GameRecord, finished_at
from service.http.problems import InvalidField

PROVISIONAL_GAMES: Final = 10
"""A player's rating is provisional until this many rated games."""
DEVIATIONS: Final = 3
"""The conservative rating is ``mu`` less this many ``sigma``."""
SPEED_SUFFIX: Final = ":speed"

_model: Final = PlackettLuce()
NEW_MU: Final = _model.rating().mu
"""A player's ``mu`` before any rated game under a key."""


def rating_key(rules: Rules) -> str | None:
    """The key a game's ratings are kept under: its preset (``classic``, ``classic:speed``);
    None for rules that are not a preset's (a rule overridden), which are never rated."""
    if rules.preset not in PRESETS:
        return None
    if rules != Rules.from_spec({"preset": rules.preset, "turns": rules.turns}):
        return None
    return rules.preset + (SPEED_SUFFIX if rules.turns == "speed" else "")


def check_rated(rules: Rules, rated: bool) -> None:
    """A game asked rated plays a preset's own rules: 422 naming ``rated`` otherwise."""
    if rated and rating_key(rules) is None:
        raise InvalidField(
            "rated: a rated game plays a preset's own rules (turns apart); this one overrides "
            "an option",
            field="rated",
        )


RATING_KEYS: Final = tuple(
    preset + (SPEED_SUFFIX if turns == "speed" else "")
    for preset in PRESETS
    for turns in get_args(Turns)
)
"""Every rating key there may be."""


def built_in_player(player_id: str) -> str | None:
    """The level of a built-in computer player's id (``bot-hard`` → ``hard``), else None."""
    level = player_id.removeprefix(BOT_PLAYER_PREFIX)
    return level if level != player_id and level in LEVELS else None


class Seated(msgspec.Struct, frozen=True, array_like=True):
    """A seat of a rated game: who, as the leaderboards show them."""

    player_id: str
    name: str
    bot: bool
    """A program or a built-in level."""


class GameResult(msgspec.Struct, frozen=True, array_like=True):
    """What a rated game's end says to the ratings: kept in each rating key's journal, from
    which the rebuild recomputes every rating."""

    game_id: str
    key: str
    seats: tuple[Seated, ...]
    places: tuple[int, ...]
    """Each seat's place, 0 the best; equal places share it."""
    finished: float


class Entry(msgspec.Struct, frozen=True, array_like=True):
    """A player's rating under one key, as the store keeps it."""

    mu: float
    sigma: float
    games: int
    name: str
    bot: bool

    @property
    def rating(self) -> float:
        return self.mu - DEVIATIONS * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


class Point(msgspec.Struct, frozen=True, array_like=True):
    """A point of a player's rating history: the entry a rated game left, and the game."""

    game_id: str
    finished: float
    mu: float
    sigma: float
    games: int
    place: int
    """0 the best; equal places share it."""
    seats: int

    @property
    def rating(self) -> float:
        return self.mu - DEVIATIONS * self.sigma


def points_of(result: GameResult, after: Sequence[Entry]) -> list[Point]:
    """Each seat's history point of a game: the entry it leaves, with its place."""
    return [
        Point(
            result.game_id,
            result.finished,
            entry.mu,
            entry.sigma,
            entry.games,
            place,
            len(result.seats),
        )
        for entry, place in zip(after, result.places, strict=True)
    ]


def places_of(state: GameState) -> tuple[int, ...]:
    """Each seat's place at the end: the winners first (a tie-break round may part equal
    totals), then by total, lowest first; equal keys share a place."""
    winners = state.winners or ()
    keys = [(seat not in winners, total) for seat, total in enumerate(state.totals)]
    ordered = sorted(set(keys))
    return tuple(ordered.index(key) for key in keys)


def result_of(
    game_id: str, record: GameRecord, state: GameState, bots: Sequence[bool]
) -> GameResult | None:
    """The result of a finished rated game; None for a game that changes no rating (unrated,
    not finished, or played with rules not a preset's). ``bots``: whether each seat's player
    is a program (a built-in level always is)."""
    if not record.rated or state.status != "finished" or len(record.rated) != len(state.players):
        return None
    key = rating_key(state.rules)
    if key is None:
        return None
    seats = tuple(
        Seated(player_id, name, bot)
        for player_id, name, bot in zip(record.rated, state.players, bots, strict=True)
    )
    return GameResult(game_id, key, seats, places_of(state), finished_at(record))


def fresh(seated: Seated) -> Entry:
    """A player's entry before the first rated game under a key."""
    start = _model.rating()
    return Entry(start.mu, start.sigma, 0, seated.name, seated.bot)


def rated(result: GameResult, before: Sequence[Entry | None]) -> list[Entry]:
    """Each seat's entry after the game, from its entry before (None: its first game)."""
    entries = [fresh(s) if e is None else e for s, e in zip(result.seats, before, strict=True)]
    teams = [[_model.rating(mu=e.mu, sigma=e.sigma)] for e in entries]
    after = _model.rate(teams, ranks=[float(place) for place in result.places])
    return [
        Entry(team[0].mu, team[0].sigma, entry.games + 1, entry.name, entry.bot)
        for team, entry in zip(after, entries, strict=True)
    ]


_entry_encoder: Final = msgspec.msgpack.Encoder()
_entry_decoder: Final = msgspec.msgpack.Decoder(Entry)
_result_decoder: Final = msgspec.msgpack.Decoder(GameResult)
_point_decoder: Final = msgspec.msgpack.Decoder(Point)


def encode(value: Entry | GameResult | Point) -> bytes:
    return _entry_encoder.encode(value)


def decode_entry(data: bytes) -> Entry:
    return _entry_decoder.decode(data)


def decode_result(data: bytes) -> GameResult:
    return _result_decoder.decode(data)


def decode_point(data: bytes) -> Point:
    return _point_decoder.decode(data)

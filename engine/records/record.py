"""A game's record: its headers, then per round the deal, every action and the result.

``record_of`` builds it from a game's state by replaying the game from its own shuffles and log
(the engine's dealing, scoring and visibility rules, not a copy of them). While the game is
played the record holds only what the public may see, as the public log does: no hand, no
stock, a card drawn from the stock this round shown as unknown. Once the game is finished it
holds everything: each round's hands, upcard, stock and reshuffled stocks, every card drawn.

A speed game's round has one action per call that ended (the caller's ``CallEnd``: every
seat's choice, revealed at once); the choices made while a call is open are not recorded, so a
record never shows a pending choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from engine.cards import Card
from engine.errors import GameSetupError
from engine.game import GameState, LogEntry, RoundResult, Status, apply, public_log, replay
from engine.game.actions import CALLER
from engine.rules import Rules

Visibility = Literal["public", "whole"]
FORMAT = 1
"""The record's format version, in its headers (text and JSON)."""


@dataclass(frozen=True, slots=True)
class Headers:
    rules: Rules
    """Every option (the notation and the JSON form write each one)."""
    players: tuple[str, ...]
    bots: tuple[str | None, ...]
    """Per seat, the computer player's level; None for a person (or not known)."""
    first_dealer: int
    status: Status
    visibility: Visibility
    created: str | None = None
    """When the game was made, as the caller gives it (ISO 8601 in UTC, say)."""
    finished: str | None = None
    totals: tuple[int, ...] = ()
    """Each seat's total so far."""
    winners: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round's deal as the cards lay: each hand (sorted; empty for a seat not dealt in), the
    stock with its first card drawn first, and each stock reshuffled from the discards in the
    round, in the same order."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    restocks: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class RoundRecord:
    round: int
    deal: int
    """The deal's number in the game (a round dealt again under double naughts is a new one)."""
    dealer: int
    active: tuple[int, ...]
    upcard: Card
    """The card turned up at the deal (everyone saw it); in a speed game, ``upcards[0]``."""
    dealt: Dealt | None
    """The hands and the stock: None in a public record."""
    actions: tuple[LogEntry, ...]
    """Every action of the deal, with the version it made; a card the record may not show is
    None."""
    result: RoundResult | None
    """The round's end, every hand laid out and scored; None while it is played."""
    upcards: tuple[Card, ...] = ()
    """A speed game's deal turns up a card on each seat's pile: one per seat of ``active``, in
    that order. Empty in a game played in turns."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    headers: Headers
    rounds: tuple[RoundRecord, ...]

    @property
    def whole(self) -> bool:
        return self.headers.visibility == "whole"


def record_of(
    state: GameState,
    *,
    bots: Sequence[str | None] | None = None,
    created: str | None = None,
    finished: str | None = None,
) -> GameRecord:
    """The record of ``state``: the public record while it is played, the whole record once it
    is finished. ``bots`` gives each seat's computer level (None for a person); ``created`` and
    ``finished`` are the caller's times, written as given."""
    n = len(state.players)
    levels = tuple(bots) if bots is not None else (None,) * n
    if len(levels) != n:
        raise GameSetupError(f"{len(levels)} bot levels for {n} seats")
    whole = state.status == "finished"
    headers = Headers(
        rules=state.rules,
        players=state.players,
        bots=levels,
        first_dealer=state.first_dealer,
        status=state.status,
        visibility="whole" if whole else "public",
        created=created,
        finished=finished if whole else None,
        totals=state.totals,
        winners=state.winners,
    )
    return GameRecord(headers, _rounds(state, whole))


class _Round:
    """A round being gathered while the game is replayed."""

    def __init__(self, game: GameState, whole: bool) -> None:
        self.game = game
        self.whole = whole
        self.actions: list[LogEntry] = []
        self.restocks: list[tuple[Card, ...]] = []
        self.result: RoundResult | None = None

    def restocked(self, game: GameState) -> None:
        # The reshuffled cards, first drawn first (in a speed game, under what the stock held).
        self.restocks.append(game.shuffles[-1][::-1])

    def done(self) -> RoundRecord:
        game = self.game
        upcards: tuple[Card, ...] = ()
        if game.rules.turns == "speed":
            upcards = tuple(game.piles[seat][-1] for seat in game.active)
            upcard = upcards[0]
        else:
            upcard = game.piles[game.dealer if len(game.piles) > 1 else 0][-1]
        dealt = Dealt(game.hands, game.stock[::-1], tuple(self.restocks)) if self.whole else None
        return RoundRecord(
            round=game.round,
            deal=game.deal,
            dealer=game.dealer,
            active=game.active,
            upcard=upcard,
            dealt=dealt,
            actions=tuple(self.actions),
            result=self.result,
            upcards=upcards,
        )


def _rounds(state: GameState, whole: bool) -> tuple[RoundRecord, ...]:
    game = replay(state.players, state.rules, state.shuffle_record, [])
    rounds: list[RoundRecord] = []
    current = _Round(game, whole)
    # The public log decides what may be shown (everything, once the game is over).
    entries = public_log(state, None)
    speed = state.rules.turns == "speed"
    mark = game
    for record, entry in zip(state.history, entries, strict=True):
        game = apply(game, record.seat, record.action)
        if speed and record.seat != CALLER:
            continue  # a speed choice shows in its call's end, the record that ends the call
        current.actions.append(entry)
        if game.last_round is not mark.last_round:
            current.result = game.last_round
        if game.deal != mark.deal:
            rounds.append(current.done())
            current = _Round(game, whole)
        elif len(game.shuffles) != len(mark.shuffles):
            current.restocked(game)
        mark = game
    rounds.append(current.done())  # the round in play, or the last one
    return tuple(rounds)


def record_page(
    record: GameRecord, since: int = 0, limit: int | None = None
) -> tuple[GameRecord, int | None]:
    """A page of the record's actions: every round with its deal and result, each round's
    actions only those that made versions after ``since``, at most ``limit`` of them in all;
    and the ``since`` of the next page, None when this page holds the last action."""
    later = [e.version for r in record.rounds for e in r.actions if e.version > since]
    page = later if limit is None else later[:limit]
    last = page[-1] if page else since
    rounds = tuple(
        replace(r, actions=tuple(e for e in r.actions if since < e.version <= last))
        for r in record.rounds
    )
    return GameRecord(record.headers, rounds), (last if len(later) > len(page) else None)

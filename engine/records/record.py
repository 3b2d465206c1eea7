"""A game's record: its headers, then per round the deal, every action and the result.

``record_of`` builds it from a game's state without replaying the game: each deal's layout is
the engine's own deal of its recorded pack (``engine.game.dealing.laid_out``), its result the
one the state kept when the deal ended (``GameState.results``), its actions the public log's;
``record_page_of`` builds one page of it at the cost of the page, not of the game. A state
that does not hold every ended deal's result (stored before they were kept) is replayed from
its own shuffles and log instead, as every record was built before.

While the game is played the record holds only what the public may see, as the public log
does: no hand, no stock, a card drawn from the stock this round shown as unknown. Once the game
is finished it holds everything: each round's hands, upcard, stock and reshuffled stocks, every
card drawn.

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
from engine.game.dealing import dealer_of, laid_out
from engine.game.state import RECORD_CHUNK
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
    return record_page_of(state, bots=bots, created=created, finished=finished)[0]


def record_page_of(  # noqa: PLR0913 - the page, and the headers the caller gives
    state: GameState,
    since: int = 0,
    limit: int | None = None,
    *,
    bots: Sequence[str | None] | None = None,
    created: str | None = None,
    finished: str | None = None,
) -> tuple[GameRecord, int | None]:
    """``record_page(record_of(state, ...), since, limit)``, costing what the page holds: the
    actions after version ``since`` (at most ``limit``, read from the state's history where the
    page starts) and every deal's header and result, not the game's length. A state that does
    not hold its results (``holds_results``) is replayed whole, the page cut from its record."""
    headers = _headers(state, bots, created, finished)
    whole = headers.visibility == "whole"
    packs = _deal_packs(state)
    if not holds_results(state) or len(packs) != state.deal:
        return record_page(GameRecord(headers, _replayed_rounds(state, whole)), since, limit)
    last, next_since = (state.version, None) if limit is None else _page_end(state, since, limit)
    actions: dict[int, list[LogEntry]] = {}
    speed = state.rules.turns == "speed"
    for entry in public_log(state, None, since=since, until=last):
        if not speed or entry.seat == CALLER:  # a speed choice shows in its call's end
            actions.setdefault(entry.deal, []).append(entry)
    rounds = tuple(
        _dealt_round(state, deal, pack, restocks, tuple(actions.get(deal, ())), whole)
        for deal, (pack, restocks) in enumerate(packs, start=1)
    )
    return GameRecord(headers, rounds), next_since


def holds_results(state: GameState) -> bool:
    """Whether ``state`` holds the result of every deal that ended (``GameState.results``), so
    that its record is built without a replay: a game stored before results were kept, and
    played on since, holds only those of the deals ended since."""
    ended = state.deal if state.status == "finished" else state.deal - 1
    return len(state.results) == ended


def replayed_record(
    state: GameState,
    *,
    bots: Sequence[str | None] | None = None,
    created: str | None = None,
    finished: str | None = None,
) -> GameRecord:
    """``record_of(state, ...)`` by replaying the game from its own shuffles and log, as every
    record was built before the state kept its results: what a state that does not hold them
    is built by, and what a test holds the record built without a replay to."""
    headers = _headers(state, bots, created, finished)
    return GameRecord(headers, _replayed_rounds(state, headers.visibility == "whole"))


def _headers(
    state: GameState,
    bots: Sequence[str | None] | None,
    created: str | None,
    finished: str | None,
) -> Headers:
    n = len(state.players)
    levels = tuple(bots) if bots is not None else (None,) * n
    if len(levels) != n:
        raise GameSetupError(f"{len(levels)} bot levels for {n} seats")
    whole = state.status == "finished"
    return Headers(
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


def _deal_packs(state: GameState) -> list[tuple[tuple[Card, ...], list[tuple[Card, ...]]]]:
    """Each deal's pack, with the stocks reshuffled from its discards after it: a deal shuffles
    the whole pack, a reshuffle fewer cards (the hands hold some)."""
    packs: list[tuple[tuple[Card, ...], list[tuple[Card, ...]]]] = []
    whole = len(state.shuffles[0]) if state.shuffles else 0
    for pack in state.shuffles:
        if len(pack) == whole:
            packs.append((pack, []))
        else:
            packs[-1][1].append(pack)
    return packs


def _page_end(state: GameState, since: int, limit: int) -> tuple[int, int | None]:
    """The version of the page's last action (the ``limit``-th recorded after ``since``), and
    the ``since`` of the next page (None when no action is recorded after it). Read from the
    history's chunk that holds version ``since`` on."""
    speed = state.rules.turns == "speed"
    first_chunk = max(since, 0) // RECORD_CHUNK
    version = first_chunk * RECORD_CHUNK
    last, taken = since, 0
    for chunk in state.records[first_chunk:]:
        for record in chunk:
            version += 1
            if version <= since or (speed and record.seat != CALLER):
                continue
            if taken == limit:
                return last, last
            last, taken = version, taken + 1
    return last, None


def _dealt_round(  # noqa: PLR0913, PLR0917 - a deal's pack, reshuffles and actions
    state: GameState,
    deal: int,
    pack: tuple[Card, ...],
    restocks: list[tuple[Card, ...]],
    actions: tuple[LogEntry, ...],
    whole: bool,
) -> RoundRecord:
    """Deal number ``deal`` as it was dealt (its layout, from its pack), with ``actions``: its
    round and seats are those its result scored, or the state's for the deal in play."""
    result = state.results[deal - 1] if deal <= len(state.results) else None
    if result is None:
        number, dealer, active = state.round, state.dealer, state.active
    else:
        number, active = result.round, tuple(seat.seat for seat in result.results)
        dealer = dealer_of(state.first_dealer, len(state.players), number)
    layout = laid_out(state.rules, len(state.players), pack, number, dealer, active)
    upcards, upcard = _upcards(state.rules, layout.piles, dealer, active)
    dealt = None
    if whole:
        dealt = Dealt(layout.hands, layout.stock[::-1], tuple(r[::-1] for r in restocks))
    return RoundRecord(
        round=number,
        deal=deal,
        dealer=dealer,
        active=active,
        upcard=upcard,
        dealt=dealt,
        actions=actions,
        result=result,
        upcards=upcards,
    )


def _upcards(
    rules: Rules, piles: tuple[tuple[Card, ...], ...], dealer: int, active: tuple[int, ...]
) -> tuple[tuple[Card, ...], Card]:
    """A deal's upcards (a speed game's, one per seat dealt in; else none) and its upcard."""
    if rules.turns == "speed":
        upcards = tuple(piles[seat][-1] for seat in active)
        return upcards, upcards[0]
    return (), piles[dealer if len(piles) > 1 else 0][-1]


class _Round:
    """A round being gathered while the game is replayed (``_replayed_rounds``)."""

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
        upcards, upcard = _upcards(game.rules, game.piles, game.dealer, game.active)
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


def _replayed_rounds(state: GameState, whole: bool) -> tuple[RoundRecord, ...]:
    """The rounds of ``state``, its game replayed from its own shuffles and log: the record of
    a state that does not hold its deals' results."""
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

"""What a seat, or anybody, may see of a game.

A view never holds another seat's hand before the round is over, the stock's order, the shuffled
packs or the seed: it is built field by field from the state, never by copying it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.analysis import Meld
from engine.cards import Card, Rank
from engine.errors import IllegalAction
from engine.game.actions import CALLER, CHOSEN, Action, CallEnd, Choice, Draw, Move, Phase
from engine.game.dealing import seats_after
from engine.game.speed import choosers
from engine.game.state import RECORD_CHUNK, GameState, Record, RoundResult, Status


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    name: str
    hand_count: int
    score: int
    """Total so far."""
    round_scores: tuple[int, ...]
    """One per finished round."""


@dataclass(frozen=True, slots=True)
class CallView:
    """The open call of a speed game."""

    number: int
    """The call's number in this deal, from 1."""
    phase: Phase
    """A draw call or a discard call."""
    chosen: tuple[int, ...]
    """The seats that have chosen in this call (what they chose stays secret)."""
    waiting: tuple[int, ...]
    """The seats still to choose."""
    choice: Choice | None = None
    """The viewer's own choice so far (it may replace it until the call ends); None in the
    public view, or before it has chosen."""


@dataclass(frozen=True, slots=True)
class GameView:
    version: int
    status: Status
    round: int
    rounds: int
    """Rounds in the schedule (a tie-break round is one more)."""
    wild: Rank | None
    dealer: int
    turn: int | None
    """None once the game is finished."""
    phase: Phase | None
    """None once the game is finished."""
    out_seat: int | None
    stock_count: int
    discard_top: Card | None
    """The top of the shared discard pile; None under per-player piles (see ``discard_tops``)."""
    discard_tops: tuple[Card | None, ...] | None
    """Per-player piles: the top of each seat's pile. None with one shared pile."""
    players: tuple[PlayerView, ...]
    last_round: RoundResult | None
    winners: tuple[int, ...] | None
    hand: tuple[Card, ...] | None
    """The viewer's hand, sorted; None in the public view."""
    active: tuple[int, ...]
    """The seats playing this round: all of them, or the tied seats in a tie-break round."""
    tiebreak: bool
    last_turns: int
    """After a go-out: the last turns still to be played."""
    upcard: Card | None
    """The card the seat on turn just took from a discard pile (public: everyone saw it); in a
    speed game's discard call, the card the viewer took from a pile on the draw call (None in
    the public view)."""
    table: tuple[tuple[Meld, ...], ...] | None
    """Redemption: the melds each seat has laid on the table. None when redemption is off."""
    seeded: bool
    """The game was made with a seed: its deals can be rebuilt from the seed, and a small seed
    found by trying them against one seat's view."""
    deal: int = 0
    """Deals so far (a double-naught round is dealt again): the log entries of this deal are
    this round's, so a seat can tell what it has seen this round from the log alone."""
    call: CallView | None = None
    """A speed game's open call (``turn`` is then None); None in a game played in turns."""
    out_seats: tuple[int, ...] = ()
    """A speed game: every seat that went out this round (``out_seat`` is the first)."""
    turned: Card | None = None
    """The card turned up when this round was dealt, in a game played in turns. Every seat saw
    it; once a discard covers it before anybody takes it, no log entry names it, so the view
    keeps it (a hint and a bot count it as seen). None in a speed game, which turns one up on
    every pile."""
    turned_up: tuple[Card | None, ...] = ()
    """A speed game: the card turned up on each seat's pile at this deal (None for a seat not
    dealt in). Every seat saw them; once a discard covers one, no log entry names it."""
    deal_known: bool = False
    """Some rounds were dealt from given deals (``new_game(deals=...)``): their cards were known
    before the game, to whoever gave them."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    version: int
    """The game's version once this action was applied (the first action makes version 1)."""
    seat: int
    """The seat that acted; ``CALLER`` (-1) for a speed call's end (a ``CallEnd``)."""
    action: Action
    """In a speed game, another seat's choice while its deal is played is ``Chosen``."""
    card: Card | None
    """The card drawn, discarded or laid off. A card drawn from the stock is None unless the
    viewer drew it or its round is over."""
    deal: int = 0
    """The deal the action was taken in (see ``GameView.deal``)."""


def view(state: GameState, seat: int) -> GameView:
    """The game as ``seat`` sees it: the public view plus its own hand."""
    if not 0 <= seat < len(state.players):
        raise IllegalAction(f"no seat {seat!r}: seats are 0 to {len(state.players) - 1}")
    return _view(state, state.hands[seat], seat)


def public_view(state: GameState) -> GameView:
    """The game as anybody sees it: no hand."""
    return _view(state, None, None)


def _view(state: GameState, hand: tuple[Card, ...] | None, seat: int | None) -> GameView:
    playing = state.status == "playing"
    call = _call_view(state, seat) if playing and state.choices else None
    per_player = state.rules.discard_piles == "per_player"
    players = tuple(
        PlayerView(
            seat=seat,
            name=name,
            hand_count=len(state.hands[seat]),
            score=sum(state.round_scores[seat]),
            round_scores=state.round_scores[seat],
        )
        for seat, name in enumerate(state.players)
    )
    tops = tuple(pile[-1] if pile else None for pile in state.piles)
    return GameView(
        version=state.version,
        status=state.status,
        round=state.round,
        rounds=state.rules.rounds,
        wild=state.wild,
        dealer=state.dealer,
        turn=state.turn if playing and call is None else None,
        phase=state.phase if playing else None,
        out_seat=state.out_seat if playing else None,
        stock_count=len(state.stock),
        discard_top=None if per_player else tops[0],
        discard_tops=tops if per_player else None,
        players=players,
        last_round=state.last_round,
        winners=state.winners,
        hand=hand,
        active=state.active,
        tiebreak=state.round > state.rules.rounds,
        last_turns=state.last_turns if playing else 0,
        upcard=_upcard(state, seat) if playing else None,
        table=state.table if state.rules.redemption else None,
        deal=state.deal,
        seeded=state.seed is not None,
        call=call,
        deal_known=bool(state.deals),
        out_seats=state.out_seats if playing else (),
        turned=_turned(state),
        turned_up=_turned_up(state) if state.choices else (),
    )


def _upcard(state: GameState, seat: int | None) -> Card | None:
    if not state.choices:
        return state.upcard
    return None if seat is None else state.upcards[seat]


def _call_view(state: GameState, seat: int | None) -> CallView:
    choosing = choosers(state)
    choices = state.choices
    return CallView(
        number=state.calls + 1,
        phase=state.phase,
        chosen=tuple(s for s in choosing if choices[s] is not None),
        waiting=tuple(s for s in choosing if choices[s] is None),
        choice=None if seat is None else choices[seat],
    )


def _turned(state: GameState) -> Card | None:
    """The upcard of this deal: the card dealt after the hands from the deal's pack.
    None in a speed game, whose upcards lie on every pile (the view's ``discard_tops``)."""
    pack = _deal_pack(state)
    if pack is None or state.rules.turns == "speed":
        return None
    dealt = state.rules.hand_size(min(state.round, state.rules.rounds)) * len(state.active)
    return pack[len(pack) - dealt - 1]


def _deal_pack(state: GameState) -> tuple[Card, ...] | None:
    """The pack this deal was dealt from: the last shuffled pack as long as the whole pack (a
    reshuffle of the stock shuffles fewer cards); None before any deal."""
    if not state.shuffles:
        return None
    whole = len(state.shuffles[0])  # the first shuffle is always a deal
    return next(p for p in reversed(state.shuffles) if len(p) == whole)


def _turned_up(state: GameState) -> tuple[Card | None, ...]:
    """A speed game's upcards of this deal, read from the deal's pack as ``_turned`` reads one:
    after the hands, one card per seat dealt in, in play order from the dealer's left."""
    n = len(state.players)
    pack = _deal_pack(state)
    if pack is None:
        return (None,) * n
    order = seats_after(state.dealer, state.active, n)
    dealt = state.rules.hand_size(min(state.round, state.rules.rounds)) * len(order)
    turned: list[Card | None] = [None] * n
    for k, seat in enumerate(order):
        turned[seat] = pack[len(pack) - dealt - 1 - k]
    return tuple(turned)


def public_log(
    state: GameState, seat: int | None, *, since: int = 0, until: int | None = None
) -> tuple[LogEntry, ...]:
    """The actions applied so far, as ``seat`` (None: anybody) may see them; with ``since``,
    only those that made versions after it, and with ``until`` up to that version (to resume a
    stream of events a slice at a time)."""
    playing = state.status == "playing"
    speed = bool(state.choices)
    entries = []
    first_chunk = max(since, 0) // RECORD_CHUNK
    last_chunk = None if until is None else max(until - 1, 0) // RECORD_CHUNK + 1
    last = state.version if until is None else until
    version = first_chunk * RECORD_CHUNK
    for chunk in state.records[first_chunk:last_chunk]:
        for record in chunk:
            version += 1
            if version <= since or version > last:
                continue
            action = record.action
            card = record.card
            if playing and record.seat != seat and record.deal == state.deal:
                # A card another seat drew from the stock is hidden while its deal is played.
                if speed:
                    action, card = _seen_in_speed(record, seat)
                elif isinstance(action, Draw) and action.source == "stock":
                    card = None
            entries.append(LogEntry(version, record.seat, action, card, record.deal))
    return tuple(entries)


def _seen_in_speed(record: Record, seat: int | None) -> tuple[Action, Card | None]:
    """Another seat's record of the deal being played in a speed game, as ``seat`` sees it: a
    choice shows only that the seat chose; a call's end hides the cards other seats drew from
    the stock."""
    action = record.action
    if record.seat != CALLER:
        return CHOSEN, None
    if type(action) is CallEnd and any(m.seat != seat and _from_stock(m) for m in action.moves):
        moves = tuple(
            Move(m.seat, m.action, None) if m.seat != seat and _from_stock(m) else m
            for m in action.moves
        )
        return CallEnd(action.number, action.phase, moves, action.timed_out), None
    return action, record.card


def _from_stock(move: Move) -> bool:
    return type(move.action) is Draw and move.action.source == "stock"

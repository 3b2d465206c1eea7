"""The state of a game: one frozen value of tuples, so every action makes a cheap new one.

It holds everything, including what no view may show (every hand, the stock's order, the seed,
each shuffled pack): ``engine.game.views`` decides what a seat sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from engine.analysis import Meld
from engine.cards import Card, Rank
from engine.game.actions import Action, Choice, Phase
from engine.rules import Rules

Status = Literal["playing", "finished"]

GivenPacks = tuple[tuple[int, tuple[Card, ...]], ...]
"""The pack of each given round, as (round, pack), by round: what a game keeps of given deals
(``engine.game.dealing``)."""

RECORD_CHUNK = 64


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's hand at the end of a round, in its best arrangement, and its score."""

    seat: int
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    points: int
    """The round's score: deadwood points (doubled in doubled late rounds), the going-out bonus
    for whoever went out, plus any failed go-out penalty."""


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    out_seat: int | None
    results: tuple[SeatResult, ...]
    replayed: bool = False
    """Double naughts: every seat melded, so the round is dealt again and counts for nothing."""
    tiebreak: bool = False
    """The extra round among the seats tied for the lowest total; it decides the winners but
    adds nothing to the totals."""
    out_seats: tuple[int, ...] = ()
    """Every seat that went out: ``(out_seat,)``, or in a speed game all that went out on one
    call (``out_seat`` is the first of them in play order)."""


@dataclass(frozen=True, slots=True)
class Shuffles:
    """Every random choice of a game: the first dealer and each shuffled pack, in order (deals
    and reshuffles of the stock). With these, ``replay`` rebuilds a game made without a seed."""

    first_dealer: int
    packs: tuple[tuple[Card, ...], ...]


class Record(NamedTuple):
    """An applied action, with the card a draw took and the deal it happened in (so a view can
    tell when a card drawn from the stock stops being secret). A named tuple rather than a
    frozen dataclass: apply makes one per action, and a tuple is made in half the time."""

    seat: int
    action: Action
    card: Card | None
    deal: int


@dataclass(frozen=True)
class GameState:
    """Frozen. No __slots__ on purpose: apply copies the instance dict in one step (see
    engine.game.evolve.evolve), several times faster than setting thirty slots."""

    rules: Rules
    players: tuple[str, ...]
    seed: int | None
    first_dealer: int
    version: int
    """Actions applied so far."""
    status: Status
    round: int
    """1 to ``rules.rounds``; ``rules.rounds + 1`` is the tie-break round."""
    wild: Rank
    """The round's wild rank."""
    deal: int
    """Deals so far, counting rounds dealt again under double naughts."""
    dealer: int
    active: tuple[int, ...]
    """The seats dealt in this round: every seat, or the tied seats in a tie-break round."""
    turn: int
    """The seat on turn; in a speed game, which has no turns, the seat left of the dealer."""
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's hand, sorted."""
    stock: tuple[Card, ...]
    """Face down; its top card is the last one."""
    piles: tuple[tuple[Card, ...], ...]
    """The discard pile (one shared) or one per seat; the top card of each is the last one."""
    upcard: Card | None
    """The card this turn's draw took from a discard pile (for ``discard_drawn_upcard``)."""
    turns_done: int
    """Turns finished this round (for ``first_lap_go_out``)."""
    out_seat: int | None
    last_turns: int
    """Last turns still to be played after a go-out."""
    table: tuple[tuple[Meld, ...], ...]
    """Redemption: each seat's melds laid on the table (the seat that went out, then each seat
    after its last turn), with any cards laid off on them."""
    penalties: tuple[int, ...]
    """Failed go-out penalties earned this round, per seat."""
    round_scores: tuple[tuple[int, ...], ...]
    """Per seat, one score per finished round (double-naught and tie-break rounds excluded)."""
    last_round: RoundResult | None
    winners: tuple[int, ...] | None
    records: tuple[tuple[Record, ...], ...]
    """The applied actions in chunks of ``RECORD_CHUNK``: appending copies one short chunk,
    not the whole history (see ``history``)."""
    shuffles: tuple[tuple[Card, ...], ...]
    pending: tuple[tuple[Card, ...], ...] = field(default=(), compare=False)
    """Packs recorded by an earlier run of the game, used before any new shuffle (replay). Not
    compared: a replay of part of a game equals the game at that point, and still holds the
    packs the rest of it was dealt from."""
    # Speed games only (``rules.turns == "speed"``); empty in a game played in turns.
    choices: tuple[Choice | None, ...] = ()
    """Each seat's secret choice in the open call, or None while it has not chosen."""
    calls: int = 0
    """Calls ended this deal: the open call is number ``calls + 1``."""
    drawn: tuple[Card | None, ...] = ()
    """The card each seat took on the last draw call (a timed-out discard's default)."""
    upcards: tuple[Card | None, ...] = ()
    """The card each seat took from a pile on the last draw call (``discard_drawn_upcard``)."""
    out_seats: tuple[int, ...] = ()
    """The seats that went out this round, in play order (several may on one call)."""
    deals: GivenPacks = field(default=(), compare=False)
    """Given deals (``new_game(deals=...)``): the pack each of those rounds is dealt from the
    first time, instead of a shuffle. Kept all game, so its views can say the deal was known.
    Not compared, as ``pending``: the packs dealt are in ``shuffles`` either way."""
    results: tuple[RoundResult, ...] = ()
    """Every deal's result, in the order dealt (the last is ``last_round`` once it ended): what
    a game's record shows of its rounds without replaying the game. A game stored before it
    was kept holds only the results of the deals ended since (``engine.records``)."""

    @property
    def history(self) -> tuple[Record, ...]:
        """Every applied action, in order."""
        return tuple(record for chunk in self.records for record in chunk)

    @property
    def last_record(self) -> Record | None:
        return self.records[-1][-1] if self.records else None

    @property
    def last_record_action(self) -> Action | None:
        return self.records[-1][-1].action if self.records else None

    @property
    def log(self) -> tuple[tuple[int, Action], ...]:
        """Every applied action with its seat, in order: what ``replay`` takes."""
        return tuple((r.seat, r.action) for r in self.history)

    @property
    def shuffle_record(self) -> Shuffles:
        return Shuffles(self.first_dealer, self.shuffles)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(scores) for scores in self.round_scores)

    @property
    def rounds(self) -> int:
        return self.rules.rounds

    def __repr__(self) -> str:
        # Never print the hands, the stock or the seed by accident (logs, tracebacks).
        return (
            f"<GameState {self.status} v{self.version} round {self.round}/{self.rules.rounds} "
            f"turn {self.turn} {self.phase.value} players {list(self.players)}>"
        )

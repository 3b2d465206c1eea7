"""What a seat knows of its round: built from its view and the public log only, never the state.

Replaying this deal's public log entries (``engine.deal_replay``) rebuilds the discard piles,
the stock's size and the cards each other seat took from a pile and still holds.

Every card of the pack that is not in the seat's hand, in a pile, on the table (redemption) or
known in another seat's hand is *unseen*: it may be in the stock or in another hand, and from
this seat's point of view each unseen copy is equally likely to be the stock's next card.

A reshuffle changes that: the new stock is the old piles less their tops, cards every seat saw.
From then on the stock holds only those cards (less the ones the seat drew from it since), and
the unseen cards are all in other hands. ``Sight.stock`` is what the stock's next card may be
either way; ``Sight.stock_known`` says which case holds.

``sight`` replays the log it is given; ``sight_of`` reads a replay fed as the game goes (the
review follows a whole game so, with one replay per seat and deal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card, Rank
from engine.deal_replay import COVERED, CallReplay, Copies, DealReplay, Table, pack_copies
from engine.game.actions import Phase
from engine.game.views import GameView, LogEntry
from engine.rules import Rules

__all__ = ["Copies", "Sight", "pack_copies", "sight", "sight_of"]


@dataclass(frozen=True, slots=True)
class Sight:
    """Everything one seat knows of the round it is playing, in the engine's card ints."""

    seat: int
    rules: Rules
    players: int
    wild: Rank
    phase: Phase | None
    hand: tuple[Card, ...]
    unseen: Copies
    """The copies the seat has not seen: in the stock or in other hands (after a reshuffle,
    in other hands only)."""
    tops: tuple[tuple[int | None, Card], ...]
    """The discard piles' top cards a draw may take: (pile, card); pile is None for the shared
    pile, else the seat whose pile it is."""
    upcard: Card | None
    """The card this turn's draw took from a pile (which ``discard_drawn_upcard`` may forbid)."""
    turns_done: int
    """Turns finished this round (for ``first_lap_go_out``)."""
    active: tuple[int, ...]
    out_seat: int | None
    table: tuple[tuple[tuple[Card, ...], ...], ...] | None
    """Redemption: the cards of each seat's melds on the table."""
    taken: tuple[tuple[Card, ...], ...]
    """Per seat, the cards it took from a pile this round and has not discarded since."""
    stock: Copies = ()
    """What the stock's next card may be, every copy equally likely: ``unseen`` until a
    reshuffle; after one, the reshuffled cards less those the seat drew since and those seen
    elsewhere again. (Other seats' draws from it are not named; the next card is still any of
    these copies with equal chance.)"""
    stock_known: bool = False
    """The stock was reshuffled this round: its cards are known, ``stock`` lists them."""
    stock_count: int = 0
    hand_counts: tuple[int, ...] = ()
    """Cards in each seat's hand now."""
    discarded: tuple[tuple[Card, ...], ...] = ()
    """Per seat, the cards it discarded this round, in order."""
    declined: tuple[tuple[Card, ...], ...] = ()
    """Per seat, the pile tops it passed over this round by drawing from the stock."""
    stock_draws: tuple[int, ...] = ()
    """Per seat, its draws from the stock this round (cards it saw that nobody else did)."""
    piles: tuple[tuple[Card, ...], ...] = ()
    """The discard piles as rebuilt, each one's top card last (a pile's covered first card is
    left out when the view does not name it)."""
    scores: tuple[int, ...] = ()
    """Each seat's total so far."""
    round: int = 1
    rounds: int = 1

    @property
    def may_go_out(self) -> bool:
        """Whether a go-out may be declared this turn (nobody out yet, the first lap done)."""
        if self.out_seat is not None:
            return False
        return self.rules.first_lap_go_out or self.turns_done >= len(self.active)

    @property
    def last_turn(self) -> bool:
        """Somebody else went out: this turn's hand is scored as it ends."""
        return self.out_seat is not None and self.out_seat != self.seat

    @property
    def forbidden_discard(self) -> Card | None:
        """The one card the seat may not discard this turn, if any: the upcard it just took,
        under ``discard_drawn_upcard: false``, unless it holds another copy."""
        up = self.upcard
        if up is None or self.rules.discard_drawn_upcard or self.hand.count(up) > 1:
            return None
        return up

    @property
    def unseen_count(self) -> int:
        return sum(count for _, count in self.unseen)


def sight(view: GameView, log: Sequence[LogEntry], seat: int, rules: Rules) -> Sight:
    """What ``seat`` knows, from its own ``view`` and the public ``log`` it may see."""
    speed = rules.turns == "speed"
    replay = CallReplay(view, seat, rules) if speed else DealReplay(view, seat, rules)
    for entry in _this_deal(log, view.deal):
        replay.entry(entry)
    return sight_of(replay, view)


def sight_of(replay: DealReplay, view: GameView) -> Sight:
    """What the replay's seat knows, its deal replayed so far and ``view`` its view now."""
    seat, rules = replay.seat, replay.rules
    piles = replay.uncovered(view.discard_tops if replay.per_player else (view.discard_top,))
    table = _table_cards(view)
    taken = replay.taken_now(table)
    hand = view.hand or ()
    pack = pack_copies(rules, len(view.players))
    unseen, stock = _unseen_and_stock(
        pack, replay.placed(hand, table, piles, taken), replay.restocked
    )
    stock_known = replay.restocked is not None
    if isinstance(replay, CallReplay) and replay.draws_above_reshuffle(seat):
        stock, stock_known = unseen, False
    return Sight(
        seat=seat,
        rules=rules,
        players=len(view.players),
        wild=view.wild if view.wild is not None else rules.wild_rank(1),
        phase=view.phase,
        hand=tuple(hand),
        unseen=unseen,
        tops=_draw_tops(view, replay),
        upcard=view.upcard,
        turns_done=replay.turns_done,
        active=view.active,
        out_seat=view.out_seat,
        table=table,
        taken=tuple(tuple(sorted(t.elements())) for t in taken),
        stock=stock,
        stock_known=stock_known,
        stock_count=view.stock_count,
        hand_counts=tuple(p.hand_count for p in view.players),
        discarded=tuple(map(tuple, replay.discarded)),
        declined=tuple(map(tuple, replay.declined)),
        stock_draws=tuple(replay.stock_draws),
        piles=tuple(tuple(c for c in pile if c != COVERED) for pile in piles),
        scores=tuple(p.score for p in view.players),
        round=view.round,
        rounds=view.rounds,
    )


def _unseen_and_stock(
    pack: Copies, placed: Counter[Card], restocked: Counter[Card] | None
) -> tuple[Copies, Copies]:
    """(unseen, stock): the copies of the pack not placed; and what the stock may hold, the
    unseen copies themselves until a reshuffle, then the reshuffled cards not placed since."""
    free = [(c, copies - placed[c]) for c, copies in pack if copies > placed[c]]
    if restocked is None:
        unseen = tuple(free)
        return unseen, unseen
    stock = tuple((c, min(n, restocked[c])) for c, n in free if restocked[c])
    in_stock = dict(stock)
    unseen = tuple((c, n - in_stock.get(c, 0)) for c, n in free if n > in_stock.get(c, 0))
    return unseen, stock


def _this_deal(log: Sequence[LogEntry], deal: int) -> Sequence[LogEntry]:
    """The log's entries of ``deal``: the last ones (found from the end: a game's log is long,
    a round's short)."""
    start = len(log)
    while start and log[start - 1].deal == deal:
        start -= 1
    return log[start:]


def _table_cards(view: GameView) -> Table | None:
    if view.table is None:
        return None
    return tuple(tuple(meld.cards for meld in melds) for melds in view.table)


def _draw_tops(view: GameView, replay: DealReplay) -> tuple[tuple[int | None, Card], ...]:
    """The piles' tops the seat may draw from: in a speed game, its right neighbour's only."""
    if view.phase is not Phase.DRAW:
        return ()
    if isinstance(replay, CallReplay):
        pile = replay.right_of(replay.seat)
        top = (view.discard_tops or ())[pile] if view.discard_tops else None
        return () if top is None else ((pile, top),)
    if replay.per_player:
        return tuple((k, top) for k, top in enumerate(view.discard_tops or ()) if top is not None)
    return () if view.discard_top is None else ((None, view.discard_top),)

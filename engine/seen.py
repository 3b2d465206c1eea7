"""What a seat knows of its round: built from its view and the public log only, never the state.

Replaying this deal's public log entries (``LogEntry.deal``) rebuilds the discard piles, the
stock's size and the cards each other seat took from a pile and still holds. The deal's upcard
starts the piles: the view names it (``GameView.turned``) even once a discard has covered it.

Every card of the pack that is not in the seat's hand, in a pile, on the table (redemption) or
known in another seat's hand is *unseen*: it may be in the stock or in another hand, and from
this seat's point of view each unseen copy is equally likely to be the stock's next card.

A reshuffle changes that: the new stock is the old piles less their tops, cards every seat saw.
From then on the stock holds only those cards (less the ones the seat drew from it since), and
the unseen cards are all in other hands. ``Sight.stock`` is what the stock's next card may be
either way; ``Sight.stock_known`` says which case holds.

A speed game (``_CallReplay``) replays only its calls' ends: a choice is secret and may be
replaced until its call ends, so the seat's own pending choice changes nothing here either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from engine.cards import Card, Rank
from engine.game.actions import CallEnd, Discard, Draw, LayOff, Phase
from engine.game.dealing import seats_after
from engine.game.play import hand_size
from engine.game.views import GameView, LogEntry
from engine.rules import Rules

_COVERED: Final = -1
"""The deal's upcard in a rebuilt pile, for a view that does not name it (``turned`` None)."""

Copies = tuple[tuple[Card, int], ...]
"""A multiset of cards: each distinct card with its number of copies, in card order."""


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


class _Replay:
    """This deal's log entries replayed from the deal, as one seat sees them."""

    def __init__(self, view: GameView, seat: int, rules: Rules) -> None:
        self.seat = seat
        self.per_player = rules.discard_piles == "per_player"
        n = len(view.players)
        self.piles: list[list[Card]] = [[] for _ in range(n if self.per_player else 1)]
        self.piles[view.dealer if self.per_player else 0].append(
            _COVERED if view.turned is None else view.turned
        )
        dealt = sum(copies for _, copies in pack_copies(rules, n))
        self.stock = dealt - len(view.active) * hand_size(rules, view.round) - 1
        self.restocked: Counter[Card] | None = None
        """The cards of the last reshuffle still possibly in the stock (None: no reshuffle)."""
        self.taken: list[Counter[Card]] = [Counter() for _ in range(n)]
        self.discarded: list[list[Card]] = [[] for _ in range(n)]
        self.declined: list[list[Card]] = [[] for _ in range(n)]
        self.stock_draws = [0] * n
        self.turns_done = 0

    def entry(self, entry: LogEntry) -> None:
        action, card = entry.action, entry.card
        if isinstance(action, Draw):
            self._draw(entry.seat, action, card)
        elif isinstance(action, Discard) and card is not None:
            self._discard(entry.seat, action, card)
        elif isinstance(action, LayOff) and card is not None:
            _forget(self.taken[entry.seat], card)

    def _draw(self, seat: int, action: Draw, card: Card | None) -> None:
        if action.source == "stock":
            self.stock -= 1
            self.stock_draws[seat] += 1
            self.declined[seat] += [p[-1] for p in self.piles if p and p[-1] != _COVERED]
            if self.restocked is not None and card is not None:
                _forget(self.restocked, card)
        elif card is not None:
            self.piles[self._pile_of(action.pile, seat)].pop()
            self.taken[seat][card] += 1

    def _discard(self, seat: int, action: Discard, card: Card) -> None:
        self._lay(seat, action, card)
        if self.stock == 0:
            self._restock()

    def _lay(self, seat: int, action: Discard, card: Card) -> None:
        self.piles[self._pile_of(action.pile, seat)].append(card)
        self.discarded[seat].append(card)
        _forget(self.taken[seat], card)
        self.turns_done += 1

    def _pile_of(self, pile: int | None, seat: int) -> int:
        if not self.per_player:
            return 0
        return seat if pile is None else pile

    def _restock(self) -> None:
        """The stock ran out: all but each pile's top go back into it, face down. (When the
        round ends instead, nothing follows.)"""
        under = [c for pile in self.piles for c in pile[:-1]]
        self.stock = len(under)
        self.restocked = Counter(c for c in under if c != _COVERED)
        for pile in self.piles:
            del pile[:-1]

    def uncover(self, tops: tuple[Card | None, ...] | None) -> None:
        """A pile still holding only its covered first card shows the top the view shows."""
        for pile, top in zip(self.piles, tops or (), strict=False):
            if pile == [_COVERED] and top is not None:
                pile[0] = top

    def laid_down(self, table: _Table | None) -> None:
        """A seat whose melds are on the table: what it took is there or still deadwood."""
        for owner, melds in enumerate(table or ()):
            if melds:
                self.taken[owner].clear()

    def placed(self, hand: tuple[Card, ...], table: _Table | None) -> Counter[Card]:
        """The cards the seat knows to be outside the stock: its hand, the piles, the table's
        melds and what other seats took and still hold."""
        self.laid_down(table)
        known = Counter(hand)
        known.update(c for pile in self.piles for c in pile if c != _COVERED)
        for other, cards in enumerate(self.taken):
            if other != self.seat:
                known.update(cards)
        known.update(c for melds in table or () for meld in melds for c in meld)
        return known


class _CallReplay(_Replay):
    """A speed game's deal replayed: only the calls' ends move cards (a choice is secret, and
    replaced at will, until its call ends). Every seat dealt in starts with a card turned up on
    its own pile; a seat draws from the stock or its right neighbour's pile. A draw call the
    stock cannot serve opens on a reshuffle of the cards under the piles' tops, put beneath the
    cards left, which are drawn first (``left_on_top``)."""

    def __init__(self, view: GameView, seat: int, rules: Rules) -> None:
        super().__init__(view, seat, rules)
        turned = view.turned_up or (None,) * len(view.players)
        self.piles = [
            ([_COVERED if up is None else up] if s in view.active else [])
            for s, up in enumerate(turned)
        ]
        self.stock -= len(view.active) - 1  # one card turned up per seat, not one in all
        self.rules = rules
        self.dealer = view.dealer
        self.active = view.active
        self.gone_out = view.out_seats
        self.out: set[int] = set()
        self.left_on_top = 0
        """The cards above the last reshuffle's: never seen, the stock's next ones."""

    def entry(self, entry: LogEntry) -> None:
        end = entry.action
        if type(end) is not CallEnd:
            return
        last_call = bool(self.out)
        for move in end.moves:
            action = move.action
            if isinstance(action, Draw):
                self._draw(move.seat, action, move.card)
            elif move.card is not None:
                self._lay(move.seat, action, move.card)
                if action.go_out and move.seat in self.gone_out:
                    self.out.add(move.seat)  # (a failed go-out under a penalty is not out)
        if end.phase is Phase.DISCARD and not last_call:
            self._open_draw_call()

    def right_of(self, seat: int) -> int:
        """The seat whose pile ``seat`` draws from: the previous seat dealt in."""
        before = (seat - 1) % len(self.piles)
        while before not in self.active:
            before = (before - 1) % len(self.piles)
        return before

    def _draw(self, seat: int, action: Draw, card: Card | None) -> None:
        if action.source != "stock":
            super()._draw(seat, action, card)
            return
        self.stock -= 1
        self.stock_draws[seat] += 1
        top = self.piles[self.right_of(seat)]
        if top and top[-1] != _COVERED:
            self.declined[seat].append(top[-1])
        if self.left_on_top:
            self.left_on_top -= 1
        elif self.restocked is not None and card is not None:
            _forget(self.restocked, card)

    def _open_draw_call(self) -> None:
        """As the engine opens a draw call: with a stock that serves every seat choosing, else
        (when the rules and the cards allow) after a reshuffle; else the round is over."""
        needed = sum(1 for s in self.active if s not in self.out)
        under = sum(len(pile) - 1 for pile in self.piles if pile)
        if self.stock >= needed or self.rules.stock_exhausted == "end_round":
            return
        if self.stock + under < needed:
            return
        left, restocked = self.stock, self.restocked
        self._restock()
        self.stock += left
        if restocked is None:
            self.left_on_top = left
        elif self.restocked is not None:
            self.restocked.update(restocked)  # two reshuffles' cards count as one

    def draws_above_reshuffle(self, seat: int) -> bool:
        """Whether the card ``seat`` would draw from the stock now is one of those above the
        last reshuffle (never seen), when every seat before it in play order draws from the
        stock too: the default draw, and what the hint's figures assume, as no seat knows
        another's choice."""
        order = [
            s for s in seats_after(self.dealer, self.active, len(self.piles)) if s not in self.out
        ]
        return seat in order and order.index(seat) < self.left_on_top


_Table = tuple[tuple[tuple[Card, ...], ...], ...]


def sight(view: GameView, log: Sequence[LogEntry], seat: int, rules: Rules) -> Sight:
    """What ``seat`` knows, from its own ``view`` and the public ``log`` it may see."""
    speed = rules.turns == "speed"
    replay = _CallReplay(view, seat, rules) if speed else _Replay(view, seat, rules)
    for entry in _this_deal(log, view.deal):
        replay.entry(entry)
    replay.uncover(view.discard_tops if replay.per_player else (view.discard_top,))
    table = _table_cards(view)
    hand = view.hand or ()
    pack = pack_copies(rules, len(view.players))
    unseen, stock = _unseen_and_stock(pack, replay.placed(hand, table), replay.restocked)
    stock_known = replay.restocked is not None
    if isinstance(replay, _CallReplay) and replay.draws_above_reshuffle(seat):
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
        taken=tuple(tuple(sorted(t.elements())) for t in replay.taken),
        stock=stock,
        stock_known=stock_known,
        stock_count=view.stock_count,
        hand_counts=tuple(p.hand_count for p in view.players),
        discarded=tuple(map(tuple, replay.discarded)),
        declined=tuple(map(tuple, replay.declined)),
        stock_draws=tuple(replay.stock_draws),
        piles=tuple(tuple(c for c in pile if c != _COVERED) for pile in replay.piles),
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


@lru_cache(maxsize=64)
def pack_copies(rules: Rules, players: int) -> Copies:
    """The pack for ``players`` seats: each distinct card with its copies, in card order."""
    return tuple(sorted(Counter(rules.pack(players)).items()))


def _this_deal(log: Sequence[LogEntry], deal: int) -> Sequence[LogEntry]:
    """The log's entries of ``deal``: the last ones (found from the end: a game's log is long,
    a round's short)."""
    start = len(log)
    while start and log[start - 1].deal == deal:
        start -= 1
    return log[start:]


def _forget(cards: Counter[Card], card: Card) -> None:
    """A card leaves a seat's hand (or the stock): if it was one known to be there, it is no
    longer (with several decks, an identical copy counts as that one)."""
    if cards[card] > 0:
        cards[card] -= 1


def _table_cards(view: GameView) -> _Table | None:
    if view.table is None:
        return None
    return tuple(tuple(meld.cards for meld in melds) for melds in view.table)


def _draw_tops(view: GameView, replay: _Replay) -> tuple[tuple[int | None, Card], ...]:
    """The piles' tops the seat may draw from: in a speed game, its right neighbour's only."""
    if view.phase is not Phase.DRAW:
        return ()
    if isinstance(replay, _CallReplay):
        pile = replay.right_of(replay.seat)
        top = (view.discard_tops or ())[pile] if view.discard_tops else None
        return () if top is None else ((pile, top),)
    if replay.per_player:
        return tuple((k, top) for k, top in enumerate(view.discard_tops or ()) if top is not None)
    return () if view.discard_top is None else ((None, view.discard_top),)

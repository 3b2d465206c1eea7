"""A deal's public log replayed as one seat sees it: the piles, the stock's size, what each
seat took from a pile and still holds, what it discarded and passed over (``engine.seen`` reads
a ``Sight`` from it).

Replaying this deal's public log entries (``LogEntry.deal``) rebuilds the discard piles, the
stock's size and the cards each other seat took from a pile and still holds. The deal's upcard
starts the piles: the view names it (``GameView.turned``) even once a discard has covered it.
A reshuffle puts the piles but their tops back as the stock: ``DealReplay.restocked`` keeps
those cards, less the ones the seat drew since.

A speed game (``CallReplay``) replays only its calls' ends: a choice is secret and may be
replaced until its call ends, so the seat's own pending choice changes nothing here either.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Final

from engine.cards import Card
from engine.game.actions import CallEnd, Discard, Draw, LayOff, Phase
from engine.game.dealing import seats_after
from engine.game.play import hand_size
from engine.game.views import GameView, LogEntry
from engine.rules import Rules

COVERED: Final = -1
"""The deal's upcard in a rebuilt pile, for a view that does not name it (``turned`` None)."""


Copies = tuple[tuple[Card, int], ...]
"""A multiset of cards: each distinct card with its number of copies, in card order."""


Table = tuple[tuple[tuple[Card, ...], ...], ...]
"""Redemption: the cards of each seat's melds on the table."""


@lru_cache(maxsize=64)
def pack_copies(rules: Rules, players: int) -> Copies:
    """The pack for ``players`` seats: each distinct card with its copies, in card order."""
    return tuple(sorted(Counter(rules.pack(players)).items()))


class DealReplay:
    """This deal's log entries replayed from the deal, as one seat sees them. ``entry`` takes
    them one at a time; the readers (``uncovered``, ``taken_now``, ``placed``, which
    ``engine.seen.sight_of`` calls) change nothing, so one replay fed as the game goes serves
    every decision of its deal, as the review uses it. In turns only: a speed deal's replay
    (``CallReplay``) reads the out seats of the view it starts from."""

    def __init__(self, view: GameView, seat: int, rules: Rules) -> None:
        self.seat = seat
        self.rules = rules
        self.per_player = rules.discard_piles == "per_player"
        n = len(view.players)
        self.piles: list[list[Card]] = [[] for _ in range(n if self.per_player else 1)]
        self.piles[view.dealer if self.per_player else 0].append(
            COVERED if view.turned is None else view.turned
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
            self.declined[seat] += [p[-1] for p in self.piles if p and p[-1] != COVERED]
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
        self.restocked = Counter(c for c in under if c != COVERED)
        for pile in self.piles:
            del pile[:-1]

    def uncovered(self, tops: tuple[Card | None, ...] | None) -> list[list[Card]]:
        """The piles, where one still holds only its covered first card showing the top the
        view shows."""
        piles = list(self.piles)
        for k, top in enumerate(tops or ()):
            if k < len(piles) and piles[k] == [COVERED] and top is not None:
                piles[k] = [top]
        return piles

    def taken_now(self, table: Table | None) -> list[Counter[Card]]:
        """What each seat took and still holds; a seat whose melds are on the table has it
        there or still as deadwood, so nothing is known in its hand."""
        laid = {owner for owner, melds in enumerate(table or ()) if melds}
        return [Counter() if owner in laid else t for owner, t in enumerate(self.taken)]

    def placed(
        self,
        hand: tuple[Card, ...],
        table: Table | None,
        piles: list[list[Card]],
        taken: list[Counter[Card]],
    ) -> Counter[Card]:
        """The cards the seat knows to be outside the stock: its hand, the piles, the table's
        melds and what other seats took and still hold."""
        known = Counter(hand)
        known.update(c for pile in piles for c in pile if c != COVERED)
        for other, cards in enumerate(taken):
            if other != self.seat:
                known.update(cards)
        known.update(c for melds in table or () for meld in melds for c in meld)
        return known


class CallReplay(DealReplay):
    """A speed game's deal replayed: only the calls' ends move cards (a choice is secret, and
    replaced at will, until its call ends). Every seat dealt in starts with a card turned up on
    its own pile; a seat draws from the stock or its right neighbour's pile. A draw call the
    stock cannot serve opens on a reshuffle of the cards under the piles' tops, put beneath the
    cards left, which are drawn first (``left_on_top``)."""

    def __init__(self, view: GameView, seat: int, rules: Rules) -> None:
        super().__init__(view, seat, rules)
        turned = view.turned_up or (None,) * len(view.players)
        self.piles = [
            ([COVERED if up is None else up] if s in view.active else [])
            for s, up in enumerate(turned)
        ]
        self.stock -= len(view.active) - 1  # one card turned up per seat, not one in all
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
        if top and top[-1] != COVERED:
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


def _forget(cards: Counter[Card], card: Card) -> None:
    """A card leaves a seat's hand (or the stock): if it was one known to be there, it is no
    longer (with several decks, an identical copy counts as that one)."""
    if cards[card] > 0:
        cards[card] -= 1

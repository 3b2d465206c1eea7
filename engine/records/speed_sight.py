"""What a seat knows at the start of a speed call, for the review.

A speed call's choices are secret until it ends, and then every one is shown at once: the
discards land face up, a card taken from a pile is seen going into its taker's hand. So what a
seat knows at a call's start is its own hand, every pile as it lies, and the cards other seats
took from a pile this deal and still hold; every other copy of the pack is *unseen*, in the
stock or in another hand, and each is taken as equally likely to be the stock's next card.

A reshuffle puts the cards under the piles' tops back under what is left of the stock: they
count as unseen again (their order is unknown, and the old stock's cards come first), so
``stock_known`` is never set. The same ``Sight`` the hint reads in a game played in turns then
gives the same figures (``engine.advice.draw_hint``, ``discard_hint``), with the right
neighbour's pile as the only pile a draw may take.
"""

from __future__ import annotations

from collections import Counter

from engine.cards import Card
from engine.game import GameState
from engine.game.actions import CallEnd, Discard, Draw
from engine.game.speed import right_neighbour
from engine.seen import Sight, pack_copies


class SpeedDeal:
    """The public events of one speed deal, followed call by call."""

    def __init__(self, game: GameState) -> None:
        self.deal = game.deal
        self.taken: list[Counter[Card]] = [Counter() for _ in game.players]
        """Per seat, the cards it took from a pile this deal and has not discarded since."""

    def call_ended(self, call: CallEnd) -> None:
        for move in call.moves:
            if move.card is None:
                continue
            if type(move.action) is Draw and move.action.source == "discard":
                self.taken[move.seat][move.card] += 1
            elif type(move.action) is Discard and self.taken[move.seat][move.card] > 0:
                self.taken[move.seat][move.card] -= 1

    def sight(self, game: GameState, seat: int) -> Sight:
        """What ``seat`` knows in ``game``, the state at the call's start."""
        hand = game.hands[seat]
        placed = Counter(hand)
        placed.update(c for pile in game.piles for c in pile)
        for other, cards in enumerate(self.taken):
            if other != seat:
                placed.update(cards)
        unseen = tuple(
            (c, copies - placed[c])
            for c, copies in pack_copies(game.rules, len(game.players))
            if copies > placed[c]
        )
        tops: tuple[tuple[int | None, Card], ...] = ()
        if game.phase.value == "draw":
            neighbour = right_neighbour(game, seat)
            if game.piles[neighbour]:
                tops = ((neighbour, game.piles[neighbour][-1]),)
        return Sight(
            seat=seat,
            rules=game.rules,
            players=len(game.players),
            wild=game.wild,
            phase=game.phase,
            hand=hand,
            unseen=unseen,
            tops=tops,
            upcard=game.upcards[seat],
            turns_done=game.turns_done,
            active=game.active,
            out_seat=game.out_seat,
            table=None,
            taken=tuple(tuple(sorted(t.elements())) for t in self.taken),
            stock=unseen,
            stock_count=len(game.stock),
            round=game.round,
            rounds=game.rules.rounds,
        )

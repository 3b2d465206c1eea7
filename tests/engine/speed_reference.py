"""A slow, plain reference of a speed game's calls (RULES.md, "3-13 Speed"), for the property
tests in test_speed_properties.py.

It shares nothing with ``engine.game.speed``: it reads the table as lists (hands, piles, stock),
works out who chooses, what each seat may choose, and what one call does to the table, step by
step as the rules text says it. Deadwood comes from ``engine.analysis.min_deadwood``, which
test_analysis_properties.py checks against its own reference.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.analysis import min_deadwood
from engine.cards import JACK, JOKER, KING, Card
from engine.game import Action, Discard, Draw, GameState
from engine.rules import Rules


@dataclass
class Table:
    """The cards of a round in play, as plain lists (each pile's and the stock's top last)."""

    rules: Rules
    wild: int
    dealer: int
    active: list[int]
    hands: list[list[Card]]
    piles: list[list[Card]]
    stock: list[Card]
    out: list[int]
    """The seats that went out this round."""
    penalties: list[int]
    discard_calls: int
    """Discard calls ended this round (first_lap_go_out: the first one is the full lap)."""
    drawn: list[Card | None]
    from_pile: list[Card | None]

    @classmethod
    def of(cls, state: GameState, discard_calls: int) -> Table:
        return cls(
            rules=state.rules,
            wild=state.wild,
            dealer=state.dealer,
            active=list(state.active),
            hands=[list(h) for h in state.hands],
            piles=[list(p) for p in state.piles],
            stock=list(state.stock),
            out=list(state.out_seats),
            penalties=list(state.penalties),
            discard_calls=discard_calls,
            drawn=list(state.drawn),
            from_pile=list(state.upcards),
        )

    @property
    def players(self) -> int:
        return len(self.hands)

    def play_order(self) -> list[int]:
        """The seats dealt in, starting left of the dealer (the next seat)."""
        order = []
        for step in range(1, self.players + 1):
            seat = (self.dealer + step) % self.players
            if seat in self.active:
                order.append(seat)
        return order

    def choosing(self) -> list[int]:
        return [s for s in self.play_order() if s not in self.out]

    def on_the_right(self, seat: int) -> int:
        """The seat before ``seat`` in play: whose pile it draws from."""
        order = self.play_order()
        return order[order.index(seat) - 1]

    # -- what a seat may choose -------------------------------------------------------------

    def draws(self, seat: int) -> set[Action]:
        right = self.on_the_right(seat)
        draws: set[Action] = {Draw("stock")}
        if self.piles[right]:
            draws.add(Draw("discard", right))
        return draws

    def discards(self, seat: int) -> set[Action]:
        hand = self.hands[seat]
        allowed = set(hand)
        up = self.from_pile[seat]
        if not self.rules.discard_drawn_upcard and up is not None and hand.count(up) == 1:
            allowed.discard(up)
        choices: set[Action] = set()
        for card in allowed:
            piles: list[int | None] = [None]
            if card == JOKER and self.rules.joker_discards == "any_pile":
                piles += [p for p in self.active if p != seat]
            for pile in piles:
                choices.add(Discard(card, False, pile))
                if self.may_go_out() and (
                    self.rules.failed_go_out == "penalty" or self.melds_without(seat, card)
                ):
                    choices.add(Discard(card, True, pile))
        return choices

    def may_go_out(self) -> bool:
        if self.out:
            return False
        return self.rules.first_lap_go_out or self.discard_calls >= 1

    def melds_without(self, seat: int, card: Card) -> bool:
        rest = list(self.hands[seat])
        rest.remove(card)
        return min_deadwood(rest, self.wild, self.rules) == 0

    def default(self, seat: int, phase: str) -> Action:
        """What a seat that did not choose does when the caller's time runs out."""
        if phase == "draw":
            return Draw("stock")
        hand = self.hands[seat]
        card = self.drawn[seat]
        assert card is not None  # every seat choosing drew on the draw call before
        up = self.from_pile[seat]
        if not self.rules.discard_drawn_upcard and card == up and hand.count(card) == 1:
            card = min(c for c in hand if c != up or hand.count(c) > 1)
        return Discard(card)

    # -- one call ----------------------------------------------------------------------------

    def draw_call(self, choices: dict[int, Action]) -> None:
        self.drawn = [None] * self.players
        self.from_pile = [None] * self.players
        for seat in self.choosing():  # stock cards dealt from the dealer's left
            action = choices[seat]
            assert isinstance(action, Draw)
            if action.source == "stock":
                card = self.stock.pop()
            else:
                card = self.piles[self.on_the_right(seat)].pop()
                self.from_pile[seat] = card
            self.hands[seat].append(card)
            self.drawn[seat] = card

    def discard_call(self, choices: dict[int, Action]) -> bool:
        """Applies the discards; True when the round is over after it."""
        last_call = bool(self.out)
        went_out = []
        for seat in self.choosing():
            action = choices[seat]
            assert isinstance(action, Discard)
            self.hands[seat].remove(action.card)
            pile = seat if action.pile is None else action.pile
            self.piles[pile].append(action.card)
            if action.go_out:
                if min_deadwood(self.hands[seat], self.wild, self.rules) == 0:
                    went_out.append(seat)
                else:
                    self.penalties[seat] += self.rules.failed_go_out_penalty
        self.discard_calls += 1
        self.from_pile = [None] * self.players
        if last_call:
            return True
        self.out += went_out
        return bool(self.out) and not self.choosing()

    def stock_for_the_next_draw_call(self) -> str:
        """'enough', 'reshuffle' (the cards under each pile's top go under the stock) or 'end'."""
        needed = len(self.choosing())
        if len(self.stock) >= needed:
            return "enough"
        under = [c for pile in self.piles for c in pile[:-1]]
        if self.rules.stock_exhausted == "end_round" or len(self.stock) + len(under) < needed:
            return "end"
        return "reshuffle"

    def under_the_tops(self) -> Counter[Card]:
        return Counter(c for pile in self.piles for c in pile[:-1])

    # -- scoring -----------------------------------------------------------------------------

    def scores(self) -> dict[int, int]:
        rules = self.rules
        doubled = rules.doubled_late_rounds and JACK <= self.wild <= KING
        scores = {}
        for seat in self.active:
            if seat in self.out:
                bonus = rules.going_out_bonus
                points = -rules.rank_points[self.wild] if bonus == "minus_wild" else bonus
            else:
                points = min_deadwood(self.hands[seat], self.wild, rules)
            scores[seat] = points * (2 if doubled else 1) + self.penalties[seat]
        return scores

    def all_melded(self) -> bool:
        return all(min_deadwood(self.hands[s], self.wild, self.rules) == 0 for s in self.active)

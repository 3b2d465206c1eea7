"""Two draws ahead, weighed by the race: what a hand is worth when the round may end on any
turn.

A hand's *outlook* is what the seat's next two draws from the stock do with it, exact over the
cards the stock may hold (each drawn card followed by the analyser's best discard): the chance
it goes out on the first draw, the deadwood it keeps if not, and the same for the second draw.
The *race* turns an outlook into the points the seat expects to lose against the others: the
round ends before this seat's next draw with the chance the next seat goes out (on this seat's
discard or on its own draw: ``Race.ended``), and this seat then keeps the deadwood its last draw
leaves; if this seat goes out first, the others score what they hold; otherwise the race goes
on, one more exchange, and what the hand keeps after its second draw counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card
from engine.draw_values import best_discard, kept_after, stock_value, with_card
from engine.game.melding import without
from engine.rules import Rules
from engine.seen import Copies


@dataclass(frozen=True, slots=True)
class Outlook:
    """What the next two draws from the stock do with a hand."""

    kept: float
    """The mean least deadwood after the first draw and the best discard."""
    out: float
    """The chance the first draw leaves a fully melded hand."""
    kept_later: float
    """The mean least deadwood after the second draw, over the first draws that did not go out
    (``kept`` when every first draw goes out)."""
    out_later: float
    """The chance the second draw goes out, over the first draws that did not."""


@dataclass(frozen=True, slots=True)
class Race:
    """The race as this seat sees it, from its samples of the other hands."""

    ended: float
    """The chance the round ends before this seat's next draw (the next seat goes out)."""
    ends: float
    """The chance it ends on a later turn of the others, before this seat draws again."""
    others: float
    """What the others lose when this seat goes out first (their mean deadwood, weighted)."""
    later: float = 0.8
    """The weight of the deadwood kept after two draws while the race goes on (more turns
    follow, and they lower it)."""

    def points(self, outlook: Outlook) -> float:
        """The points this seat expects to lose against the others with this ``outlook``:
        negative when its chances to go out first outweigh what it holds."""
        first_out = -outlook.out * self.others
        second = self.ends * outlook.kept_later + (1.0 - self.ends) * (
            -outlook.out_later * self.others
            + (1.0 - outlook.out_later) * self.later * outlook.kept_later
        )
        going_on = first_out + (1.0 - outlook.out) * second
        return self.ended * outlook.kept + (1.0 - self.ended) * going_on

    def one_draw(self, value: tuple[float, float]) -> float:
        """``points`` for a hand seen one draw ahead only: ``value`` is its (mean deadwood,
        go-out chance) after the draw, and that deadwood counts for the race going on."""
        kept, out = value
        going_on = -out * self.others + (1.0 - out) * self.later * kept
        return self.ended * kept + (1.0 - self.ended) * going_on


class Outlooks:
    """Outlooks of hands for one seat's decision, each hand's worked out once; ``work`` counts
    the hands evaluated: one per distinct card the stock may hold in each stock value."""

    def __init__(self, wild: int, rules: Rules, stock: Copies) -> None:
        self.wild, self.rules, self.stock = wild, rules, stock
        self._values: dict[tuple[Card, ...], tuple[float, float]] = {}
        self._outlooks: dict[tuple[Card, ...], Outlook] = {}
        self.work = 0

    def value(self, hand: tuple[Card, ...]) -> tuple[float, float]:
        """(mean deadwood, go-out chance) after one draw from the stock into ``hand``."""
        found = self._values.get(hand)
        if found is None:
            self.work += len(self.stock)
            found = self._values[hand] = stock_value(hand, self.wild, self.rules, self.stock)
        return found

    def after(self, hand: tuple[Card, ...], card: Card) -> tuple[Card, ...] | None:
        """``hand`` after drawing ``card`` and the best discard; None when it is fully melded."""
        drawn = with_card(hand, card)
        thrown, left = best_discard(drawn, self.wild, self.rules)
        return None if left == 0 else without(drawn, thrown)

    def outlook(self, hand: tuple[Card, ...]) -> Outlook:
        found = self._outlooks.get(hand)
        if found is not None:
            return found
        total = melded = 0
        kept = later = out_later = 0.0
        for card, copies in self.stock:
            total += copies
            rest = self.after(hand, card)
            if rest is None:
                melded += copies
                continue
            kept += copies * kept_after(with_card(hand, card), self.wild, self.rules)
            mean, chance = self.value(rest)
            later += copies * mean
            out_later += copies * chance
        going_on = total - melded
        first = kept / total if total else 0.0
        if going_on:
            found = Outlook(first, melded / total, later / going_on, out_later / going_on)
        else:
            found = Outlook(first, 1.0 if total else 0.0, first, 0.0)
        self._outlooks[hand] = found
        return found


__all__ = ["Outlook", "Outlooks", "Race"]

"""A computer player's choice in a speed call (``turns: speed``), for every level.

The turn-based levels (``engine.bots.levels``) plan a turn and read the log turn by turn; a
speed game has calls instead, and every seat chooses at once. This policy is small and honest:
it sees only the seat's own view and the choices legal for it in the open call (which follow
from that view and the rules), never the state.

- draw call: the right neighbour's pile top if taking it lowers the hand's least deadwood (with
  the best discard after it), else the stock;
- discard call: go out when a legal go-out leaves nothing unmelded; else the discard that leaves
  the least deadwood (ties: the card of the higher code goes), always onto the seat's own pile
  (a joker is wild, and the policy keeps it).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.errors import IllegalAction
from engine.game.actions import Action, Discard, Draw, Phase
from engine.game.melding import deadwood_points, without
from engine.game.views import GameView
from engine.rules import Rules


def choose(view: GameView, seat: int, legal: Sequence[Action], rules: Rules) -> Action:
    """``seat``'s choice in the open call, one of ``legal`` (the engine's ``legal_actions``
    for the seat)."""
    choices = [a for a in legal if isinstance(a, Draw | Discard)]
    if view.call is None or view.hand is None or not choices:
        raise IllegalAction("a speed choice needs an open call the seat chooses in")
    hand = view.hand
    if view.call.phase is Phase.DRAW:
        return _draw(view, hand, choices, rules)
    return _discard(view, seat, hand, choices, rules)


def _least_after_discard(hand: tuple[Card, ...], view: GameView, rules: Rules) -> int:
    return min(deadwood_points(without(hand, card), view.wild, rules) for card in set(hand))


def _draw(view: GameView, hand: tuple[Card, ...], legal: Sequence[Action], rules: Rules) -> Action:
    stock = next(a for a in legal if isinstance(a, Draw) and a.source == "stock")
    piles = [a for a in legal if isinstance(a, Draw) and a.source == "discard"]
    if not piles or view.discard_tops is None:
        return stock
    pile = piles[0]
    top = view.discard_tops[pile.pile if pile.pile is not None else 0]
    if top is None:
        return stock
    now = deadwood_points(hand, view.wild, rules)
    taken = _least_after_discard(tuple(sorted((*hand, top))), view, rules)
    return pile if taken < now else stock


def _discard(
    view: GameView, seat: int, hand: tuple[Card, ...], legal: Sequence[Action], rules: Rules
) -> Action:
    discards = [a for a in legal if isinstance(a, Discard) and a.pile in (None, seat)]
    if not discards:  # pragma: no cover - a seat may always discard onto its own pile
        return legal[0]
    left = {a.card: deadwood_points(without(hand, a.card), view.wild, rules) for a in discards}
    for action in discards:
        if action.go_out and left[action.card] == 0:
            return action
    plain = [a for a in discards if not a.go_out] or discards
    return min(plain, key=lambda a: (left[a.card], -a.card))

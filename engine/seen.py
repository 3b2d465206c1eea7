"""What a seat knows of its round: built from its view and the public log only, never the state.

Replaying this deal's public log entries (``LogEntry.deal``) rebuilds the discard piles, the
stock's size and the cards each other seat took from a pile and still holds. Every card of the
pack that is not in the seat's hand, in a pile, on the table (redemption) or known in another
seat's hand is *unseen*: it may be in the stock or in another hand, and from this seat's point of
view each unseen copy is equally likely to be the stock's next card.

One card escapes the log: the upcard turned at the deal, once a discard covers it before anybody
takes it. No view or log entry names it any more, so it counts as unseen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from engine.cards import Card, Rank
from engine.game.actions import Discard, Draw, LayOff, Phase
from engine.game.play import hand_size
from engine.game.views import GameView, LogEntry
from engine.rules import Rules

_COVERED: Final = -1
"""The deal's upcard in a rebuilt pile while no view or log entry names it."""


@dataclass(frozen=True, slots=True)
class Sight:
    """Everything one seat knows of the round it is playing, in the engine's card ints."""

    seat: int
    rules: Rules
    players: int
    wild: Rank
    phase: Phase | None
    hand: tuple[Card, ...]
    unseen: tuple[tuple[Card, int], ...]
    """Each distinct unseen card with its number of unseen copies, in card order."""
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

    @property
    def may_go_out(self) -> bool:
        """Whether a go-out may be declared this turn (nobody out yet, the first lap done)."""
        if self.out_seat is not None:
            return False
        return self.rules.first_lap_go_out or self.turns_done >= len(self.active)

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


def _uncover(piles: list[list[Card]], tops: tuple[Card | None, ...] | None) -> None:
    """A pile still holding only its covered first card shows the top the view shows."""
    for pile, top in zip(piles, tops or (), strict=False):
        if pile == [_COVERED] and top is not None:
            pile[0] = top


def sight(view: GameView, log: Sequence[LogEntry], seat: int, rules: Rules) -> Sight:
    """What ``seat`` knows, from its own ``view`` and the public ``log`` it may see."""
    per_player = rules.discard_piles == "per_player"
    n = len(view.players)
    piles: list[list[Card]] = [[] for _ in range(n if per_player else 1)]
    piles[view.dealer if per_player else 0].append(_COVERED)
    pack = _pack(rules, n)
    stock = sum(copies for _, copies in pack) - len(view.active) * hand_size(rules, view.round) - 1
    taken: list[Counter[Card]] = [Counter() for _ in range(n)]
    turns_done = 0
    for entry in _this_deal(log, view.deal):
        action, card = entry.action, entry.card
        if isinstance(action, Draw):
            if action.source == "stock":
                stock -= 1
            elif card is not None:
                pile = piles[_pile_of(action.pile, entry.seat, per_player=per_player)]
                pile.pop()
                taken[entry.seat][card] += 1
        elif isinstance(action, Discard) and card is not None:
            # A joker may go onto another seat's pile (``joker_discards: any_pile``).
            onto = entry.seat if action.pile is None else action.pile
            piles[onto if per_player else 0].append(card)
            _forget(taken[entry.seat], card)
            turns_done += 1
            if stock == 0:
                stock = _restock(piles)
        elif isinstance(action, LayOff) and card is not None:
            _forget(taken[entry.seat], card)
    _uncover(piles, view.discard_tops if per_player else (view.discard_top,))
    table = _table_cards(view)
    for owner, melds in enumerate(table or ()):
        if melds:  # its hand went down: what it took is on the table or still deadwood
            taken[owner].clear()
    hand = view.hand or ()
    seen = Counter(hand)
    seen.update(c for pile in piles for c in pile if c != _COVERED)
    for other, cards in enumerate(taken):
        if other != seat:
            seen.update(cards)
    seen.update(c for melds in table or () for meld in melds for c in meld)
    unseen = tuple((c, copies - seen[c]) for c, copies in pack if copies > seen[c])
    return Sight(
        seat=seat,
        rules=rules,
        players=n,
        wild=view.wild if view.wild is not None else rules.wild_rank(1),
        phase=view.phase,
        hand=tuple(hand),
        unseen=unseen,
        tops=_draw_tops(view, per_player=per_player),
        upcard=view.upcard,
        turns_done=turns_done,
        active=view.active,
        out_seat=view.out_seat,
        table=table,
        taken=tuple(tuple(sorted(t.elements())) for t in taken),
    )


@lru_cache(maxsize=64)
def _pack(rules: Rules, players: int) -> tuple[tuple[Card, int], ...]:
    """The pack for ``players`` seats: each distinct card with its copies, in card order."""
    return tuple(sorted(Counter(rules.pack(players)).items()))


def _this_deal(log: Sequence[LogEntry], deal: int) -> Sequence[LogEntry]:
    """The log's entries of ``deal``: the last ones (found from the end: a game's log is long,
    a round's short)."""
    start = len(log)
    while start and log[start - 1].deal == deal:
        start -= 1
    return log[start:]


def _pile_of(pile: int | None, seat: int, *, per_player: bool) -> int:
    if not per_player:
        return 0
    return seat if pile is None else pile


def _forget(cards: Counter[Card], card: Card) -> None:
    """A card leaves a seat's hand: if it was one the seat was known to hold, it is no longer
    (with several decks, an identical copy counts as that one)."""
    if cards[card] > 0:
        cards[card] -= 1


def _restock(piles: list[list[Card]]) -> int:
    """The stock ran out: all but each pile's top go back into it, face down (unseen again).
    Returns the new stock's size (0 when the round ends instead; nothing follows then)."""
    under = sum(max(len(pile) - 1, 0) for pile in piles)
    for pile in piles:
        del pile[:-1]
    return under


def _table_cards(view: GameView) -> tuple[tuple[tuple[Card, ...], ...], ...] | None:
    if view.table is None:
        return None
    return tuple(tuple(meld.cards for meld in melds) for melds in view.table)


def _draw_tops(view: GameView, *, per_player: bool) -> tuple[tuple[int | None, Card], ...]:
    if view.phase is not Phase.DRAW:
        return ()
    if per_player:
        return tuple((k, top) for k, top in enumerate(view.discard_tops or ()) if top is not None)
    return () if view.discard_top is None else ((None, view.discard_top),)

"""What a hand keeps after a draw: the least deadwood after its best discard, memoised, and the
stock's worth as the mean of that over the cards a seat has not seen.

The figure for a hand is memoised (one bounded memo per rules value and wild rank), so a bot's
look-ahead at its discard pays for its next turn's hint. A drawn card that no meld of the hand
can take needs no search (``_DeadCards``): the hand keeps its deadwood now, or its best
discard's plus the card's penalty. ``engine.advice`` builds the hint on these.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from engine.analysis import analyse, min_deadwood
from engine.analysis.hand import is_wild
from engine.cards import KING, Card, Rank
from engine.errors import NothingUnseen
from engine.rules import Rules

RUN_REACH: Final = 2
"""How far a three-card run reaches either side of one of its cards, in ranks; a set of
naturals needs two more cards of its rank."""


def ranked_discards(
    hand: tuple[Card, ...], wild: Rank, rules: Rules, forbidden: Card | None = None
) -> list[tuple[Card, int]]:
    """Each distinct card ``hand`` may discard with the least deadwood it leaves, best first
    (the analyser's order: least deadwood, then the dearest card)."""
    if len(hand) == 1:
        return [(hand[0], 0)]
    ranked = [(d.card, d.deadwood_points) for d in analyse(hand, wild, rules).discards]
    return [entry for entry in ranked if entry[0] != forbidden]


MEMO_SIZE: Final = 16384
"""Hands a ``kept_after`` memo holds before it starts afresh (a round's look-aheads take a
few thousand)."""
MEMO_RULES: Final = 4
"""Memos kept, one per rules value and wild rank, the least recently used dropped first. A
game's bots use one at a time, but ``advise`` takes any rules value from anybody, so their
number is bounded too: at most ``MEMO_RULES * MEMO_SIZE`` hands in all."""

_Best = tuple[Card, int, int]
"""A hand's best discard, the deadwood it leaves, and the least deadwood another card's
discard leaves (for a forbidden best card)."""
_Memo = dict[tuple[Card, ...], _Best]
_MEMOS: OrderedDict[tuple[Rules, Rank], _Memo] = OrderedDict()
_LAST: list[tuple[Rules, Rank, _Memo]] = []
_MEMOS_LOCK: Final = threading.Lock()
"""Hints run in a thread pool: the LRU's reordering and eviction happen under it."""


@dataclass(slots=True)
class MemoCounts:
    """What the ``kept_after`` memos hold and have dropped (``memo_counts``)."""

    memos: int = 0
    hands: int = 0
    memos_dropped: int = 0
    """Memos evicted as the least recently used."""
    memos_cleared: int = 0
    """Memos that filled up and started afresh."""


_COUNTS = MemoCounts()


def _memo(rules: Rules, wild: Rank) -> _Memo:
    """The memo of one rules value and wild rank. Found by identity first: hashing a ``Rules``
    (every field, on every call) would cost more than a memo hit saves."""
    last = _LAST[0] if _LAST else None
    if last is not None and last[0] is rules and last[1] == wild:
        return last[2]
    key = (rules, wild)
    with _MEMOS_LOCK:
        memo = _MEMOS.get(key)
        if memo is None:
            memo = _MEMOS[key] = {}
            while len(_MEMOS) > MEMO_RULES:
                _MEMOS.popitem(last=False)
                _COUNTS.memos_dropped += 1
        else:
            _MEMOS.move_to_end(key)
        _LAST[:] = [(rules, wild, memo)]
    return memo


def memo_counts() -> MemoCounts:
    """The memos' sizes now and what they dropped since the process started."""
    with _MEMOS_LOCK:
        return MemoCounts(
            len(_MEMOS),
            sum(len(memo) for memo in _MEMOS.values()),
            _COUNTS.memos_dropped,
            _COUNTS.memos_cleared,
        )


def clear_memo() -> None:
    """Forget every memoised hand (for benchmarks that time a first look)."""
    with _MEMOS_LOCK:
        _MEMOS.clear()
        _LAST.clear()


def kept_after(
    hand: tuple[Card, ...], wild: Rank, rules: Rules, forbidden: Card | None = None
) -> int:
    """The least deadwood ``hand`` (sorted, one card over its size) keeps after its best
    discard. Memoised: a discard's look-ahead asks what the next turn's hint asks again."""
    best = _best(hand, wild, rules)
    return best[2] if best[0] == forbidden else best[1]


def best_discard(hand: tuple[Card, ...], wild: Rank, rules: Rules) -> tuple[Card, int]:
    """The analyser's best discard of ``hand`` (sorted) and the deadwood it leaves, memoised."""
    best = _best(hand, wild, rules)
    return best[0], best[1]


def _best(hand: tuple[Card, ...], wild: Rank, rules: Rules) -> _Best:
    memo = _memo(rules, wild)
    best = memo.get(hand)
    if best is None:
        if len(hand) == 1:
            best = (hand[0], 0, 0)
        else:
            ranked = analyse(hand, wild, rules).discards
            first, second = ranked[0], ranked[min(1, len(ranked) - 1)]
            best = (first.card, first.deadwood_points, second.deadwood_points)
        if len(memo) >= MEMO_SIZE:
            memo.clear()
            _COUNTS.memos_cleared += 1
        memo[hand] = best
    return best


def with_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """The sorted ``hand`` with ``card`` in its place."""
    at = bisect_right(hand, card)
    return (*hand[:at], card, *hand[at:])


def stock_value(
    hand: tuple[Card, ...], wild: Rank, rules: Rules, unseen: Iterable[tuple[Card, int]]
) -> tuple[float, float]:
    """(mean least deadwood, go-out chance) of drawing one of ``unseen`` into ``hand`` (the
    go-out chance counts every melded hand; the caller knows whether going out is allowed)."""
    total = weighted = melded = 0
    shortcut = _DeadCards(hand, wild, rules)
    for card, copies in unseen:
        kept = shortcut.kept(card)
        if kept is None:
            kept = kept_after(with_card(hand, card), wild, rules)
        total += copies
        weighted += copies * kept
        melded += copies if kept == 0 else 0
    if total == 0:
        raise NothingUnseen("no card is left that the stock could hold", field="seen")
    return weighted / total, melded / total


_ROUNDING = 1e-6
"""Slack for the rounding of ``bound * total`` (the weighted sum itself is a whole number)."""


def stock_mean_below(
    hand: tuple[Card, ...],
    wild: Rank,
    rules: Rules,
    unseen: tuple[tuple[Card, int], ...],
    bound: float,
    *,
    deadwood: int | None = None,
) -> float | None:
    """``stock_value``'s mean, or None once it is sure to exceed ``bound``: branch and bound
    for a look-ahead that only needs the best candidate. The cheap dead cards are counted first,
    and once what is counted, with every card left at no deadwood at all, is over ``bound``, no
    search is spent on the rest. (A mean at or just over the bound is still answered, so the
    caller's own comparison settles ties exactly as without the bound.) ``deadwood`` is the
    hand's least deadwood when the caller knows it (a discard's ranking does)."""
    shortcut = _DeadCards(hand, wild, rules, deadwood)
    total = sum(copies for _, copies in unseen)
    if total == 0:
        return float(shortcut.now)
    weighted = 0
    live = []
    for card, copies in unseen:
        kept = shortcut.kept(card)
        if kept is None:
            live.append((card, copies))
        else:
            weighted += copies * kept
    limit = bound * total + _ROUNDING
    for card, copies in live:
        if weighted > limit:
            return None
        weighted += copies * kept_after(with_card(hand, card), wild, rules)
    return weighted / total if weighted <= limit else None


class _DeadCards:
    """The deadwood kept after drawing a card that no meld of the hand can take, without a
    search. Such a card is deadwood in every arrangement, so the best is either to throw it
    back (the hand's least deadwood now) or to keep it in place of the hand's best discard (the
    least deadwood after that discard, plus the card's penalty).

    A card is dead when it is a natural and the hand cannot meld it: with no wild, no two
    naturals of its rank and no two of its suit next to it in a run; with one wild, no natural
    of its rank or of its suit within two ranks (around the ace too, when aces play high).
    With two wilds every card may meld. The cards that a suit's naturals reach, and those that
    two of them make a run with, are listed once per hand.
    """

    def __init__(
        self, hand: tuple[Card, ...], wild: Rank, rules: Rules, now: int | None = None
    ) -> None:
        self.hand, self.wild, self.rules = hand, wild, rules
        self.wilds = sum(1 for c in hand if is_wild(c, wild))
        naturals = {c for c in hand if not is_wild(c, wild)}
        self.usable = self.wilds <= 1 and len(hand) > 1
        if now is None:
            now = min_deadwood(hand, wild, rules) if hand else 0
        self.now = now
        self.after_best = -1
        """The least deadwood after the hand's best discard; found when a card first needs it
        (a dead card dearer than the deadwood now is simply thrown back)."""
        self.ranks = [0] * 13
        for c in hand:
            if c in naturals:
                self.ranks[c % 13] += 1
        around = rules.aces == "high_or_low"
        self.reached: set[Card] = set()
        """With one wild: the cards within RUN_REACH ranks of a natural of their suit."""
        self.runs: set[Card] = set()
        """With no wild: the cards that make a three-card run with two naturals."""
        for c in naturals:
            self.reached.update(_neighbours(c, _REACHES, around))
            if _neighbour(c, 1, around) in naturals:  # c, c+1: c-1 and c+2 make a run
                self.runs.update(_neighbours(c, (-1, 2), around))
            if _neighbour(c, 2, around) in naturals:  # c, c+2: c+1 does
                self.runs.update(_neighbours(c, (1,), around))

    def kept(self, card: Card) -> int | None:
        if not self.usable or is_wild(card, self.wild) or not self._dead(card):
            return None
        points = self.rules.points(card, self.wild)
        if points >= self.now:
            return self.now
        if self.after_best < 0:
            self.after_best = kept_after(self.hand, self.wild, self.rules)
        return min(self.now, self.after_best + points)

    def _dead(self, card: Card) -> bool:
        same_rank = self.ranks[card % 13]
        if self.wilds:
            return not same_rank and card not in self.reached
        return same_rank < RUN_REACH and card not in self.runs


_REACHES: Final = tuple(k for k in range(-RUN_REACH, RUN_REACH + 1) if k)


def _neighbour(card: Card, offset: int, around: bool) -> Card | None:
    """The card ``offset`` ranks from ``card`` in its suit (round the ace when aces play
    high), or None past the ends."""
    rank = card % KING + offset  # ranks 0 to 12 within the suit: one per rank, ace to king
    if around:
        rank %= KING
    elif not 0 <= rank < KING:
        return None
    return card - card % KING + rank


def _neighbours(card: Card, offsets: Iterable[int], around: bool) -> list[Card]:
    found = (_neighbour(card, k, around) for k in offsets)
    return [c for c in found if c is not None]

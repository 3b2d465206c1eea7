"""A seat's hint: what each draw is worth on average, and every discard ranked.

A draw from the stock is worth the mean, over the cards the seat has not seen, of the least
deadwood its hand can keep after drawing that card and making the best discard; a pile's top
card is worth exactly that for the card shown. It is exact, not sampled: the unseen cards are a
multiset (several decks), so each distinct card is analysed once and weighted by its copies.
The go-out chance is the share of those cards that leave no deadwood at all.

Everything here is a pure function of a ``Sight`` (``engine.seen``): what the seat's view and
the public log show, never the game state. ``advise`` builds one from a bare hand for tools.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from engine.analysis import analyse, min_deadwood
from engine.analysis.hand import is_wild
from engine.cards import KING, Card, Rank, format_card
from engine.errors import HandError
from engine.game.actions import DrawSource, Phase
from engine.rules import Rules
from engine.seen import Sight

RUN_REACH: Final = 2
"""How far a three-card run reaches either side of one of its cards, in ranks; a set of
naturals needs two more cards of its rank."""


@dataclass(frozen=True, slots=True)
class DrawOption:
    """One draw source and what it is worth."""

    source: DrawSource
    pile: int | None
    """Whose pile (per-player piles), else None."""
    card: Card | None
    """The pile's top card; None for the stock."""
    expected_deadwood: float
    """The least deadwood after the best discard: the mean over the unseen cards for the
    stock, exact for a pile's top card."""
    go_out_chance: float


@dataclass(frozen=True, slots=True)
class DrawHint:
    options: tuple[DrawOption, ...]
    """The stock first, then each pile that may be drawn from."""
    advised: DrawOption
    reason: str


@dataclass(frozen=True, slots=True)
class DiscardOption:
    card: Card
    deadwood_points: int
    """The least deadwood of the hand left after discarding ``card``."""
    go_out: bool
    """Whether discarding ``card`` goes out (a fully melded rest, and going out allowed now)."""


@dataclass(frozen=True, slots=True)
class DiscardHint:
    discards: tuple[DiscardOption, ...]
    """Every distinct card the seat may discard, best first."""
    suggested: Card
    reason: str


Hint = DrawHint | DiscardHint


# -- what a hand keeps --------------------------------------------------------------------------


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

_Best = tuple[Card, int, int]
"""A hand's best discard, the deadwood it leaves, and the least deadwood another card's
discard leaves (for a forbidden best card)."""
MEMOS_KEPT: Final = 32
"""Memos kept, one per rules value and wild rank, the least recently used dropped first: a
game keeps asking with its own rules, and a client sending a new rules value each time (issue
32: 20,000 advice requests, 68 → 408 MB, never given back) only turns the oldest memos over."""
_MEMOS: OrderedDict[tuple[Rules, Rank], dict[tuple[Card, ...], _Best]] = OrderedDict()
_LAST: list[tuple[Rules, Rank, dict[tuple[Card, ...], _Best]]] = []


def _memo(rules: Rules, wild: Rank) -> dict[tuple[Card, ...], _Best]:
    """The memo of one rules value and wild rank. Found by identity first: hashing a ``Rules``
    (every field, on every call) would cost more than a memo hit saves."""
    if _LAST and _LAST[0][0] is rules and _LAST[0][1] == wild:
        return _LAST[0][2]
    key = (rules, wild)
    memo = _MEMOS.get(key)
    if memo is None:
        memo = _MEMOS[key] = {}
        if len(_MEMOS) > MEMOS_KEPT:
            _MEMOS.popitem(last=False)
    else:
        _MEMOS.move_to_end(key)
    _LAST[:] = [(rules, wild, memo)]
    return memo


def memos_held() -> int:
    """Memos held now (at most ``MEMOS_KEPT``)."""
    return len(_MEMOS)


def clear_memo() -> None:
    """Forget every memoised hand (for benchmarks that time a first look)."""
    _MEMOS.clear()
    _LAST.clear()


def kept_after(
    hand: tuple[Card, ...], wild: Rank, rules: Rules, forbidden: Card | None = None
) -> int:
    """The least deadwood ``hand`` (sorted, one card over its size) keeps after its best
    discard. Memoised: a discard's look-ahead asks what the next turn's hint asks again."""
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
        memo[hand] = best
    return best[2] if best[0] == forbidden else best[1]


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
    if total == 0:  # nothing left unseen: the stock can only hold what the seat knows of
        return float(shortcut.now), 0.0
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


# -- the hint -------------------------------------------------------------------------------------


def hint(sight: Sight) -> Hint:
    """The advice for the seat on turn: a ``DrawHint`` in the draw phase, else a ``DiscardHint``."""
    return draw_hint(sight) if sight.phase is Phase.DRAW else discard_hint(sight)


def draw_hint(sight: Sight) -> DrawHint:
    hand, wild, rules = sight.hand, sight.wild, sight.rules
    may_go_out = sight.may_go_out
    mean, chance = stock_value(hand, wild, rules, sight.unseen)
    options = [DrawOption("stock", None, None, mean, chance if may_go_out else 0.0)]
    forbid = not rules.discard_drawn_upcard
    for pile, card in sight.tops:
        drawn = with_card(hand, card)
        forbidden = card if forbid and drawn.count(card) == 1 else None
        kept = kept_after(drawn, wild, rules, forbidden)
        out = 1.0 if kept == 0 and may_go_out else 0.0
        options.append(DrawOption("discard", pile, card, float(kept), out))
    # The least expected deadwood; then the better go-out chance; then the stock, which shows
    # the other seats nothing.
    advised = min(
        options, key=lambda o: (o.expected_deadwood, -o.go_out_chance, o.card is not None)
    )
    return DrawHint(tuple(options), advised, _draw_reason(advised, options[0]))


def discard_hint(sight: Sight) -> DiscardHint:
    ranked = ranked_discards(sight.hand, sight.wild, sight.rules, sight.forbidden_discard)
    may_go_out = sight.may_go_out
    discards = tuple(DiscardOption(c, left, may_go_out and left == 0) for c, left in ranked)
    best = discards[0]
    return DiscardHint(discards, best.card, _discard_reason(best))


def _draw_reason(advised: DrawOption, stock: DrawOption) -> str:
    if advised.card is None:
        odds = (
            f", with a {advised.go_out_chance:.0%} chance to go out"
            if advised.go_out_chance
            else ""
        )
        return (
            f"Draw from the stock: it leaves {advised.expected_deadwood:.1f} points of deadwood "
            f"on average{odds}."
        )
    shown = format_card(advised.card)
    if advised.go_out_chance:
        return f"Take the {shown} from the discard pile: it lets you go out."
    return (
        f"Take the {shown} from the discard pile: it leaves {advised.expected_deadwood:.0f} "
        f"points of deadwood, against {stock.expected_deadwood:.1f} on average from the stock."
    )


def _discard_reason(best: DiscardOption) -> str:
    shown = format_card(best.card)
    if best.go_out:
        return f"Discard the {shown} and go out: the rest of the hand is fully melded."
    return f"Discard the {shown}: it leaves {best.deadwood_points} points of deadwood, the least."


# -- stateless advice -----------------------------------------------------------------------------


def advise(
    hand: Iterable[Card],
    wild: Rank,
    rules: Rules,
    *,
    upcard: Card | None = None,
    seen: Iterable[Card] = (),
    players: int = 2,
) -> Hint:
    """The hint for a bare hand: the draw phase when ``upcard`` is given (the hand before
    drawing), else the discard phase (the hand after drawing). ``seen`` are cards known to be
    out of the stock; the pack is the rules' pack for ``players`` seats."""
    held = tuple(sorted(hand))
    if not held:
        raise HandError("the hand is empty")
    pack = Counter(rules.pack(players))
    _check_in_pack(Counter(held), pack, "hand", "the hand")
    known = Counter(held)
    if upcard is not None:
        known[upcard] += 1
        _check_in_pack(known, pack, "upcard", "the hand and the upcard")
    known.update(seen)
    together = (
        "the hand and the seen cards" if upcard is None else "the hand, upcard and seen cards"
    )
    _check_in_pack(known, pack, "seen", together)
    unseen = tuple((c, pack[c] - known[c]) for c in sorted(pack) if pack[c] > known[c])
    sight = Sight(
        seat=0,
        rules=rules,
        players=players,
        wild=wild,
        phase=Phase.DRAW if upcard is not None else Phase.DISCARD,
        hand=held,
        unseen=unseen,
        tops=() if upcard is None else ((None, upcard),),
        upcard=None,
        turns_done=players,
        active=tuple(range(players)),
        out_seat=None,
        table=None,
        taken=((),) * players,
    )
    return hint(sight)


class PackError(HandError):
    """Cards that the pack cannot hold: more copies than it has, or cards it has none of."""

    def __init__(self, message: str, *, field: str) -> None:
        self.field = field
        super().__init__(message)


def _check_in_pack(cards: Counter[Card], pack: Counter[Card], field: str, what: str) -> None:
    for card, count in sorted(cards.items()):
        if count > pack[card]:
            held = "none" if pack[card] == 0 else f"only {pack[card]}"
            raise PackError(
                f"{count} x {format_card(card)} in {what}, but the pack has {held}", field=field
            )

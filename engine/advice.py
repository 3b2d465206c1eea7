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

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards import Card, Rank, format_card
from engine.draw_values import kept_after, ranked_discards, stock_value, with_card
from engine.errors import HandError, NothingUnseen, PackError
from engine.game.actions import DrawSource, Phase
from engine.rules import Rules
from engine.seen import Sight

__all__ = [  # PackError too: callers have always found it here
    "DiscardHint",
    "DiscardOption",
    "DrawHint",
    "DrawOption",
    "Hint",
    "NothingUnseen",
    "PackError",
    "advise",
    "discard_hint",
    "draw_hint",
    "hint",
]


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
    """The chance the draw lets the hand end the round with no points: go out now, or on a
    last turn (somebody else is out) keep a fully melded hand. 0 while nobody may go out yet
    (``first_lap_go_out``)."""


@dataclass(frozen=True, slots=True)
class DrawHint:
    options: tuple[DrawOption, ...]
    """The stock first, then each pile that may be drawn from."""
    advised: DrawOption
    reason: str
    stock_known: bool = False
    """The stock was reshuffled this round from the discards: its cards are known, and the
    stock's figures are over them alone (not over cards in other hands)."""


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


# -- the hint -------------------------------------------------------------------------------------


def hint(sight: Sight) -> Hint:
    """The advice for the seat on turn: a ``DrawHint`` in the draw phase, else a ``DiscardHint``."""
    return draw_hint(sight) if sight.phase is Phase.DRAW else discard_hint(sight)


def draw_hint(sight: Sight) -> DrawHint:
    hand, wild, rules = sight.hand, sight.wild, sight.rules
    may_go_out = sight.may_go_out or sight.last_turn
    mean, chance = stock_value(hand, wild, rules, sight.stock)
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
    reason = _draw_reason(advised, options[0], last_turn=sight.last_turn)
    if sight.stock_known:
        reason += " The stock is the reshuffled discard pile: its cards are known."
    return DrawHint(tuple(options), advised, reason, stock_known=sight.stock_known)


def discard_hint(sight: Sight) -> DiscardHint:
    ranked = ranked_discards(sight.hand, sight.wild, sight.rules, sight.forbidden_discard)
    may_go_out = sight.may_go_out
    discards = tuple(DiscardOption(c, left, may_go_out and left == 0) for c, left in ranked)
    best = discards[0]
    return DiscardHint(discards, best.card, _discard_reason(best))


def _draw_reason(advised: DrawOption, stock: DrawOption, *, last_turn: bool) -> str:
    out = "end the round with no points" if last_turn else "go out"
    if advised.card is None:
        odds = (
            f", with a {advised.go_out_chance:.0%} chance to {out}" if advised.go_out_chance else ""
        )
        return (
            f"Draw from the stock: it leaves {advised.expected_deadwood:.1f} points of deadwood "
            f"on average{odds}."
        )
    shown = format_card(advised.card)
    if advised.go_out_chance:
        return f"Take the {shown} from the discard pile: it lets you {out}."
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
    if upcard is not None and not unseen:
        raise NothingUnseen(
            f"{together} hold every card of the pack: none is left for the stock", field="seen"
        )
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
        stock=unseen,
    )
    return hint(sight)


def _check_in_pack(cards: Counter[Card], pack: Counter[Card], field: str, what: str) -> None:
    for card, count in sorted(cards.items()):
        if count > pack[card]:
            held = "none" if pack[card] == 0 else f"only {pack[card]}"
            raise PackError(
                f"{count} x {format_card(card)} in {what}, but the pack has {held}", field=field
            )

"""Exact hand analysis: the arrangement into melds with the least deadwood.

The chain: split the hand into natural cards and wilds → drop the naturals no meld can ever hold
→ an exact, memoised branch-and-bound search over the remaining naturals → the best arrangement →
deadwood. The search runs on the hand's mirror image (ranks counted from the king down), so it
meets the dearest cards first and cuts soonest; its arrangement is mirrored back. On large hands
it races a search of the hand as it is, since each order has hands that only the other finds easy.

The search state is (remaining naturals, wilds not yet placed, spare room for wilds in the melds
made so far, the pool of the rank being passed). It always decides the lowest remaining natural
card ``c`` (rank-major order, so every other card of its suit has a rank at least as high): ``c``
goes to its rank's pool (which becomes sets or deadwood as a whole), or heads a run drawn from
the higher naturals of its suit. Where an ace may also play high, an ace can instead move to a
place after the kings (see _MeldTable), where runs from below can take it and the aces left make
sets or deadwood. A meld's missing cards (the gaps of a run, or the cards a set or run lacks to
reach three) are paid for in wilds. Wilds left at the end fill spare room in the melds, form
all-wild melds where the rules allow, or count as deadwood, the cheapest first.

A card of the wild rank plays either way: as a wild, or as the natural card it is, which counts
towards no limit on wilds. Where the rules set no such limit (any number of wilds per meld,
all-wild melds allowed) a wild can do all a natural can, so the wild-rank cards simply play as
wilds; under a limit the hand is searched once per way of splitting its wild-rank cards into
naturals and wilds (see _roles), and the least deadwood of all is the hand's. In an arrangement a
card that plays as itself, natural or a wild-rank card standing for itself, stands for None.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import accumulate, product
from typing import Final, Literal, TypeAlias

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.cards import (
    JOKER,
    KING,
    Card,
    Rank,
    card,
    format_card,
    format_rank,
    parse_cards,
    parse_rank,
)
from engine.errors import HandError
from engine.rules import Rules, RulesSpec

MAX_HAND: Final = 30
_UNLIMITED: Final = 1 << 30

MeldKind = Literal["set", "run"]


class _Value:
    """An immutable value, equal to another of its class with the same fields, shown by them.

    (Written out rather than a frozen dataclass: its generated ``__init__`` runs as interpreted
    Python even in the compiled module, and an analysis builds a dozen of these.)"""

    def _fields(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, _Value)
            and (self._fields() == other._fields())
        )

    def __hash__(self) -> int:
        return hash(self._fields())


class Meld(_Value):
    """A meld in a hand. ``cards`` are in play order (a run from its low end); ``stands_for`` is
    parallel to ``cards``: the card each wild plays as, None for a card that plays as itself (a
    natural card, or a card of the wild rank standing for itself, which counts as no wild)."""

    def __init__(
        self, kind: MeldKind, cards: tuple[Card, ...], stands_for: tuple[Card | None, ...]
    ) -> None:
        self._kind = kind
        self._cards = cards
        self._stands_for = stands_for

    @property
    def kind(self) -> MeldKind:
        return self._kind

    @property
    def cards(self) -> tuple[Card, ...]:
        return self._cards

    @property
    def stands_for(self) -> tuple[Card | None, ...]:
        return self._stands_for

    def _fields(self) -> tuple[object, ...]:
        return self._kind, self._cards, self._stands_for

    def __repr__(self) -> str:
        shown = " ".join(
            format_card(c) + ("" if s is None else f"={format_card(s)}")
            for c, s in zip(self._cards, self._stands_for, strict=True)
        )
        return f"Meld({self._kind} {shown})"


class Discard(_Value):
    """A card to discard, and the least deadwood of the hand left after discarding it."""

    def __init__(self, card: Card, deadwood_points: int) -> None:
        self._card = card
        self._deadwood_points = deadwood_points

    @property
    def card(self) -> Card:
        return self._card

    @property
    def deadwood_points(self) -> int:
        """The least deadwood of the hand left after discarding ``card``."""
        return self._deadwood_points

    def _fields(self) -> tuple[object, ...]:
        return self._card, self._deadwood_points

    def __repr__(self) -> str:
        return f"Discard(card={self._card!r}, deadwood_points={self._deadwood_points!r})"


class Analysis(_Value):
    """A hand's best arrangement, its deadwood, and every discard ranked."""

    def __init__(
        self,
        wild: Rank | None,
        melds: tuple[Meld, ...],
        deadwood: tuple[Card, ...],
        deadwood_points: int,
        discards: tuple[Discard, ...],
    ) -> None:
        self._wild = wild
        self._melds = melds
        self._deadwood = deadwood
        self._deadwood_points = deadwood_points
        self._discards = discards

    @property
    def wild(self) -> Rank | None:
        return self._wild

    @property
    def melds(self) -> tuple[Meld, ...]:
        return self._melds

    @property
    def deadwood(self) -> tuple[Card, ...]:
        return self._deadwood

    @property
    def deadwood_points(self) -> int:
        return self._deadwood_points

    @property
    def discards(self) -> tuple[Discard, ...]:
        """One per distinct card, the best (least deadwood left) first."""
        return self._discards

    @property
    def melded(self) -> bool:
        return self._deadwood_points == 0

    @property
    def suggested_discard(self) -> Card | None:
        return self._discards[0].card if self._discards else None

    @property
    def can_go_out(self) -> bool:
        return bool(self._discards) and self._discards[0].deadwood_points == 0

    def _fields(self) -> tuple[object, ...]:
        return self._wild, self._melds, self._deadwood, self._deadwood_points, self._discards

    def __repr__(self) -> str:
        return (
            f"Analysis(wild={self._wild!r}, melds={self._melds!r}, deadwood={self._deadwood!r}, "
            f"deadwood_points={self._deadwood_points!r}, discards={self._discards!r})"
        )


# -- public functions -----------------------------------------------------------------------------


def min_deadwood(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> int:
    """The least deadwood penalty of ``cards`` over every arrangement into melds."""
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    context = _context(rules_value, wild_rank)
    return _least_of_roles(context, hand)


def arrange(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """The best arrangement alone (no ranking of discards): melds, deadwood, deadwood points."""
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    context = _context(rules_value, wild_rank)
    naturals, wilds = _best_role(context, hand)
    (table, search), _ = _search_of(context, naturals, wilds)
    melds, deadwood = search.arrange(table.full)
    return melds, deadwood, sum(context.card_points[c] for c in deadwood)


def analyse(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> Analysis:
    """The best arrangement of ``cards``, its deadwood, and every discard ranked by what it leaves.

    ``wild`` is a rank (int or code such as ``"8"``), or None when only jokers are wild.
    """
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    context = _context(rules_value, wild_rank)
    naturals, wilds = _split(hand, wild_rank)
    if len(_roles(context, naturals, wilds)) > 1:
        return _analyse_by_roles(context, hand)
    penalty = context.card_points
    (table, search), other = _search_of(context, naturals, wilds)
    melds, deadwood = search.arrange(table.full)
    points = sum(penalty[c] for c in deadwood)
    search.keep_moves = False  # (the discards' searches need their results alone)
    if other:
        other[1].keep_moves = False

    # Each discard as one int, (deadwood left, the dearest card first, the card) from the top
    # bits down: best first when sorted. (Penalties are at most 1000, cards below 128.)
    # (In vectors of native ints, indexed by card: a set, a dict or a sort of a dozen boxed ints
    # costs more than an analysis' search of a small hand.)
    ranked = vec[i64]()
    if len(hand) > 1:
        # A card left as deadwood by the best arrangement costs exactly its penalty: discarding
        # it leaves the rest of that arrangement (no better one can exist, or adding the card
        # back as deadwood would beat the best). Only melded cards need a search of their own.
        held = _held(hand, deadwood)
        # Discarding a melded card at worst breaks its meld: the rest of the meld becomes
        # deadwood, the other melds stay. An upper bound, and the search's first budget.
        broken = _NO_CARDS[:]
        for meld in melds:
            cost = sum(penalty[m] for m in meld.cards)
            for m in meld.cards:
                broken[m] = points + cost - penalty[m]
        # Discarding a natural keeps the wilds (and the memo); each kind of wild gets a search.
        by_wilds = {search.wild_key: search}
        # On large hands: the cards that come late in the search's order (the low ranks in the
        # mirror image, the high ones in the hand as it is), for the search in the other order.
        # (An ace that may play high comes first in both orders: it stays with the search.)
        halfway = sorted([c % 13 for c in naturals])[len(naturals) // 2] if other else 0
        late_low = table.context.mirrored
        lowest_late = 1 if context.ace_high else 0
        for c in range(JOKER + 1):
            if not held[c]:
                continue
            if held[c] == _LEFT:
                left = points - penalty[c]
            elif c in context.wild_cards:
                if penalty[c] == search.wild_key[-1]:
                    # Without one of the dearest wilds, the search's tables still hold: the
                    # same search, with one wild fewer.
                    left = search.best(table.full, wilds=search.wild_count - 1)
                else:
                    rest = list(search.wild_cards)
                    rest.remove(c)
                    key = _wild_key(rest, penalty)
                    if key not in by_wilds:
                        by_wilds[key] = _Search(table, rest)
                    left = by_wilds[key].best(table.full)
            elif other and (lowest_late <= c % 13 < halfway if late_low else c % 13 > halfway):
                # A discard's search redoes what comes before the card in its search's order,
                # so on a large hand a card late in that order is searched in the other order,
                # where it comes early and the later states are shared with the other such
                # cards' searches. Once it holds more states than three times the search's (and
                # a race's first round), it gives up, and this and the remaining cards go back.
                # (On the hardest hands known, 10% fewer states in all than letting each such
                # discard take twice the search's states anew, and half as many on the worst.)
                other_table, other_search = other
                other_search.state_limit = 3 * search.known.size + _RACE_FROM
                try:
                    left = _discard_search(other_search, other_table.without(c), points, broken[c])
                except _Exhausted:
                    other = None
                    left = _discard_search(search, table.without(c), points, broken[c])
            else:
                left = _discard_search(search, table.without(c), points, broken[c])
            ranked = append(ranked, _ranked_key(left, penalty[c], c))
    return Analysis(wild_rank, melds, deadwood, points, _ranked_discards(ranked))


def _analyse_by_roles(context: _Context, hand: list[Card]) -> Analysis:
    """``analyse`` of a hand whose wild-rank cards may play either way under a limit on wilds:
    the best arrangement over every split of them (see _roles), and each discard's least
    deadwood the same way."""
    penalty = context.card_points
    naturals, wilds = _best_role(context, hand)
    (table, search), _ = _search_of(context, naturals, wilds)
    melds, deadwood = search.arrange(table.full)
    points = sum(penalty[c] for c in deadwood)
    ranked = vec[i64]()
    if len(hand) > 1:
        held = _held(hand, deadwood)
        for c in range(JOKER + 1):
            if held[c] == _LEFT:  # (as in analyse: it costs exactly its penalty)
                left = points - penalty[c]
            elif held[c]:
                rest = list(hand)
                rest.remove(c)
                left = _least_of_roles(context, rest)
            else:
                continue
            ranked = append(ranked, _ranked_key(left, penalty[c], c))
    return Analysis(context.wild, melds, deadwood, points, _ranked_discards(ranked))


def _held(hand: list[Card], deadwood: tuple[Card, ...]) -> vec[i64]:
    """Per card: _HELD in the hand, _LEFT left as deadwood by the best arrangement."""
    held = _NO_CARDS[:]
    for c in hand:
        held[c] = _HELD
    for c in deadwood:
        held[c] = _LEFT
    return held


def _ranked_key(left: i64, points: i64, c: i64) -> i64:
    """A discard as one int that sorts best first (see _DISCARD_FORMAT)."""
    return left << _DISCARD_LEFT_SHIFT | (_DISCARD_POINTS - points) << _DISCARD_POINTS_SHIFT | c


def _ranked_discards(ranked: vec[i64]) -> tuple[Discard, ...]:
    _sort(ranked)
    return tuple([Discard(key & _DISCARD_CARD, key >> _DISCARD_LEFT_SHIFT) for key in ranked])


_DISCARD_LEFT_SHIFT: Final = 17
_DISCARD_POINTS_SHIFT: Final = 7
_DISCARD_POINTS: Final = 1023
_DISCARD_CARD: Final = 127


def _sort(values: vec[i64]) -> None:
    """Sorts ``values`` in place, by insertion: an analysis' dozen discards."""
    value: i64
    j: i64
    for i in range(1, len(values)):
        value = values[i]
        j = i - 1
        while j >= 0 and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


def _discard_search(search: _Search, without: int, points: int, broken: int) -> int:
    """The least deadwood of ``without``, a hand less a melded card: at most ``broken``, and on
    large hands most often no more than ``points``, the whole hand's."""
    if search.table.floored:
        # First ask that, under the tighter budget, then under wider ones (the bounds each
        # proves carry over to the next).
        budget, step = points + 1, 2
        while budget <= broken:
            left = search.best(without, budget)
            if left < budget:
                return left
            budget, step = left + step, 2 * step
    return search.best(without, broken + 1)


def _search_of(
    context: _Context, naturals: list[Card], wilds: list[Card]
) -> tuple[tuple[_MeldTable, _Search], tuple[_MeldTable, _Search] | None]:
    """The search of a hand, and on large hands a second one in the other order.

    The search cuts what cannot beat the best found so far, which it does soonest when it meets
    the dearest cards first: so it runs on the hand's mirror image (ranks counted from the king
    down), where ranks mostly cost more the sooner they come. (On hands of 14 cards, about a
    fifth less time than the hand as it is.) But each order has hands it finds hard where the
    other does not (over a hundred times the time, both ways, on hands hill-climbed against
    each), so on large hands the two race: each in turn gets a number of states, four times more
    each round, and the first to finish is the search; the other is kept (its memo stays true)
    for discards."""
    flip = context.mirror
    table = _MeldTable(context.flipped(), [flip[n] for n in naturals], len(wilds))
    mirrored = table, _Search(table, wilds)
    if not table.floored:
        return mirrored, None
    table = _MeldTable(context, naturals, len(wilds))
    plain = table, _Search(table, wilds)
    limit = _RACE_FROM
    while True:
        for first, second in ((mirrored, plain), (plain, mirrored)):
            table, search = first
            search.state_limit = limit
            try:
                search.best(table.full)
            except _Exhausted:
                continue
            search.state_limit = _UNLIMITED
            return first, second
        limit *= 4


def _wild_key(wilds: Iterable[Card], penalty: Sequence[int]) -> tuple[int, ...]:
    """Wilds differ to the search only by their penalties."""
    return tuple(sorted(penalty[c] for c in wilds))


def describe(analysis: Analysis) -> str:
    """A readable, multi-line account of an analysis."""
    wild = "none" if analysis.wild is None else format_rank(analysis.wild)
    lines = [f"wild rank: {wild}"]
    for meld in analysis.melds:
        lines.append(f"  {repr(meld)[5:-1]}")
    dead = " ".join(format_card(c) for c in analysis.deadwood) or "-"
    lines.append(f"deadwood: {dead} ({analysis.deadwood_points} points)")
    if analysis.discards:
        ranked = ", ".join(f"{format_card(d.card)}→{d.deadwood_points}" for d in analysis.discards)
        lines.append(f"discards: {ranked}")
        lines.append(f"can go out: {'yes' if analysis.can_go_out else 'no'}")
    return "\n".join(lines)


# -- inputs ---------------------------------------------------------------------------------------


def _inputs(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec
) -> tuple[list[Card], Rank | None, Rules]:
    rules_value = rules if isinstance(rules, Rules) else Rules.from_spec(rules)
    hand = _card_ints(cards)
    if not 1 <= len(hand) <= MAX_HAND:
        raise HandError(f"a hand holds 1 to {MAX_HAND} cards, not {len(hand)}")
    if not rules_value.pack_cards.issuperset(hand):
        stranger = next(c for c in hand if c not in rules_value.pack_cards)
        raise HandError(f"{format_card(stranger)} is not in the {rules_value.preset} pack")
    wild_rank = parse_rank(wild) if isinstance(wild, str) else wild
    if wild_rank is not None and not rules_value.low_rank <= wild_rank <= KING:
        raise HandError(f"wild rank {wild_rank} is not a rank of the {rules_value.preset} pack")
    return hand, wild_rank, rules_value


def _card_ints(cards: Iterable[Card | str]) -> list[Card]:
    """The hand as card ints: a list of card ints as it is (copied), the rest by parse_cards."""
    if type(cards) is list:
        for c in cards:
            if type(c) is not int or not 0 <= c <= JOKER:
                break
        else:
            return list(cards)
    return parse_cards(cards)


# The wild cards of each wild rank (index 0: no wild rank, jokers only).
_WILD_CARDS: Final = (
    frozenset({JOKER}),
    *(frozenset({JOKER, *(card(rank, s) for s in range(5))}) for rank in range(1, 14)),
)


def _split(hand: list[Card], wild: Rank | None) -> tuple[list[Card], list[Card]]:
    """The naturals and the wilds (the jokers and the cards of the wild rank), in hand order."""
    wild_index = -1 if wild is None else wild - 1  # (the wild rank's c % 13)
    naturals: list[Card] = []
    wilds: list[Card] = []
    for c in hand:
        if c == JOKER or c % 13 == wild_index:
            wilds.append(c)
        else:
            naturals.append(c)
    return naturals, wilds


def _roles(
    context: _Context, naturals: list[Card], wilds: list[Card]
) -> list[tuple[list[Card], list[Card]]]:
    """Every way the hand's wild-rank cards may play, as (naturals, wilds): under a limit on
    wilds (per meld, or no all-wild melds), each such card plays as a wild or as the natural card
    it is, which counts towards neither limit. Copies of one card are alike, so a split is how
    many of each suit's copies play natural. With no limit a wild does all a natural can: one
    split, every wild-rank card a wild."""
    if not context.either_role or not wilds:
        return [(naturals, wilds)]
    jokers = [c for c in wilds if c == JOKER]
    by_suit = [[c for c in wilds if c != JOKER and c // 13 == s] for s in range(_SUITS)]
    if not any(by_suit):
        return [(naturals, wilds)]
    found = []
    for kept in product(*[range(len(copies) + 1) for copies in by_suit]):
        as_naturals = list(naturals)
        as_wilds = list(jokers)
        for copies, k in zip(by_suit, kept, strict=True):
            as_naturals += copies[:k]
            as_wilds += copies[k:]
        found.append((as_naturals, as_wilds))
    return found


def _least_of_split(context: _Context, naturals: list[Card], wilds: list[Card], budget: int) -> int:
    """The least deadwood of one split of a hand into naturals and wilds, when below ``budget``
    (else at least ``budget``)."""
    if not wilds and len(set(naturals)) == len(naturals):
        found = _without_wilds(naturals, context.card_points, context.ace_high)
        if found is not None:
            return found
    (table, search), _ = _search_of(context, naturals, wilds)
    return search.best(table.full, budget)


def _least_of_roles(context: _Context, hand: list[Card]) -> int:
    """The least deadwood of ``hand`` over every split of its wild-rank cards (see _roles)."""
    naturals, wilds = _split(hand, context.wild)
    best = _UNLIMITED
    for as_naturals, as_wilds in _roles(context, naturals, wilds):
        found = _least_of_split(context, as_naturals, as_wilds, best)
        best = min(best, found)
    return best


def _best_role(context: _Context, hand: list[Card]) -> tuple[list[Card], list[Card]]:
    """The split of ``hand`` (see _roles) with the least deadwood, the first such."""
    naturals, wilds = _split(hand, context.wild)
    roles = _roles(context, naturals, wilds)
    if len(roles) == 1:
        return roles[0]
    best, chosen = _UNLIMITED, roles[0]
    for role in roles:
        found = _least_of_split(context, role[0], role[1], best)
        if found < best:
            best, chosen = found, role
    return chosen


def _without_wilds(naturals: list[Card], points: tuple[int, ...], ace_high: bool) -> int | None:
    """The least deadwood of distinct naturals with no wild in the hand, from bit masks alone.

    With no wilds and no repeated card, a card in no possible meld is deadwood and the rest sort
    themselves out: every rank with three cards is a set and every stretch of three or more
    consecutive ranks of a suit is a run. Only a card that could go either way (a "conflict")
    needs a choice: try both sides for each. Returns None for a hand this cannot decide (an ace
    that could close a low and a high run, or many conflicts); the search takes those.
    """
    suits = [0] * 5
    by_rank = [0] * 15
    for c in naturals:
        rank = c % 13 + 1
        suits[c // 13] |= 1 << rank
        by_rank[rank] += 1

    penalty, conflicts = _gin_deadwood(naturals, points, ace_high, suits, by_rank)
    if penalty < 0 or len(conflicts) > 6:
        return None
    if not conflicts:
        return penalty
    best = _UNLIMITED
    for sides in product((0, 1), repeat=len(conflicts)):
        run_masks, set_counts = list(suits), list(by_rank)
        for c, to_run in zip(conflicts, sides, strict=True):
            if to_run:
                set_counts[c % 13 + 1] -= 1
            else:
                run_masks[c // 13] &= ~(1 << (c % 13 + 1))
        result, _ = _gin_deadwood(naturals, points, ace_high, run_masks, set_counts)
        if result < 0:
            return None
        best = min(best, result)
    return best


def _gin_deadwood(
    naturals: list[Card],
    points: tuple[int, ...],
    ace_high: bool,
    run_masks: list[int],
    set_counts: list[int],
) -> tuple[int, list[Card]]:
    """_without_wilds' penalty of the cards in no meld, and the cards that could go either way
    (-1 for a hand with an ace that could close a low and a high run)."""
    penalty, conflicts = 0, []
    live_runs = []
    for mask in run_masks:
        reach = mask | (mask & 2) << 13 if ace_high else mask
        starts = reach & (reach >> 1) & (reach >> 2)
        live = starts | (starts << 1) | (starts << 2)
        if live >> 14:
            if live & 2:
                return -1, []  # one ace could close a low and a high run: search
            live |= 2
        live_runs.append(live)
    for c in naturals:
        rank = c % 13 + 1
        in_run = live_runs[c // 13] >> rank & 1
        in_set = set_counts[rank] >= 3
        if in_run and in_set:
            conflicts.append(c)
        elif not in_run and not in_set:
            penalty += points[c]
    return penalty, conflicts


# -- the shared layout ----------------------------------------------------------------------------

# Every natural card has a digit in one shared order: rank-major (all aces, then all twos, ...;
# five suits each), so the search meets every card of a rank in a row. The candidate runs of a
# card depend only on which higher cards of its suit the hand holds, so they are built once per
# process, as tuples of these digits. Each hand then packs its naturals into one int, a digit per
# distinct card in the same order (see _MeldTable), holding its count; a run is a vector in that
# packing, one copy of each of its cards, so it fits in what is left when all its cards are present
# (_MeldTable.present) and taking it is one subtraction.
#
# Where an ace may play high, it has a second digit after the kings: the search meets the ace
# first, and may keep it for the top of a run (moving it to that digit) rather than reach over
# every rank to the run's other cards at once.
_SUITS: Final = 5
_HIGH_ACE: Final = 13
"""The rank of an ace kept to play high, after the king."""
_DIGITS: Final = (_HIGH_ACE + 1) * _SUITS
_CARD_OF_DIGIT: Final = tuple((d % _SUITS) * 13 + d // _SUITS % 13 for d in range(_DIGITS))
_RANK_OF_DIGIT: Final = tuple(d // _SUITS for d in range(_DIGITS))
"""A digit's rank, 0 (ace) to 12 (king), and 13 (_HIGH_ACE)."""
_RACE_FROM: Final = 1000
"""The states each order of a large hand's search gets in the first round (see _search_of)."""
_FLOOR_FROM: Final = 15
"""From this many distinct naturals on, the search cuts with a lower bound (_Search.floor); on
smaller hands building its tables costs more than it saves."""
# The fields of _MeldTable.facts: a count's mask (a count is at most 30), rank, suit, penalty.
_COUNT_MASK: Final = 31
_RANK_SHIFT: Final = 5
_SUIT_SHIFT: Final = 9
_AT_SHIFT: Final = 12
_POINTS_SHIFT: Final = 18
_BIT_SLOTS: Final = 67
"""Powers of two below 2**64 leave distinct remainders modulo 67: a table with this many slots,
indexed by ``bit % 67``, maps a single bit to what lies at its position, with no bit scan."""
# Empty vectors that a hand's tables start as copies of (see _MeldTable).
_NO_SLOTS: Final = vec[i64]([0] * _BIT_SLOTS)
_NO_HIGH_ACES: Final = vec[i64]([-1] * (MAX_HAND + 1))
_NO_COPIES: Final = vec[i64]([0] * _DIGITS)
_NO_INDEX: Final = vec[i64]([-1] * _DIGITS)
_NO_ABOVE: Final = vec[i64]([0] * 5)
_NO_CARDS: Final = vec[i64]([0] * (JOKER + 1))
"""Per card, as analyse marks them: _HELD in the hand, _LEFT left as deadwood."""
_HELD: Final = 1
_LEFT: Final = 2
_POWER: Final = vec[i64]([1 << k for k in range(63)])
"""Powers of two as native ints (in compiled code, ``1 << n`` can take a 32-bit C shift)."""
_SUIT_COUNT: Final = tuple(bin(suits).count("1") for suits in range(1 << _SUITS))
"""How many suits a mask of suits holds."""
_CACHE_LIMIT: Final = 100_000
"""Entries a cache of candidate runs may hold before it starts again (hands are unbounded)."""


def _digit(c: Card) -> int:
    return (c % 13) * _SUITS + c // 13


# A planned meld: its kind, its natural cards in play order, and the wilds it needs.
_Plan = tuple[MeldKind, tuple[Card, ...], int]
# A search's tables for its wilds: leftover penalties, pool options, the fewest wilds per pool.
# (leaf, pools, pool_need, pool_moves: see _Context.wild_tables. A string: at run time, vec[i64]
# is no type.)
_WildTables: TypeAlias = (
    "tuple[vec[i64], list[list[tuple[int, int, int]]], vec[i64], list[vec[i64]]]"
)
# A candidate run, as one int: its cards, the wilds it needs (at _NEED_AT) and its room for more
# wilds (at _ROOM_AT). Under a context its cards are its ranks, bit k for the head's suit k ranks
# up (the head at bit 0); in one hand's meld table, a vector of the hand's layout (at most 40
# bits: see _state_key).
_NEED_AT: Final = 40
_ROOM_AT: Final = 46
_VECTOR: Final = (1 << _NEED_AT) - 1
_NO_RUNS: Final = vec[i64]()


# -- memos of native ints -------------------------------------------------------------------------


_MEMO_SLOTS: Final = 128
"""A memo's first size (a hand of 14 cards takes about 60 states)."""
_NO_KEYS: Final = vec[i64]([-1] * _MEMO_SLOTS)
_NO_VALUES: Final = vec[i64]([0] * _MEMO_SLOTS)


class _Memo:
    """Values by key, both native ints, in open addressing over two vectors of unboxed ints (a
    dictionary would box every key and value): a search's results by state key (see _state_key),
    a context's runs by theirs. A key is at most 59 bits, a value never negative: -1 marks an
    empty slot, or no value."""

    def __init__(self) -> None:
        self.size: i64 = 0
        self.mask: i64 = _MEMO_SLOTS - 1
        self.keys = _NO_KEYS[:]  # (copies)
        self.values = _NO_VALUES[:]

    def get(self, key: i64) -> i64:
        """The value held for ``key``, or -1."""
        keys, mask = self.keys, self.mask
        slot: i64 = _slot(key, mask)
        while True:
            held = keys[slot]
            if held == key:
                return self.values[slot]
            if held < 0:
                return -1
            slot = (slot + 1) & mask

    def move_at(self, key: i64) -> i64:
        """The move recorded with the exact result of state ``key``, which a search has just
        passed through (see _Search.arrange)."""
        exact = self.get(key)
        if exact < 0 or exact & 1:  # pragma: no cover - the search's own path
            raise AssertionError(f"no exact result recorded for state {key}")
        return _move_of(exact)

    def put(self, key: i64, value: i64) -> None:
        keys, mask = self.keys, self.mask
        slot: i64 = _slot(key, mask)
        while True:
            held = keys[slot]
            if held == key:
                self.values[slot] = value
                return
            if held < 0:
                break
            slot = (slot + 1) & mask
        keys[slot] = key
        self.values[slot] = value
        self.size += 1
        if 2 * self.size > mask:
            self._grow()

    def _grow(self) -> None:
        keys, values = self.keys, self.values
        slots: i64 = 2 * len(keys)
        mask = self.mask = slots - 1
        new_keys = self.keys = vec[i64]([-1] * slots)
        new_values = self.values = vec[i64]([0] * slots)
        for i in range(len(keys)):
            key = keys[i]
            if key >= 0:
                slot: i64 = _slot(key, mask)
                while new_keys[slot] >= 0:
                    slot = (slot + 1) & mask
                new_keys[slot] = key
                new_values[slot] = values[i]


def _slot(key: i64, mask: i64) -> i64:
    """A key's first slot: its bits folded and multiplied, the product's middle bits. (Compiled,
    the product wraps at 64 bits; the bits taken are the same.)"""
    return ((key ^ key >> 23 ^ key >> 43) * 0x9E3779B1) >> 16 & mask


class _Context:
    """What every hand analysed under one rules value and wild rank shares: penalties, the meld
    limits, and caches of candidate runs and of leftover-wild penalties."""

    def __init__(self, rules: Rules, wild: Rank | None, *, mirrored: bool = False) -> None:
        self.rules = rules
        self.wild = wild
        self.mirrored = mirrored
        self.wild_cards = _WILD_CARDS[wild or 0]
        self.card_points = tuple(rules.points(c, wild) for c in range(JOKER + 1))
        """The penalty of every card left unmatched, wild cards included."""
        # The mirror image of each natural card: the same suit, its rank counted from the other
        # end (an ace that may play high stays an ace). Runs stay runs and sets stay sets, so a
        # mirrored hand searched with the mirrored penalties has the same least deadwood; the
        # search then meets the high ranks first.
        low = rules.low_rank
        if rules.aces == "high_or_low" and low == 1:
            ranks = [1, *range(13, 1, -1)]
        else:
            ranks = [*range(1, low), *range(13, low - 1, -1)]
        self.mirror = tuple((c // 13) * 13 + ranks[c % 13] - 1 for c in range(JOKER))
        face = self.mirror if mirrored else range(JOKER)
        self.face: tuple[Card, ...] = (*face, JOKER)
        """Each card's place in the search's order (its mirror image in the mirrored search)."""
        # (A wild-rank card as a natural costs what it costs as a wild, the wild penalty.)
        self.digit_points = tuple(rules.points(face[c], wild) for c in _CARD_OF_DIGIT)
        self.rank_points = vec[i64]([self.digit_points[r * _SUITS] for r in range(_HIGH_ACE + 1)])
        self.limit = rules.max_wilds_per_meld
        self.max_run = rules.max_run_length
        self.ace_high = rules.aces == "high_or_low"
        self.all_wild = rules.all_wild_melds and (self.limit is None or self.limit >= 3)
        # Under a limit on wilds a wild-rank card playing as itself counts as no wild, so it may
        # do better as a natural (see _roles); with none, a wild does all a natural can.
        self.either_role = self.limit is not None or not rules.all_wild_melds
        # A run needing two wilds or more per natural card is never better than each of its
        # cards in a set with two wilds: no more wilds, and at least as much room for others.
        self.singles_do_better = self.limit is None or self.limit >= 2
        # The runs by key (see runs_headed_by): in a memo of native ints, their index in a list.
        # (A dict would box each key, and compare it by value with its own.)
        self.run_index = _Memo()
        self.run_lists: list[vec[i64]] = []
        self.tables_by_wilds: dict[tuple[int, ...], _WildTables] = {}
        self._flipped: _Context | None = None

    def flipped(self) -> _Context:
        """The mirrored context of the same rules and wild rank."""
        if self._flipped is None:
            self._flipped = _Context(self.rules, self.wild, mirrored=True)
        return self._flipped

    def room(self, length: int, need: int, *, is_set: bool) -> int:
        """How many more wilds a meld of ``length`` cards (``need`` of them wild) can take."""
        room = _UNLIMITED if is_set else self.max_run - length
        return room if self.limit is None else min(room, self.limit - need)

    def runs_headed_by(self, head: int, higher: int, usable: int) -> vec[i64]:
        """The candidate runs headed by digit ``head`` when the hand holds the higher ranks of its
        suit in the bit mask ``higher`` (bit 0: the next rank up) and ``usable`` wilds: their
        ranks, need and room, each as one int (see _NEED_AT)."""
        key: i64 = (usable << 14 | higher) << 7 | head  # (13 bits, then 7: _DIGITS is 70)
        at = self.run_index.get(key)
        if at < 0:
            if len(self.run_lists) >= _CACHE_LIMIT:
                self.run_index, self.run_lists = _Memo(), []
            at = len(self.run_lists)
            self.run_lists.append(self._runs_headed_by(head, higher, usable))
            self.run_index.put(key, at)
        return self.run_lists[at]

    def _runs_headed_by(self, head: int, higher: int, usable: int) -> vec[i64]:
        """Runs of the head with higher cards of its suit (an ace that may play high included,
        at 14), one per rank, gaps paid in wilds."""
        rank = _RANK_OF_DIGIT[head] + 1
        top = _HIGH_ACE + 1 if self.ace_high else 13
        ranked = [
            (rank + 1 + k, head + _SUITS * (k + 1)) for k in range(top - rank) if higher >> k & 1
        ]
        # (need, -size, its digits from the highest down, digits, room)
        found: list[tuple[int, int, tuple[int, ...], tuple[int, ...], int]] = []
        # Depth-first over the ranks in order: (next index, gaps so far, last rank, digits,
        # size, and each gap so far as (its wilds, the length before it, the rank after it)).
        stack: list[tuple[int, int, int, tuple[int, ...], int, tuple[tuple[int, int, int], ...]]]
        stack = [(0, 0, rank, (head,), 1, ())]
        while stack:
            first, gaps, last, digits, size, holes = stack.pop()
            for k in range(first, len(ranked)):
                r, d = ranked[k]
                gap = r - last - 1
                total = gaps + gap
                if total > usable:
                    break
                grown_holes = (*holes, (gap, last - rank + 1, r)) if gap else holes
                if any(
                    max(0, 3 - before) + max(0, 2 - (r - after)) <= wilds
                    for wilds, before, after in grown_holes
                ):
                    # Split at that gap, the two ends need no more wilds than the gap (and
                    # have more room): so does every longer run through the same gap.
                    continue
                grown, grown_size = (*digits, d), size + 1
                stack.append((k + 1, total, r, grown, grown_size, grown_holes))
                need = max(total, 3 - grown_size)
                if need >= 2 * grown_size and self.singles_do_better:
                    continue
                if need <= usable and grown_size + need <= self.max_run:
                    room = self.room(grown_size + need, need, is_set=False)
                    order = tuple(sorted(grown, reverse=True))
                    found.append((need, -grown_size, order, grown, room))
        # Fewest wilds first (the search stops at the first run it cannot pay for), and among
        # those the longest: a hand that melds completely is found, and proven, soonest. (Then
        # the run without the higher cards, a fixed order for the arrangement it picks.)
        found.sort()
        shapes = vec[i64](capacity=len(found))
        for need, _, _, digits, room in found:
            ranks = 0
            for d in digits:
                ranks |= 1 << ((d - head) // _SUITS)
            shapes = append(shapes, ranks | need << _NEED_AT | room << _ROOM_AT)
        return shapes

    def wild_tables(self, penalties: tuple[int, ...]) -> _WildTables:
        """What a search needs to know of its wilds (their penalties, in increasing order)."""
        found = self.tables_by_wilds.get(penalties)
        if found is None:
            cheapest = [0, *accumulate(penalties)]
            # leaf[u * stride + spare]: the penalty of the u cheapest wilds left over when the
            # melds have this much spare room (spare <= u < stride).
            stride = len(penalties) + 1
            leaf = vec[i64]([0] * (stride * stride))
            for u in range(stride):
                for spare in range(u + 1):
                    leaf[u * stride + spare] = cheapest[u - self.absorbable(u, spare)]
            # pools[n]: the ways n pooled cards of a rank can all be sets, given every wild; the
            # fewest wilds that make them sets; and each way's need and room as one int.
            pools = _pool_options(len(penalties), self.limit)
            pool_need = vec[i64]([options[0][1] if options else _UNLIMITED for options in pools])
            pool_moves = [
                vec[i64]([need | room << 8 for _, need, room in options]) for options in pools
            ]
            found = self.tables_by_wilds[penalties] = leaf, pools, pool_need, pool_moves
        return found

    def absorbable(self, wilds: int, spare: int) -> int:
        """How many leftover wilds the melds' spare room and all-wild melds can hold."""
        if wilds == 0:
            return 0
        best = min(wilds, spare)
        if self.all_wild and wilds >= 3:
            if self.limit is None:
                return wilds
            for in_own in range(3, wilds + 1):
                if _splits_into(in_own, 3, self.limit):
                    best = max(best, in_own + min(wilds - in_own, spare))
        return best


_CONTEXTS: dict[tuple[Rules, Rank | None], _Context] = {}
# The same contexts by the identity of the rules object (hashing a Rules value hashes every
# field, in Python), keyed by id(rules) << 4 | wild rank (0 for none): each entry holds its rules
# object, so no other object can take its id.
_BY_IDENTITY: dict[int, tuple[Rules, _Context]] = {}
_LAST_CONTEXT: list[_Context] = [_Context(Rules.from_spec("classic"), None)]


def _context(rules: Rules, wild: Rank | None) -> _Context:
    last = _LAST_CONTEXT[0]
    if last.rules is rules and last.wild == wild:
        return last
    identity = id(rules) << 4 | (wild or 0)
    known = _BY_IDENTITY.get(identity)
    if known is not None and known[0] is rules:
        found = known[1]
    else:
        found_by_value = _CONTEXTS.get((rules, wild))
        if found_by_value is None:
            if len(_CONTEXTS) >= 64:
                _CONTEXTS.clear()
            found_by_value = _Context(rules, wild)
            _CONTEXTS[rules, wild] = found_by_value
        found = found_by_value
        if len(_BY_IDENTITY) >= 256:
            _BY_IDENTITY.clear()
        _BY_IDENTITY[identity] = rules, found
    _LAST_CONTEXT[0] = found
    return found


def _within_reach(higher: i64, wilds: i64) -> i64:
    """The part of ``higher`` (the ranks above a card, bit 0 the next rank up) that a run from
    that card can reach with this many wilds (fewer than 12): up to the first gap wider than the
    wilds."""
    gaps: i64 = ~higher & (_POWER[13 + wilds] - 1)  # (a vector: see _POWER)
    starts: i64 = gaps
    shift: i64
    for shift in range(1, wilds + 1):
        starts &= gaps >> shift
    return higher & ((starts & -starts) - 1)


# -- one hand -------------------------------------------------------------------------------------


class _MeldTable:
    """What the naturals of one hand can form with up to ``wild_count`` wilds.

    Runs are listed per head (their lowest card in rank-major order). Where an ace may play
    high, each ace has a second digit after the kings (empty at first): the search takes an ace
    into a run from below, or moves it there, to play high in a run or in a set of aces. Sets
    need no list: a card that heads no run goes to its rank's pool, and once the search has
    passed a rank its pool becomes sets or deadwood as a whole. That is exact because
    a natural left as deadwood beside a set of its rank could always join the set for free (it
    never raises the set's need for wilds); so per rank, the cards outside runs are all in sets
    or all deadwood.
    """

    def __init__(
        self,
        context: _Context,
        naturals: list[Card],
        wild_count: int,
        floored: bool | None = None,
    ) -> None:
        """``floored``: whether the search cuts with its lower bound (by default, on hands of
        _FLOOR_FROM distinct naturals or more)."""
        self.context = context
        limit = context.limit
        self.usable = wild_count if limit is None else min(wild_count, limit)
        masks = self.suit_masks = _NO_COPIES[:_SUITS]  # per suit, its ranks held (bit 0: aces)
        copies = _NO_COPIES[:]  # of each digit of the shared layout
        lowest: i64 = _DIGITS
        highest: i64 = 0
        distinct: i64 = 0
        c: i64
        suit: i64
        d: i64
        for c in naturals:
            suit = c // 13
            masks[suit] |= _POWER[c % 13]
            d = (c % 13) * _SUITS + suit  # _digit(c)
            if not copies[d]:
                distinct += 1
            copies[d] += 1
            lowest, highest = min(lowest, d), max(highest, d)
        # The hand's own layout: a digit per distinct natural, in the shared layout's order, each
        # just wide enough for its own count. A count of n takes no more than n bits, so any hand
        # fits in 30 bits (a few more for the aces' digits after the kings), and a search state
        # (with its key) in a machine word, where the search's arithmetic and hashing are
        # cheapest.
        # (Every table here is a vector of unboxed ints: a list's items are objects. Each is a
        # slice of a template, set in place: appending to a vector is a call, and a vector made
        # from a list iterates it as objects.)
        # shared[i]: the shared layout's digit of this hand's digit i; counts[i]: its copies
        shared = _NO_COPIES[:distinct]
        counts = _NO_COPIES[:distinct]
        distinct = 0
        for d in range(lowest, highest + 1):
            if copies[d]:
                shared[distinct] = d
                counts[distinct] = copies[d]
                distinct += 1
        naturals_digits = len(shared)
        high_of = _NO_HIGH_ACES[:naturals_digits]
        for i in self._aces_to_move(shared, counts) if context.ace_high else []:
            high_of[i] = len(shared)
            high_of = append(high_of, -1)
            shared = append(shared, _HIGH_ACE * _SUITS + shared[i])
            counts = append(counts, counts[i])  # (room for every copy; none there at first)
            masks[shared[i]] |= _POWER[_HIGH_ACE]
        self.high_of = high_of
        """Each ace's digit after the kings, where it has one; else -1."""
        self.high_from = naturals_digits
        """The first of the digits of aces kept to play high (after every natural's)."""
        self.shared = shared
        digits = len(shared)
        index = _NO_INDEX[:]
        count_mask = _NO_COPIES[:digits]  # each digit's bits, from its lowest
        offset = _NO_COPIES[:digits]  # each digit's lowest bit
        unit = _NO_COPIES[:digits]  # each digit's lowest bit, as a power of two
        rank_of = _NO_COPIES[:digits]
        card_of = _NO_COPIES[:digits]
        digit_at_bit = _NO_SLOTS[:]  # the digit of each bit, by the bit's slot
        full: i64 = 0
        low: i64 = 0
        at: i64 = 0
        low_aces: i64 = 0
        one: i64
        # above[k]: the (k+1)-th bit of every digit wider than k (see present)
        above = _NO_ABOVE[:]
        for i in range(digits):
            digit = shared[i]
            count = counts[i]
            index[digit] = i
            one = _POWER[at]
            unit[i] = one
            # (_RANK_OF_DIGIT and _CARD_OF_DIGIT, computed: their items are objects)
            rank_of[i] = digit // _SUITS
            card_of[i] = (digit % _SUITS) * 13 + digit // _SUITS % 13
            offset[i] = at
            width: i64 = 1  # just wide enough for its count
            while count >> width:
                width += 1
            count_mask[i] = _POWER[width] - 1
            if high_of[i] >= 0:
                low_aces |= (_POWER[width] - 1) << at
            for k in range(width):
                digit_at_bit[_POWER[at + k] % _BIT_SLOTS] = i
                if k:
                    above[k] = above[k] | one << k
            if i < naturals_digits:
                full += count * one
            low += one
            at += width
        self.width = at
        """The bits a state of this layout takes (at most 40: see _state_key)."""
        self.digit_at_bit = digit_at_bit
        """The digit of each bit, by the bit's slot (see _BIT_SLOTS)."""
        self.index = index
        self.unit = unit
        self.rank_of = rank_of
        self.card_of = card_of
        self.offset = offset
        self.count_mask = count_mask
        self.above = vec[i64](capacity=4)
        for k in range(1, len(above)):
            if above[k]:
                self.above = append(self.above, above[k])
        self.full = full
        self.low = low
        self.low_aces = low_aces
        """Where an ace may play high: the aces the search has not yet moved after the kings."""
        # Filled on first use: the search never asks for the runs of a card it never heads with.
        self.runs: list[vec[i64] | None] = [None] * len(shared)
        if self.usable < 2:
            self.dead = self._dead_digits(counts)
        else:
            self.dead = vec[i64]()
        dead_mask: i64 = 0
        for d in self.dead:
            dead_mask |= count_mask[d] << offset[d]
        self.dead_mask = dead_mask
        self.floored = naturals_digits >= _FLOOR_FROM if floored is None else floored
        if self.floored:
            self._floor_tables(counts)

    def _aces_to_move(self, shared: vec[i64], counts: vec[i64]) -> list[int]:
        """The aces that get a digit after the kings: those of a suit with a card a run to the ace
        at 14 could hold (a king, or as far down as the wilds can bridge). But sets of aces are
        made on one side: where the aces could make one (with the wilds), every ace or none.
        (An ace moved there is counted as deadwood only once the search reaches it, so it moves
        only where it might do better.)"""
        aces = [i for i in range(len(shared)) if shared[i] < _SUITS]
        reach = [i for i in aces if self.suit_masks[shared[i]] >> max(1, 12 - self.usable)]
        if sum(counts[i] for i in aces) + self.usable >= 3:
            return aces if reach else []
        return reach

    def runs_headed_by(self, head: i64) -> vec[i64]:
        """The runs the card of digit ``head`` heads, each one int: vector | need << _NEED_AT |
        room << _ROOM_AT (wilds needed at most 30, room at most 13)."""
        found = self.runs[head]
        if found is not None:
            return found
        digit: i64 = self.shared[head]
        higher = self.suit_masks[digit % _SUITS] >> (digit // _SUITS + 1)
        if self.usable < 12:
            higher = _within_reach(higher, self.usable)
        # Each run's ranks (under the context) become its vector (in this hand's layout).
        runs = self.context.runs_headed_by(digit, higher, self.usable)[:]  # set in place
        shape: i64
        ranks: i64
        d: i64
        vector: i64
        for i in range(len(runs)):
            shape = runs[i]
            ranks, d, vector = shape & _VECTOR, digit, 0
            while ranks:
                if ranks & 1:
                    vector += self.unit[self.index[d]]
                ranks >>= 1
                d += _SUITS
            runs[i] = shape - (shape & _VECTOR) + vector
        self.runs[head] = runs
        return runs

    def present(self, state: i64) -> i64:
        """The bits of ``state`` that mark its cards: each card's lowest bit, set when any copy is
        left (so a run, one copy of each of its cards, fits when all its bits are present)."""
        present: i64 = state & self.low
        shift: i64 = 1
        mask: i64
        for mask in self.above:
            present |= (state & mask) >> shift
            shift += 1
        return present

    def without(self, c: Card) -> int:
        """The hand's naturals without one ``c`` (a card of the hand itself, also in the mirrored
        search)."""
        if self.context.mirrored:
            c = self.context.mirror[c]
        return self.full - self.unit[self.index[_digit(c)]]

    def cards(self, vector: i64) -> list[Card]:
        """The cards of a vector of this layout, one per copy, in the layout's order."""
        found: list[Card] = []
        d: i64
        count: i64
        while vector:
            d = self.digit_at_bit[(vector & -vector) % _BIT_SLOTS]
            count = (vector >> self.offset[d]) & self.count_mask[d]
            if count == 1:
                found.append(self.card_of[d])
            else:
                found.extend([self.card_of[d]] * count)
            vector &= ~(self.count_mask[d] << self.offset[d])
        return found

    def _floor_tables(self, counts: vec[i64]) -> None:
        """What the search's lower bound (_Search.floor) reads: the runs of three naturals the hand
        holds (as presence masks), the ranks that could make a set of naturals, and each card's
        partners (the cards that could share a meld with it and a single wild)."""
        unit = self.unit
        # The digits at each position of each suit. (Where an ace may play high, the floor is
        # only asked once the search has moved every ace to its digit after the kings.)
        at: list[list[list[int]]] = [[[] for _ in range(15)] for _ in range(_SUITS)]
        for i, c in enumerate(self.card_of):
            at[c // 13][self.rank_of[i] + 1].append(i)
        windows = vec[i64]()
        partner = [0] * len(unit)
        for here in at:
            for position in range(1, 15):
                for i in here[position]:
                    for step in (1, 2):
                        for j in here[position + step] if position + step < 15 else []:
                            if j != i:
                                partner[i] |= unit[j]
                                partner[j] |= unit[i]
                    if position + 2 < 15:
                        for middle in here[position + 1]:
                            for top in here[position + 2]:
                                windows = append(windows, unit[i] | unit[middle] | unit[top])
        by_rank: list[list[int]] = [[] for _ in range(_HIGH_ACE + 1)]
        for i, rank in enumerate(self.rank_of):
            by_rank[rank].append(i)
        sets = vec[i64]()
        for rank, digits in enumerate(by_rank):
            for i in digits:
                for j in digits:
                    if j != i:
                        partner[i] |= unit[j]
            if sum(counts[i] for i in digits) >= 3:
                sets = append(sets, sum(unit[i] for i in digits) << 4 | rank)
        self.sets = sets
        """Per rank with three cards or more in the hand: its cards' presence bits << 4 | rank."""
        self.windows = windows
        # What the floor reads of each card, by the lowest bit of its digit: its count's mask,
        # rank, suit and penalty packed in one int, and its partners.
        points = self.context.digit_points
        facts, partner_at = _NO_SLOTS[:], _NO_SLOTS[:]
        for i, first_bit in enumerate(self.offset):
            slot = _POWER[first_bit] % _BIT_SLOTS
            facts[slot] = (
                self.count_mask[i]
                | self.rank_of[i] << _RANK_SHIFT
                | self.card_of[i] // 13 << _SUIT_SHIFT
                | first_bit << _AT_SHIFT
                | points[self.shared[i]] << _POINTS_SHIFT
            )
            partner_at[slot] = partner[i]
        self.facts, self.partner_at = facts, partner_at

    def _dead_digits(self, counts: vec[i64]) -> vec[i64]:
        """The digits of the cards no meld can hold, whatever the rest of the hand does: always
        deadwood (with fewer than two usable wilds; with two, any card and two wilds make a set).
        ``counts``: the copies of each digit's card."""
        usable: i64 = self.usable
        ace_high = self.context.ace_high
        rank_of, card_of = self.rank_of, self.card_of
        by_rank = _NO_COPIES[:13]
        i: i64
        for i in range(self.high_from):
            by_rank[rank_of[i]] += counts[i]
        # Per suit, the ranks (bit r: rank r, 1 to 13, and 14 for an ace that may play high)
        # that some meld of that suit's cards could hold.
        reach = _NO_COPIES[:_SUITS]
        mask: i64
        starts: i64
        for i in range(_SUITS):
            mask = self.suit_masks[i] << 1
            if ace_high:
                mask |= (mask & 2) << 13
            if usable == 0:
                # Positions inside a window of three present ranks.
                starts = mask & (mask >> 1) & (mask >> 2)
                reach[i] = starts | (starts << 1) | (starts << 2)
            else:
                # One wild bridges any two cards of a suit at most two ranks apart.
                reach[i] = (mask << 1 | mask << 2 | mask >> 1 | mask >> 2) & mask
        dead = vec[i64]()
        c: i64
        position: i64
        for i in range(self.high_from):
            c = card_of[i]
            position = _POWER[c % 13 + 1]
            if ace_high and c % 13 == 0:
                position |= _POWER[14]
            if by_rank[c % 13] + usable < 3 and not reach[c // 13] & position:
                dead = append(dead, i)
        return dead


# -- the search -----------------------------------------------------------------------------------


class _Exhausted(Exception):
    pass


class _Search:
    """An exact, memoised search over a meld table for one multiset of wild cards.

    State: (naturals left, wilds not yet placed, spare room for wilds in the melds made so far,
    capped at the wilds left, and the pool of the rank being passed: its rank and how many cards).
    It decides the lowest natural left: into its rank's pool, or the head of a run that still
    fits; leaving a rank settles its pool. Its memo is shared by every query on the same wilds, so
    ranking the discards of a hand revisits most states for free.
    """

    def __init__(self, table: _MeldTable, wilds: list[Card]) -> None:
        context = self.context = table.context
        self.table = table
        self.wild_count = len(wilds)
        self.wild_cards = (
            sorted(wilds, key=context.card_points.__getitem__) if len(wilds) > 1 else list(wilds)
        )
        self.wild_key = tuple(context.card_points[c] for c in self.wild_cards)
        self.leaf, self.pools, self.pool_need, self.pool_moves = context.wild_tables(self.wild_key)
        self.leaf_stride: i64 = self.wild_count + 1
        # Exact results and lower bounds proven by searches under a budget (2 * bound + 1), in
        # one memo: one lookup per state. An exact result is held with the move that reaches it
        # (see _exact).
        self.known = _Memo()
        # The table's vectors the search reads, as its own attributes: read in place, where a local
        # would take a reference (and give it back) on every call.
        self.runs, self.ranks, self.unit = table.runs, table.rank_of, table.unit
        self.digit_at, self.high_of = table.digit_at_bit, table.high_of
        self.width, self.floored, self.low_aces = table.width, table.floored, table.low_aces
        self.limited = context.limit is not None
        self.rank_points = context.rank_points
        self.state_limit = _UNLIMITED
        """The most states the search may know: beyond them it gives up (raises _Exhausted)."""
        self.keep_moves = True
        """Whether exact results keep the move that reaches them (``arrange`` follows them)."""
        self.lone_limit = 1 if context.limit is None or context.limit >= 2 else _UNLIMITED
        """The most wilds with which a card with no partner (see floor) cannot be melded."""
        self.floor_below = 4 if self.lone_limit == 1 else _UNLIMITED
        """The wilds from which on the floor is not worth its cost (and with one wild per meld,
        lone cards stay deadwood whatever the wilds)."""

    def floor(  # noqa: PLR0917 - called from the hot loop
        self, state: i64, present: i64, wilds: i64, pool_rank: i64, pooled: i64, budget: i64
    ) -> i64:
        """A lower bound of the deadwood of the naturals in ``state`` with ``wilds`` wilds (or an
        upper bound of that bound when it is below ``budget``: it then cannot cut).

        A card in no meld of naturals alone (three of its rank, counting the pool, or three in a
        row of its suit) can only be melded with a wild, in a meld that lies in its suit or its
        rank; each wild serves at most one meld. So the deadwood holds at least those cards less
        the dearest ``wilds`` of their suits and ranks. A card with no partner (no other card of
        its rank, none within two ranks in its suit) needs two wilds in its meld: with one wild
        it is deadwood, and with more, see below.
        """
        table = self.table
        covered: i64 = 0
        window: i64
        for window in table.windows:
            if present & window == window:
                covered |= window
        # (By the bit that marks each card: its facts packed in one int, and its partners.)
        facts, partner = table.facts, table.partner_at
        info: i64
        for info in table.sets:
            mask: i64 = info >> 4
            left: i64 = present & mask
            if not left & ~covered:
                continue  # (none of its cards left to cover)
            fewer: i64 = left & (left - 1)
            if fewer & (fewer - 1):  # three suits of it left
                covered |= mask
                continue
            held: i64 = 0
            if info & 15 == pool_rank:
                held = pooled
            while left:  # (one or two suits: their copies)
                bit: i64 = left & -left
                left ^= bit
                fact: i64 = facts[bit % _BIT_SLOTS]
                held += (state >> ((fact >> _AT_SHIFT) & 63)) & fact & _COUNT_MASK
            if held >= 3:
                covered |= mask
        alone: i64 = present & ~covered
        if not alone:
            return 0
        lone = wilds <= self.lone_limit
        stranded: i64 = 0
        total: i64 = 0
        at: i64
        slot: i64
        n: i64
        points: i64
        its_rank: i64
        cost: i64
        suit: i64
        # (Counted whole, never stopping at the budget: a bound that cuts is kept in the memo,
        # and a stronger one spares the floor later visits under wider budgets.)
        if not wilds:  # all of them deadwood
            while alone:
                bit = alone & -alone
                alone ^= bit
                fact = facts[bit % _BIT_SLOTS]
                at = (fact >> _AT_SHIFT) & 63
                stranded += ((state >> at) & fact & _COUNT_MASK) * (fact >> _POINTS_SHIFT)
            return stranded
        # With two or three wilds (see floor_below), the cards with no partner, per suit: the
        # dearest (12 bits a suit), the dearest two that one run can hold (three ranks apart, or
        # four with three wilds), and the rank and penalty of the last one met.
        lonely_tops: i64 = 0
        pair_tops: i64 = 0
        last_lonely: i64 = 0xFFFFF  # (4 bits a suit: none yet)
        last_points: i64 = 0  # (12 bits a suit)
        reach: i64 = wilds + 1
        # The cards a wild could rescue in a meld with others, by group (a suit's or a rank's
        # cards): their suits, their cost in each suit, and the dearest ranks so far: as many
        # as there are wilds, at most four (with one wild per meld), else the two in locals.
        # (The suits' costs in locals too: a list's items would be boxed ints.)
        suits: i64 = 0
        clubs: i64 = 0
        diamonds: i64 = 0
        hearts: i64 = 0
        spades: i64 = 0
        stars: i64 = 0
        deep = wilds > 2
        top = (0, 0, 0, 0)
        first: i64 = 0
        least: i64 = 0  # the dearest two (the least of the kept ones, when deep)
        rank = -1
        rank_cost: i64 = 0
        while alone:
            bit = alone & -alone
            alone ^= bit
            slot = bit % _BIT_SLOTS
            fact = facts[slot]
            at = (fact >> _AT_SHIFT) & 63
            n = (state >> at) & fact & _COUNT_MASK
            points = fact >> _POINTS_SHIFT
            its_rank = (fact >> _RANK_SHIFT) & 15
            if n == 1 and not present & partner[slot] and (not pooled or its_rank != pool_rank):
                stranded += points
                if not lone:
                    suit = (fact >> _SUIT_SHIFT) & 7
                    place: i64 = 12 * suit  # (its suit's fields)
                    lonely_tops = _keep_field(lonely_tops, place, points)
                    if 0 < its_rank - ((last_lonely >> 4 * suit) & 15) <= reach:
                        pair = points + ((last_points >> place) & _FIELD)
                        pair_tops = _keep_field(pair_tops, place, pair)
                    last_lonely = _set_field(last_lonely, 4 * suit, 15, its_rank)
                    last_points = _set_field(last_points, place, _FIELD, points)
            else:
                cost = n * points
                total += cost
                suit = (fact >> _SUIT_SHIFT) & 7
                suits |= 1 << suit
                if suit == 0:
                    clubs += cost
                elif suit == 1:
                    diamonds += cost
                elif suit == 2:
                    hearts += cost
                elif suit == 3:
                    spades += cost
                else:
                    stars += cost
                if its_rank != rank:  # (a rank's cards come in a row)
                    if rank_cost > least:
                        if deep:
                            top = _keep_dearest(top, rank_cost)
                            least = top[3]
                        elif rank_cost > first:
                            first, least = rank_cost, first
                        else:
                            least = rank_cost
                    rank, rank_cost = its_rank, cost
                else:
                    rank_cost += cost
        if stranded + total < budget:
            return stranded + total  # it cannot cut: spare the rest
        # The last rank's cards and each suit's are groups too. (Written out: a loop over them
        # would box them in a tuple, 8% more instructions on the hardest hands.)
        if deep:
            top = _keep_dearest(top, rank_cost)
            if clubs > top[3]:
                top = _keep_dearest(top, clubs)
            if diamonds > top[3]:
                top = _keep_dearest(top, diamonds)
            if hearts > top[3]:
                top = _keep_dearest(top, hearts)
            if spades > top[3]:
                top = _keep_dearest(top, spades)
            if stars > top[3]:
                top = _keep_dearest(top, stars)
            first, second, third, fourth = top
        else:
            second, third, fourth = least, 0, 0
            if rank_cost > second:
                first, second = _keep_two(first, second, rank_cost)
            if clubs > second:
                first, second = _keep_two(first, second, clubs)
            if diamonds > second:
                first, second = _keep_two(first, second, diamonds)
            if hearts > second:
                first, second = _keep_two(first, second, hearts)
            if spades > second:
                first, second = _keep_two(first, second, spades)
            if stars > second:
                first, second = _keep_two(first, second, stars)
        groups = _SUIT_COUNT[suits], first, second, third, fourth
        if lone:
            return stranded + _unrescued(groups, total, wilds)
        best = stranded + _unrescued(groups, total, wilds)
        if not lonely_tops:
            return best
        if wilds > 3:  # pragma: no cover - the floor_below of lone_limit 1 is 4
            return _unrescued(groups, total, wilds)  # (as if every such card were melded)
        # Melding a card with no partner takes two wilds: a set of it and the two, or a run of
        # its suit, where the wilds fill the ranks to the next card, three ranks away or more
        # (then a card with no partner too, or one of its suit's group). With two or three
        # wilds, either no such card is melded, or one with (at most) its suit's group, or two
        # in one run of their suit with its group, and a third wild may meld one more group: the
        # least of the three is a lower bound.
        extra: i64 = 0
        if wilds == 3:
            extra = first
        rescued = _rescued(lonely_tops, clubs, diamonds, hearts, spades, stars, extra, total)
        if pair_tops:
            pairs = _rescued(pair_tops, clubs, diamonds, hearts, spades, stars, extra, total)
            rescued = pairs if pairs > rescued else rescued
        found = stranded + total - rescued
        return found if found < best else best

    def best(self, state: int, budget: int = _UNLIMITED, wilds: int | None = None) -> int:
        """The least deadwood of the naturals in ``state`` plus the wilds (all of them, or the
        ``wilds`` cheapest), when it is below ``budget``; otherwise a lower bound of it, at least
        ``budget``."""
        dead_points = 0
        table = self.table
        if state & table.dead_mask:
            points, shared = self.context.digit_points, table.shared
            for d in table.dead:
                count = (state >> table.offset[d]) & table.count_mask[d]
                dead_points += count * points[shared[d]]
            state &= ~table.dead_mask
        if dead_points >= budget:
            return dead_points
        if wilds is None:
            wilds = self.wild_count
        return dead_points + self.solve(state, wilds, 0, 0, 0, budget - dead_points)

    def solve(  # noqa: PLR0917 - the hot loop: positional arguments are the cheapest
        self, state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64, budget: i64
    ) -> i64:
        """The least deadwood from here when below ``budget``, else a lower bound of it that is
        at least ``budget`` (a search under a budget cuts what cannot get below it).

        The hot loop of the whole service, written for mypyc: a method of a compiled class, so
        the recursion is a direct native call, and the memo's key is one int, not a tuple.
        """
        # First settle what leaves no choice: a card that heads no run it could pay for goes
        # to its rank's pool; a pool left behind is deadwood when it cannot be a set, and a
        # set when it holds three cards or more (with no limit of wilds per meld: a free set
        # with room for every wild, which deadwood never beats).
        # (Native 64-bit ints, here and in the floor: no tag checks on every operation, and no
        # boxed ints. Every value fits: see _state_key. Hence plain ifs where a conditional
        # expression would mix a native int with a literal: mypyc types that as an object, and
        # boxes and unboxes the value, 11k instructions per analysis of a 14-card hand.)
        passed: i64 = 0
        head: i64
        rank: i64
        best: i64
        move: i64
        total: i64
        vector: i64
        need: i64
        room: i64
        left: i64
        after: i64
        cost: i64
        high: i64
        melds = _NO_RUNS  # the head's runs, once the loop stops at a choice of them
        while True:
            if state:
                head = self.digit_at[(state & -state) % _BIT_SLOTS]
                rank = self.ranks[head]
            else:
                head = rank = -1
            if pooled and rank != pool_rank:
                if self.pool_need[pooled] > wilds:
                    passed += pooled * self.rank_points[pool_rank]
                    if passed >= budget:
                        return passed
                elif not self.limited and pooled >= 3:
                    spare = wilds
                else:
                    break  # sets or deadwood: a choice
                pool_rank = pooled = 0
            if head < 0:
                return passed + self.leaf[wilds * self.leaf_stride + spare]
            listed = self.runs[head]
            melds = self.table.runs_headed_by(head) if listed is None else listed
            if len(melds) and (melds[0] >> _NEED_AT) & 63 <= wilds:
                break  # the head's pool (or, for an ace, its digit after the kings), or a run
            high = -1
            if rank == 0:
                high = self.high_of[head]
            if high >= 0:
                state += self.unit[high] - self.unit[head]
                continue
            state -= self.unit[head]
            pool_rank = rank
            pooled += 1
        budget -= passed
        # A pool of three cards or more is a free set that takes any number more: with no
        # limit of wilds per meld, those states are one.
        counted: i64 = 3
        if self.limited or pooled < 3:
            counted = pooled
        key: i64 = _state_key(state, wilds, spare, pool_rank, counted, self.width)
        found: i64 = self.known.get(key)
        if found >= 0:
            if not found & 1:
                return passed + (found >> 1 & 0xFFFF)
            if found >> 1 >= budget:
                return passed + (found >> 1)
        if self.known.size > self.state_limit:
            raise _Exhausted
        present: i64 = self.table.present(state)
        # (The floor counts whole, whatever the budget: where the memo holds a bound below the
        # budget, the floor's is no higher, and it cannot cut.)
        if self.floored and found < 0 and wilds < self.floor_below and not state & self.low_aces:
            bound: i64 = self.floor(state, present, wilds, pool_rank, pooled, budget)
            if bound >= budget:
                # (Kept for the next visit, but with no wilds left, where the floor is quickest
                # and most of the memo's bounds were: a smaller memo stays in the caches, 5% less
                # time on the hardest hands known.)
                if wilds:
                    self.known.put(key, 2 * bound + 1)
                return passed + bound
        if pooled and (head < 0 or self.ranks[head] != pool_rank):
            # Leaving a rank: its pool is all deadwood, or all in sets.
            cost = pooled * self.rank_points[pool_rank]
            best, move = cost, -1
            if cost < budget:
                best += self.solve(state, wilds, spare, 0, 0, budget - cost)
            moves = self.pool_moves[pooled]
            for option in range(len(moves)):
                need = moves[option] & 255
                if need > wilds or not best:
                    break
                left = wilds - need
                after = spare + (moves[option] >> 8)
                total = self.solve(
                    state,
                    left,
                    after if after < left else left,
                    0,
                    0,
                    best if best < budget else budget,
                )
                if total < best:
                    best, move = total, option
        else:
            best, move = _UNLIMITED, -1
            for option in range(len(melds)):
                run: i64 = melds[option]
                need = (run >> _NEED_AT) & 63
                if need > wilds or not best:
                    break
                vector = run & _VECTOR
                if present & vector != vector:
                    continue
                room = run >> _ROOM_AT
                left = wilds - need
                after = spare + room
                total = self.solve(
                    state - vector,
                    left,
                    after if after < left else left,
                    pool_rank,
                    pooled,
                    best if best < budget else budget,
                )
                if total < best:
                    best, move = total, option
            high = -1
            if rank == 0:
                high = self.high_of[head]
            if best and high >= 0:
                total = self.solve(
                    state - self.unit[head] + self.unit[high],
                    wilds,
                    spare,
                    pool_rank,
                    pooled,
                    best if best < budget else budget,
                )
                if total < best:
                    best, move = total, -1
            elif best:
                total = self.solve(
                    state - self.unit[head],
                    wilds,
                    spare,
                    self.ranks[head],
                    pooled + 1,
                    best if best < budget else budget,
                )
                if total < best:
                    best, move = total, -1
        if best >= budget:
            self.known.put(key, 2 * best + 1)
        elif self.keep_moves:
            self.known.put(key, _exact(best, move))
        else:
            self.known.put(key, best << 1)
        return passed + best

    def arrange(self, state: i64) -> tuple[tuple[Meld, ...], tuple[Card, ...]]:
        """The best arrangement of the hand itself (in the mirrored search, turned back): melds
        (wilds assigned), and the deadwood (the naturals in order, then the wilds left
        unplaced). It searches ``state``, then follows the search's own path: what it settled
        without a choice, the same way, and at each choice the move it recorded."""
        table, known, pools = self.table, self.known, self.pools
        free_sets = not self.limited
        deadwood = table.cards(state & table.dead_mask)
        state &= ~table.dead_mask
        self.solve(state, self.wild_count, 0, 0, 0, _UNLIMITED)
        plan: list[_Plan] = []
        wilds, spare, pool_rank, pool = self.wild_count, 0, 0, list[Card]()
        # (Native ints, so that the table's vectors are read directly.)
        head: i64
        rank: i64
        move: i64
        # (The state keys below are written out: a nested function would hold this frame, and
        # with it the search and its memo, in a reference cycle that only the GC frees.)
        while True:
            head = rank = -1
            if state:
                head = table.digit_at_bit[(state & -state) % _BIT_SLOTS]
                rank = table.rank_of[head]
            if pool and rank != pool_rank:
                if self.pool_need[len(pool)] > wilds:
                    move = -1
                elif free_sets and len(pool) >= 3:
                    move = 0
                else:
                    counted = len(pool) if not free_sets or len(pool) < 3 else 3
                    move = known.move_at(
                        _state_key(state, wilds, spare, pool_rank, counted, table.width)
                    )
                if move < 0:
                    deadwood.extend(pool)
                else:
                    sets, need, room = pools[len(pool)][move]
                    for size in _set_sizes(len(pool), sets):
                        plan.append(("set", tuple(pool[:size]), max(0, 3 - size)))
                        pool = pool[size:]
                    wilds -= need
                    spare = min(spare + room, wilds)
                pool, pool_rank = [], 0
            if head < 0:
                break
            runs = table.runs_headed_by(head)
            move = -1
            if len(runs) and (runs[0] >> _NEED_AT) & 63 <= wilds:
                counted = len(pool) if not free_sets or len(pool) < 3 else 3
                move = known.move_at(
                    _state_key(state, wilds, spare, pool_rank, counted, table.width)
                )
            if move < 0 and table.high_of[head] >= 0:
                state += table.unit[table.high_of[head]] - table.unit[head]
                continue
            if move >= 0:
                run = runs[move]
                vector, need, room = run & _VECTOR, (run >> _NEED_AT) & 63, run >> _ROOM_AT
                # (its cards in the layout's order: play order, an ace played high last)
                plan.append(("run", tuple(table.cards(vector)), need))
                state -= vector
                wilds -= need
                spare = min(spare + room, wilds)
                continue
            pool.append(table.card_of[head])
            pool_rank = rank
            state -= table.unit[head]
        melds, unplaced = self._place_wilds(plan, wilds)
        if self.context.mirrored:
            flip = self.context.mirror
            deadwood = [flip[c] for c in deadwood]
        deadwood.sort()
        return tuple(melds), (*deadwood, *unplaced)

    # -- laying out the wilds ---------------------------------------------------------------------

    def _room(self, kind: MeldKind, cards: tuple[Card, ...], need: int) -> int:
        return self.context.room(len(cards) + need, need, is_set=kind == "set")

    def _place_wilds(self, plan: list[_Plan], wilds: int) -> tuple[list[Meld], list[Card]]:
        """Give each meld the wilds it needs, then place the spare ones: in the melds' room, then
        in all-wild melds. The dearest wilds are placed; the cheapest are left unmatched."""
        if not self.wild_count:
            return [self._meld(kind, cards, (None,) * len(cards)) for kind, cards, _ in plan], []
        limit = self.context.limit
        room = 0
        for kind, cards, need in plan:
            room += self._room(kind, cards, need)
        spare = min(room, wilds)
        extra = self.context.absorbable(wilds, spare)
        unplaced = self.wild_cards[: wilds - extra]
        pool = self.wild_cards[wilds - extra :][::-1]  # the dearest first
        own = 0  # wilds in melds of their own
        if extra > spare:
            own = min(
                k
                for k in range(3, extra + 1)
                if (limit is None or _splits_into(k, 3, limit))
                and k + min(extra - k, spare) >= extra
            )
        room_left = extra - own
        melds = []
        for kind, cards, need in plan:
            take = min(room_left, self._room(kind, cards, need))
            room_left -= take
            mine, pool = pool[: need + take], pool[need + take :]
            melds.append(self._lay_out(kind, cards, mine))
        while own:
            size = own if limit is None else min(own, limit)
            if own - size in (1, 2):
                size = own - 3
            mine, pool = pool[:size], pool[size:]
            melds.append(self._all_wild(mine))
            own -= size
        return melds, unplaced

    def _lay_out(self, kind: MeldKind, naturals: tuple[Card, ...], wilds: list[Card]) -> Meld:
        """A meld of the search's naturals (in its own order: mirrored in the mirrored search) and
        the wilds given to it, each wild assigned the card it stands for. A wild of the wild rank
        stands for itself wherever the meld has room for that card."""
        if not wilds:  # the naturals come in play order (a run's ace played high last)
            return self._meld(kind, naturals, (None,) * len(naturals))
        face = self.context.face
        if kind == "set":
            stands = _set_stands(naturals[0] % 13, naturals, wilds, face, self.context.rules.suits)
            return self._meld("set", (*naturals, *wilds), (*[None] * len(naturals), *stands))
        # A run: naturals at their ranks (an ace played high at 14), wilds in the gaps first,
        # then extending it upwards, then downwards.
        base = naturals[0] - naturals[0] % 13
        positions = [c % 13 + 1 for c in naturals]
        if len(positions) > 1 and positions[-1] == 1:
            positions[-1] = 14
        top = 14 if self.context.ace_high and 1 not in positions else 13
        bottom = 2 if 14 in positions else self.context.rules.low_rank
        at = [-1] * 16  # the card at each position
        for k in range(len(naturals)):
            at[positions[k]] = naturals[k]
        lo, hi = positions[0], positions[-1]  # (in play order)
        slots = [p for p in range(lo, hi + 1) if at[p] < 0]
        while len(slots) < len(wilds):
            if hi < top:
                hi += 1
                slots.append(hi)
            else:
                lo -= 1
                if lo < bottom:  # pragma: no cover - the search never overfills a run
                    raise AssertionError("a run was given more wilds than it has room for")
                slots.append(lo)
        stands_at: list[Card | None] = [None] * 16
        for w, slot in zip(wilds, _run_slots(base, slots[: len(wilds)], wilds, face), strict=True):
            at[slot] = w
            stands_at[slot] = base + (slot - 1) % 13
        return self._meld("run", tuple(at[lo : hi + 1]), tuple(stands_at[lo : hi + 1]))

    def _meld(
        self, kind: MeldKind, cards: tuple[Card, ...], stands_for: tuple[Card | None, ...]
    ) -> Meld:
        """A meld of naturals (and wilds) laid out by the search, as a meld of the hand itself: in
        the mirrored search, each natural and what each wild stands for mirrored back, and a run
        from its low end again."""
        flip = self.context.face
        turned, stands = list(cards), list(stands_for)
        for k in range(len(turned)):
            stand = stands[k]
            if stand is None:
                turned[k] = flip[turned[k]]
            elif flip[stand] == turned[k]:
                stands[k] = None  # a wild-rank card standing for itself: no wild
            else:
                stands[k] = flip[stand]
        if kind == "run" and self.context.mirrored:
            turned.reverse()
            stands.reverse()
        return Meld(kind, tuple(turned), tuple(stands))

    def _all_wild(self, wilds: list[Card]) -> Meld:
        """Wilds alone, a set of the wild rank (of kings for jokers alone): a wild-rank card plays
        as itself, a joker stands for a card of the rank. (The hand's own cards: in the mirrored
        search too, nothing to mirror back.)"""
        rank = self.context.wild if self.context.wild is not None else 13
        suits = self.context.rules.suits
        stands = _set_stands(rank - 1, (), wilds, range(JOKER + 1), suits)
        return Meld(
            "set",
            tuple(wilds),
            tuple(None if s == w else s for s, w in zip(stands, wilds, strict=True)),
        )


def _set_stands(
    rank: int, naturals: Sequence[Card], wilds: list[Card], face: Sequence[Card], suits: int
) -> list[Card]:
    """The card each wild stands for in a set of ``rank`` (0 for aces) with these naturals: a
    wild-rank card of that rank (at ``face``, its place in the search's order) stands for itself,
    the others for the suits the set lacks, in turn (all suits, once it lacks none)."""
    own = [c != JOKER and face[c] % 13 == rank for c in wilds]
    held = {c // 13 for c in naturals} | {
        c // 13 for c, mine in zip(wilds, own, strict=True) if mine
    }
    free = [s for s in range(suits) if s not in held] or list(range(suits))
    stands, k = [], 0
    for c, mine in zip(wilds, own, strict=True):
        if mine:
            stands.append(face[c])
        else:
            stands.append(free[k % len(free)] * 13 + rank)
            k += 1
    return stands


def _run_slots(base: int, slots: list[int], wilds: list[Card], face: Sequence[Card]) -> list[int]:
    """The run positions ``slots`` given to ``wilds`` in turn, but a wild-rank card whose own
    place (at ``face``, in the search's order) is one of them takes that one: it plays as itself."""
    given = [-1] * len(wilds)
    free = list(slots)
    for k, c in enumerate(wilds):
        if c == JOKER or face[c] - face[c] % 13 != base:
            continue
        for position in (face[c] % 13 + 1, 14 if face[c] % 13 == 0 else -1):
            if position in free:
                given[k] = position
                free.remove(position)
                break
    rest = iter(free)
    return [slot if slot >= 0 else next(rest) for slot in given]


def _unrescued(groups: tuple[int, int, int, int, int], total: int, melds: int) -> int:
    """What is left of ``total``, the cost of the cards of ``groups`` (how many suits they lie in,
    and the costs of their four dearest groups, a suit's or a rank's cards), when ``melds`` melds
    with wilds rescue the dearest groups: a meld lies in one suit or one rank."""
    suits, first, second, third, fourth = groups
    if melds >= suits:
        return 0  # a meld in each of their suits
    # (So at most four melds.)
    rescued = 0
    if melds >= 1:
        rescued += first
        if melds >= 2:
            rescued += second
            if melds >= 3:
                rescued += third
                if melds >= 4:
                    rescued += fourth
    return total - rescued if total > rescued else 0


_FIELD: Final = 4095
"""A field of 12 bits, one a suit, in the floor's packed tallies of cards with no partner (a
penalty is at most 1,000, two of them at most 2,000)."""


def _keep_field(fields: i64, at: i64, value: i64) -> i64:
    """``fields`` with the 12-bit field at bit ``at`` raised to ``value``, if that is more."""
    if value > (fields >> at) & _FIELD:
        return _set_field(fields, at, _FIELD, value)
    return fields


def _set_field(fields: i64, at: i64, mask: i64, value: i64) -> i64:
    """``fields`` with the field ``mask`` at bit ``at`` set to ``value``. (Written without
    shifting the mask itself: compiled, a constant shifted by a native int is a 32-bit C int,
    and fields from bit 31 up came out wrong.)"""
    return fields - (((fields >> at) & mask) << at) + (value << at)


def _rescued(  # noqa: PLR0917 - called from the floor
    tops: i64,
    clubs: i64,
    diamonds: i64,
    hearts: i64,
    spades: i64,
    stars: i64,
    extra: i64,
    total: i64,
) -> i64:
    """The most one meld of cards with no partner (``tops``: the dearest such cards it can hold,
    a 12-bit field a suit) rescues with its suit's group (the suits' costs), and ``extra`` more
    from another meld, of the groups' ``total`` at most."""
    best = _with_group(tops, clubs, extra, total)
    best = _most(best, _with_group(tops >> 12, diamonds, extra, total))
    best = _most(best, _with_group(tops >> 24, hearts, extra, total))
    best = _most(best, _with_group(tops >> 36, spades, extra, total))
    return _most(best, _with_group(tops >> 48, stars, extra, total))


def _with_group(tops: i64, group: i64, extra: i64, total: i64) -> i64:
    """What the suit whose tally lies in the low 12 bits of ``tops`` rescues (see _rescued)."""
    top = tops & _FIELD
    if top:
        return top + _least(group + extra, total)
    return 0


def _most(a: i64, b: i64) -> i64:
    return a if a > b else b


def _least(a: i64, b: i64) -> i64:
    return a if a < b else b


def _keep_dearest(top: tuple[int, int, int, int], cost: int) -> tuple[int, int, int, int]:
    """The four dearest of ``top`` (in decreasing order) and ``cost``."""
    first, second, third, fourth = top
    if cost <= fourth:
        return top
    if cost <= third:
        return first, second, third, cost
    if cost <= second:
        return first, second, cost, third
    if cost <= first:
        return first, cost, second, third
    return cost, first, second, third


def _keep_two(first: int, second: int, cost: int) -> tuple[int, int]:
    """The two dearest of ``first``, ``second`` (in decreasing order) and ``cost``."""
    if cost > first:
        return cost, first
    return first, cost if cost > second else second


_MOVE_SHIFT: Final = 17
"""An exact result in a search's memo: the move that reaches it above the result, as one even
int (a lower bound is odd: 2 * bound + 1). A result is at most 30 penalties of at most 1,000, so
it fits in the 16 bits below the move. Without a move (a search whose path no one will follow
stores none) an entry is the result doubled."""


def _exact(result: i64, move: i64) -> i64:
    """The memo's entry of an exact result reached by ``move``: a run's index, a pool option's,
    or -1 (the head to its pool, or an ace to its digit after the kings; the pool to deadwood)."""
    return (move + 1) << _MOVE_SHIFT | result << 1


def _move_of(exact: i64) -> i64:
    return (exact >> _MOVE_SHIFT) - 1


def _state_key(  # noqa: PLR0917 - called from the hot loop
    state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64, width: i64
) -> i64:
    """A search state as one int: four small fields above the naturals, a state of ``width``
    bits (a hand holds at most 30 cards, so the wilds, the spare room and the pool each fit in
    five bits, the rank in four). The naturals come in the low bits, where they vary most.

    A key fits in 59 bits, so the search computes with native 64-bit ints: a digit of a count n
    takes at most n bits, so the naturals take at most 30, and the aces' digits after the kings
    at most 10 more (at most 2 bits more than its copies for each of five suits' aces)."""
    return (((wilds << 5 | spare) << 4 | pool_rank) << 5 | pooled) << width | state


# -- small sequence helpers ----------------------------------------------------------------------


def _set_sizes(pooled: int, sets: int) -> list[int]:
    """``pooled`` cards dealt as evenly as possible into ``sets`` sets (the fewest wilds needed)."""
    base = pooled // sets
    extra = pooled - base * sets
    return [base + 1 if k < extra else base for k in range(sets)]


@cache
def _pool_options(wilds: int, limit: int | None) -> list[list[tuple[int, int, int]]]:
    """For each pool size n, the ways n naturals of one rank can all be sets: (sets, wilds
    needed, room for more wilds). One set when any number of wilds may join a meld; under a limit
    per meld, more sets hold more wilds."""
    table = []
    for pooled in range(MAX_HAND + 1):
        options = []
        for sets in range(1, pooled + 1 if limit is not None else min(pooled, 1) + 1):
            needs = [max(0, 3 - size) for size in _set_sizes(pooled, sets)]
            need = sum(needs)
            if need > wilds or (limit is not None and max(needs) > limit):
                continue
            room = _UNLIMITED if limit is None else sum(limit - n for n in needs)
            options.append((sets, need, room))
        table.append(options)
    return table


def _splits_into(total: int, low: int, high: int) -> bool:
    """Whether ``total`` is a sum of parts each between ``low`` and ``high``."""
    parts = -(-total // high)
    return parts * low <= total

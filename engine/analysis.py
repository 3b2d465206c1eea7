"""Exact hand analysis: the arrangement into melds with the least deadwood.

The chain: split the hand into natural cards and wilds → drop the naturals no meld can ever hold
→ an exact, memoised search over the remaining naturals → the best arrangement → deadwood.

The search state is (remaining naturals, wilds not yet placed, spare room for wilds in the melds
made so far). It always decides the lowest remaining natural card ``c`` (suit-major order, so
every other card of its suit has a rank at least as high and every other card of its rank a
later suit): ``c`` is deadwood, or heads a set drawn from the naturals of its rank, or heads a run
drawn from the higher naturals of its suit. A meld's missing cards (the gaps of a run, or the
cards a set or run lacks to reach three) are paid for in wilds. Wilds left at the end fill spare
room in the melds, form all-wild melds where the rules allow, or count as deadwood, the cheapest
first. Wild cards (jokers and the wild rank) always play as wilds, even where they stand for
themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, product
from typing import Final, Literal

from engine.cards import (
    JOKER,
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


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld in a hand. ``cards`` are in play order (a run from its low end); ``stands_for`` is
    parallel to ``cards``: the card each wild plays as, None for a natural card."""

    kind: MeldKind
    cards: tuple[Card, ...]
    stands_for: tuple[Card | None, ...]

    def __repr__(self) -> str:
        shown = " ".join(
            format_card(c) + ("" if s is None else f"={format_card(s)}")
            for c, s in zip(self.cards, self.stands_for, strict=True)
        )
        return f"Meld({self.kind} {shown})"


@dataclass(frozen=True, slots=True)
class Discard:
    card: Card
    deadwood_points: int
    """The least deadwood of the hand left after discarding ``card``."""


@dataclass(frozen=True, slots=True)
class Analysis:
    wild: Rank | None
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    deadwood_points: int
    discards: tuple[Discard, ...]
    """One per distinct card, the best (least deadwood left) first."""

    @property
    def melded(self) -> bool:
        return self.deadwood_points == 0

    @property
    def suggested_discard(self) -> Card | None:
        return self.discards[0].card if self.discards else None

    @property
    def can_go_out(self) -> bool:
        return bool(self.discards) and self.discards[0].deadwood_points == 0


# -- public functions -----------------------------------------------------------------------------


def min_deadwood(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> int:
    """The least deadwood penalty of ``cards`` over every arrangement into melds."""
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    naturals, wilds = _split(hand, wild_rank)
    if not wilds and len(set(naturals)) == len(naturals):
        found = _without_wilds(naturals, rules_value.card_points, rules_value.aces == "high_or_low")
        if found is not None:
            return found
    table = _MeldTable(rules_value, naturals, len(wilds))
    return _Search(table, wilds, wild_rank).best(table.full)


def arrange(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """The best arrangement alone (no ranking of discards): melds, deadwood, deadwood points."""
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    naturals, wilds = _split(hand, wild_rank)
    table = _MeldTable(rules_value, naturals, len(wilds))
    melds, deadwood = _Search(table, wilds, wild_rank).arrange(table.full)
    points = sum(rules_value.points(c, wild_rank) for c in deadwood)
    return tuple(melds), tuple(deadwood), points


def analyse(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> Analysis:
    """The best arrangement of ``cards``, its deadwood, and every discard ranked by what it leaves.

    ``wild`` is a rank (int or code such as ``"8"``), or None when only jokers are wild.
    """
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    naturals, wilds = _split(hand, wild_rank)
    table = _MeldTable(rules_value, naturals, len(wilds))
    search = _Search(table, wilds, wild_rank)
    melds, deadwood = search.arrange(table.full)
    points = sum(rules_value.points(c, wild_rank) for c in deadwood)

    discards: list[Discard] = []
    if len(hand) > 1:
        # A card left as deadwood by the best arrangement costs exactly its penalty: discarding
        # it leaves the rest of that arrangement (no better one can exist, or adding the card
        # back as deadwood would beat the best). Only melded cards need a search of their own.
        left_as_deadwood = set(deadwood)
        # Discarding a natural keeps the wilds (and the memo); each kind of wild gets a search.
        by_wilds = {_wild_key(search.wild_cards, rules_value, wild_rank): search}
        for c in sorted(set(hand)):
            if c in left_as_deadwood:
                left = points - rules_value.points(c, wild_rank)
            elif c in table.digit:
                left = search.best(table.full - table.unit[table.digit[c]])
            else:
                rest = list(search.wild_cards)
                rest.remove(c)
                key = _wild_key(rest, rules_value, wild_rank)
                if key not in by_wilds:
                    by_wilds[key] = _Search(table, rest, wild_rank)
                left = by_wilds[key].best(table.full)
            discards.append(Discard(c, left))
        discards.sort(
            key=lambda d: (d.deadwood_points, -rules_value.points(d.card, wild_rank), d.card)
        )
    return Analysis(wild_rank, tuple(melds), tuple(deadwood), points, tuple(discards))


def _wild_key(wilds: Sequence[Card], rules: Rules, wild: Rank | None) -> tuple[int, ...]:
    """Wilds differ to the search only by their penalties."""
    return tuple(sorted(rules.points(c, wild) for c in wilds))


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
    rules_value = Rules.from_spec(rules)
    hand = parse_cards(cards)
    if not 1 <= len(hand) <= MAX_HAND:
        raise HandError(f"a hand holds 1 to {MAX_HAND} cards, not {len(hand)}")
    if not rules_value.pack_cards.issuperset(hand):
        stranger = next(c for c in hand if c not in rules_value.pack_cards)
        raise HandError(f"{format_card(stranger)} is not in the {rules_value.preset} pack")
    wild_rank = parse_rank(wild) if isinstance(wild, str) else wild
    if wild_rank is not None and wild_rank not in rules_value.ranks:
        raise HandError(f"wild rank {wild_rank} is not a rank of the {rules_value.preset} pack")
    return hand, wild_rank, rules_value


# The wild cards of each wild rank (index 0: no wild rank, jokers only).
_WILD_CARDS: Final = (
    frozenset({JOKER}),
    *(frozenset({JOKER, *(card(rank, s) for s in range(5))}) for rank in range(1, 14)),
)


def _split(hand: Sequence[Card], wild: Rank | None) -> tuple[list[Card], list[Card]]:
    if wild is None and JOKER not in hand:
        return sorted(hand), []
    wild_cards = _WILD_CARDS[wild or 0]
    naturals = sorted(c for c in hand if c not in wild_cards)
    wilds = [c for c in hand if c in wild_cards]
    return naturals, wilds


def _without_wilds(naturals: list[Card], points: Sequence[int], ace_high: bool) -> int | None:
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

    def deadwood(run_masks: list[int], set_counts: list[int]) -> tuple[int, list[Card]]:
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

    penalty, conflicts = deadwood(suits, by_rank)
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
        result, _ = deadwood(run_masks, set_counts)
        if result < 0:
            return None
        best = min(best, result)
    return best


# -- candidate runs and set pools -----------------------------------------------------------------

# The naturals of a hand are a multiset over its distinct natural cards, packed into one int: a
# 6-bit digit per distinct card, holding its count (at most 30) below a guard bit. Digits run in
# rank-major order (all aces, then all twos, ...), so the search meets every card of a rank in a
# row. A run is a vector in the same packing, so "does this run fit in what is left" is one
# subtraction: it fits when no guard bit is borrowed.
_DIGIT: Final = 6
_COUNT_MASK: Final = (1 << (_DIGIT - 1)) - 1

# A planned meld: its kind, its natural cards in play order, and the wilds it needs.
_Plan = tuple[MeldKind, tuple[Card, ...], int]
# A candidate run: (vector, wilds needed, room for more wilds, ace played high).
_Run = tuple[int, int, int, bool]


def _rank_major(c: Card) -> tuple[int, int]:
    return c % 13, c // 13


class _MeldTable:
    """What the naturals of one hand can form with up to ``wild_count`` wilds.

    Runs are listed per head (their lowest card in rank-major order; an ace played high heads its
    run too). Sets need no list: a card that heads no run goes to its rank's pool, and once the
    search has passed a rank its pool becomes sets or deadwood as a whole. That is exact because
    a natural left as deadwood beside a set of its rank could always join the set for free (it
    never raises the set's need for wilds); so per rank, the cards outside runs are all in sets
    or all deadwood.
    """

    def __init__(self, rules: Rules, naturals: Sequence[Card], wild_count: int) -> None:
        self.rules = rules
        cards = self.cards = sorted(set(naturals), key=_rank_major)
        self.digit = {c: i for i, c in enumerate(cards)}
        self.rank = [c % 13 for c in cards]
        unit = self.unit = [1 << (_DIGIT * i) for i in range(len(cards))]
        self.guard = sum(unit) << (_DIGIT - 1)
        counts = self.counts = [0] * len(cards)
        for c in naturals:
            counts[self.digit[c]] += 1
        self.full = sum(k * u for k, u in zip(counts, unit, strict=True))
        limit = self.limit = rules.max_wilds_per_meld
        self.usable = wild_count if limit is None else min(wild_count, limit)
        self.max_run = rules.max_run_length
        self.ace_high = rules.aces == "high_or_low"
        # Built on first use: the search never asks for the runs of a card it never heads with.
        self.runs: list[list[_Run] | None] = [None] * len(cards)
        self.dead = self._dead_digits()
        self.dead_mask = sum(unit[i] * _COUNT_MASK for i in self.dead)

    def room(self, length: int, need: int, *, is_set: bool) -> int:
        """How many more wilds a meld of ``length`` cards (``need`` of them wild) can take."""
        room = _UNLIMITED if is_set else self.max_run - length
        return room if self.limit is None else min(room, self.limit - need)

    def plan(self, vector: int, need: int, ace_high: bool) -> _Plan:
        """A run's cards in play order."""
        cards = sorted(
            (
                c
                for i, c in enumerate(self.cards)
                for _ in range((vector >> (_DIGIT * i)) & _COUNT_MASK)
            ),
        )
        if ace_high:
            cards = [*cards[1:], cards[0]]
        return "run", tuple(cards), need

    def runs_headed_by(self, head: int) -> list[_Run]:
        found = self.runs[head]
        if found is None:
            found = self.runs[head] = self._runs_headed_by(head)
        return found

    def _runs_headed_by(self, head: int) -> list[_Run]:
        """Runs of the head with higher cards of its suit, one per rank, gaps paid in wilds:
        upwards from it, and, for an ace that may play high, downwards from 14."""
        cards, unit, usable = self.cards, self.unit, self.usable
        c = cards[head]
        suit = c // 13
        higher = sorted(
            (cards[j] % 13 + 1, j)
            for j in range(head + 1, len(cards))
            if cards[j] // 13 == suit and cards[j] != c
        )
        found: list[tuple[int, int, int, int, bool]] = []  # (need, -size, vector, room, high)
        # A run needing two wilds or more per natural card is never better than each of its
        # cards in a set with two wilds: no more wilds, and at least as much room for others.
        singles_do_better = self.limit is None or self.limit >= 2
        directions = [(c % 13 + 1, higher, False)]
        if self.ace_high and c % 13 == 0:
            directions.append((14, higher[::-1], True))
        for start, ranked, high in directions:
            # Depth-first over the ranks in order: (next index, gaps so far, last rank, vector).
            stack = [(0, 0, start, unit[head], 1)]
            while stack:
                first, gaps, last, vector, size = stack.pop()
                for k in range(first, len(ranked)):
                    r, j = ranked[k]
                    total = gaps + abs(r - last) - 1
                    if total > usable:
                        break
                    grown, grown_size = vector + unit[j], size + 1
                    stack.append((k + 1, total, r, grown, grown_size))
                    need = max(total, 3 - grown_size)
                    if need >= 2 * grown_size and singles_do_better:
                        continue
                    if need <= usable and grown_size + need <= self.max_run:
                        room = self.room(grown_size + need, need, is_set=False)
                        found.append((need, -grown_size, grown, room, high))
        # Fewest wilds first (the search stops at the first run it cannot pay for), and among
        # those the longest: a hand that melds completely is found, and proven, soonest.
        found.sort()
        return [(vector, need, room, high) for need, _, vector, room, high in found]

    def _dead_digits(self) -> list[int]:
        """The cards no meld can hold, whatever the rest of the hand does: always deadwood."""
        usable = self.usable
        if usable >= 2:
            return []  # any card and two wilds make a set
        by_rank = [0] * 13
        suits = [0] * 5
        for c, k in zip(self.cards, self.counts, strict=True):
            by_rank[c % 13] += k
            suits[c // 13] |= 1 << (c % 13 + 1)
        if self.ace_high:
            suits = [mask | (mask & 2) << 13 for mask in suits]
        if usable == 0:
            # Positions inside a window of three present ranks.
            reach = []
            for mask in suits:
                starts = mask & (mask >> 1) & (mask >> 2)
                reach.append(starts | (starts << 1) | (starts << 2))
        else:
            # One wild bridges any two cards of a suit at most two ranks apart.
            reach = [(mask << 1 | mask << 2 | mask >> 1 | mask >> 2) & mask for mask in suits]
        dead = []
        for i, c in enumerate(self.cards):
            position = 1 << (c % 13 + 1)
            if self.ace_high and c % 13 == 0:
                position |= 1 << 14
            if by_rank[c % 13] + usable < 3 and not reach[c // 13] & position:
                dead.append(i)
        return dead


# -- the search -----------------------------------------------------------------------------------


class _Search:
    """An exact, memoised search over a meld table for one multiset of wild cards.

    State: (naturals left, wilds not yet placed, spare room for wilds in the melds made so far,
    capped at the wilds left, and the pool of the rank being passed: its rank and how many cards).
    It decides the lowest natural left: into its rank's pool, or the head of a run that still
    fits; leaving a rank settles its pool. Its memo is shared by every query on the same wilds, so
    ranking the discards of a hand revisits most states for free.
    """

    def __init__(self, table: _MeldTable, wilds: Sequence[Card], wild: Rank | None) -> None:
        rules = table.rules
        self.table = table
        self.wild = wild
        self.wild_count = len(wilds)
        self.wild_cards = sorted(wilds, key=lambda c: rules.points(c, wild))
        cheapest = [0, *accumulate(rules.points(c, wild) for c in self.wild_cards)]
        self.all_wild = rules.all_wild_melds and (table.limit is None or table.limit >= 3)
        # leaf[u][spare]: the penalty of u wilds left over when the melds have this spare room.
        self.leaf = [
            [cheapest[u - self._absorbable(u, spare)] for spare in range(u + 1)]
            for u in range(self.wild_count + 1)
        ]
        self.points = [rules.points(c, wild) for c in table.cards]
        self.rank_points = [rules.rank_points[r + 1] for r in range(13)]
        # pools[n]: the ways n pooled cards of a rank can all be sets, given every wild.
        self.pools = _pool_options(self.wild_count, table.limit)
        self.memo: dict[tuple[int, int, int, int, int], int] = {}
        self.solve = self._solver()

    def best(self, state: int) -> int:
        """The least deadwood of the naturals in ``state`` plus all the wilds."""
        dead_points = 0
        if state & self.table.dead_mask:
            for i in self.table.dead:
                dead_points += ((state >> (_DIGIT * i)) & _COUNT_MASK) * self.points[i]
            state &= ~self.table.dead_mask
        return dead_points + self.solve(state, self.wild_count, 0, 0, 0)

    def _solver(self) -> Callable[[int, int, int, int, int], int]:
        # A closure over locals: this is the hot loop of the whole service.
        table = self.table
        runs, ranks, unit, guard = table.runs, table.rank, table.unit, table.guard
        build = table.runs_headed_by
        leaf, memo, pools, rank_points = self.leaf, self.memo, self.pools, self.rank_points
        limited = table.limit is not None

        def solve(state: int, wilds: int, spare: int, pool_rank: int, pooled: int) -> int:
            # A card that heads no run it could pay for goes straight to its rank's pool.
            head = -1
            while state:
                head = ((state & -state).bit_length() - 1) // _DIGIT
                if pooled and ranks[head] != pool_rank:
                    break
                melds = runs[head]
                if melds is None:
                    melds = build(head)
                if melds and melds[0][1] <= wilds:
                    break
                state -= unit[head]
                pool_rank = ranks[head]
                pooled += 1
                head = -1
            if not state and not pooled:
                return leaf[wilds][spare]
            # Past three cards a pool is a free set that takes any number more: with no limit of
            # wilds per meld, those states are one.
            counted = pooled if limited or pooled < 3 else 3
            key = (state, wilds, spare, pool_rank, counted)
            found = memo.get(key)
            if found is not None:
                return found
            if pooled and (head < 0 or ranks[head] != pool_rank):
                # Leaving a rank: its pool is all deadwood, or all in sets.
                best = pooled * rank_points[pool_rank] + solve(state, wilds, spare, 0, 0)
                for _, need, room in pools[pooled]:
                    if need > wilds or not best:
                        break
                    left = wilds - need
                    after = spare + room
                    total = solve(state, left, after if after < left else left, 0, 0)
                    best = min(best, total)
                memo[key] = best
                return best
            best = solve(state - unit[head], wilds, spare, ranks[head], pooled + 1)
            if best:
                guarded = state | guard
                for vector, need, room, _ in runs[head] or ():
                    if need > wilds:
                        break
                    rest = guarded - vector
                    if rest & guard != guard:
                        continue
                    left = wilds - need
                    after = spare + room
                    total = solve(
                        rest ^ guard, left, after if after < left else left, pool_rank, pooled
                    )
                    if total < best:
                        best = total
                        if not best:
                            break
            memo[key] = best
            return best

        return solve

    def arrange(self, state: int) -> tuple[list[Meld], list[Card]]:
        """The best arrangement: melds (wilds assigned) and deadwood cards."""
        table, solve = self.table, self.solve
        deadwood = [
            table.cards[i] for i in table.dead for _ in range((state >> (_DIGIT * i)) & _COUNT_MASK)
        ]
        state &= ~table.dead_mask
        plan: list[_Plan] = []
        wilds, spare, pool_rank, pool = self.wild_count, 0, 0, list[Card]()
        while state or pool:
            target = solve(state, wilds, spare, pool_rank, len(pool))
            head = ((state & -state).bit_length() - 1) // _DIGIT if state else -1
            if pool and (not state or table.rank[head] != pool_rank):
                for sets, need, room in self.pools[len(pool)]:
                    left = wilds - need
                    after = min(spare + room, left)
                    if need <= wilds and solve(state, left, after, 0, 0) == target:
                        sizes = _set_sizes(len(pool), sets)
                        for size in sizes:
                            plan.append(("set", tuple(pool[:size]), max(0, 3 - size)))
                            pool = pool[size:]
                        wilds, spare = left, after
                        break
                else:
                    deadwood.extend(pool)
                pool, pool_rank = [], 0
                continue
            if (
                solve(state - table.unit[head], wilds, spare, table.rank[head], len(pool) + 1)
                == target
            ):
                pool.append(table.cards[head])
                pool_rank = table.rank[head]
                state -= table.unit[head]
                continue
            guarded = state | table.guard
            for vector, need, room, high in table.runs_headed_by(head):
                rest = guarded - vector
                if need > wilds or rest & table.guard != table.guard:
                    continue
                left = wilds - need
                after = min(spare + room, left)
                if solve(rest ^ table.guard, left, after, pool_rank, len(pool)) == target:
                    plan.append(table.plan(vector, need, high))
                    state, wilds, spare = rest ^ table.guard, left, after
                    break
            else:  # pragma: no cover - the memo holds the minimum of exactly these moves
                raise AssertionError("no move reaches the searched minimum")
        melds, unplaced = self._place_wilds(plan, wilds)
        return melds, sorted(deadwood) + unplaced

    def _absorbable(self, wilds: int, spare: int) -> int:
        """How many leftover wilds the melds' spare room and all-wild melds can hold."""
        if wilds == 0:
            return 0
        best = min(wilds, spare)
        if self.all_wild and wilds >= 3:
            limit = self.table.limit
            if limit is None:
                return wilds
            for in_own in range(3, wilds + 1):
                if _splits_into(in_own, 3, limit):
                    best = max(best, in_own + min(wilds - in_own, spare))
        return best

    # -- laying out the wilds ---------------------------------------------------------------------

    def _room(self, kind: MeldKind, cards: tuple[Card, ...], need: int) -> int:
        return self.table.room(len(cards) + need, need, is_set=kind == "set")

    def _place_wilds(self, plan: list[_Plan], wilds: int) -> tuple[list[Meld], list[Card]]:
        """Give each meld the wilds it needs, then place the spare ones: in the melds' room, then
        in all-wild melds. The dearest wilds are placed; the cheapest are left unmatched."""
        spare = min(sum(self._room(*meld) for meld in plan), wilds)
        extra = self._absorbable(wilds, spare)
        unplaced = self.wild_cards[: wilds - extra]
        pool = self.wild_cards[wilds - extra :][::-1]  # the dearest first
        own = 0  # wilds in melds of their own
        if extra > spare:
            own = min(
                k
                for k in range(3, extra + 1)
                if (self.table.limit is None or _splits_into(k, 3, self.table.limit))
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
            size = own if self.table.limit is None else min(own, self.table.limit)
            if own - size in (1, 2):
                size = own - 3
            mine, pool = pool[:size], pool[size:]
            melds.append(self._all_wild(mine))
            own -= size
        return melds, unplaced

    def _lay_out(self, kind: MeldKind, naturals: tuple[Card, ...], wilds: list[Card]) -> Meld:
        suits = self.table.rules.suits
        if kind == "set":
            rank = naturals[0] % 13 + 1
            free = [s for s in range(suits) if card(rank, s) not in naturals] or list(range(suits))
            stands = [card(rank, free[i % len(free)]) for i in range(len(wilds))]
            return Meld("set", (*naturals, *wilds), (*[None] * len(naturals), *stands))
        # A run: naturals at their ranks (an ace played high at 14), wilds in the gaps first,
        # then extending it upwards, then downwards.
        base = naturals[0] - naturals[0] % 13
        positions = [c % 13 + 1 for c in naturals]
        if len(positions) > 1 and positions[-1] == 1:
            positions[-1] = 14
        top = 14 if self.table.ace_high and 1 not in positions else 13
        bottom = 2 if 14 in positions else self.table.rules.low_rank
        filled = dict(zip(positions, naturals, strict=True))
        lo, hi = min(positions), max(positions)
        slots = [p for p in range(lo, hi + 1) if p not in filled]
        while len(slots) < len(wilds):
            if hi < top:
                hi += 1
                slots.append(hi)
            else:
                lo -= 1
                if lo < bottom:  # pragma: no cover - the search never overfills a run
                    raise AssertionError("a run was given more wilds than it has room for")
                slots.append(lo)
        placed: dict[int, tuple[Card, Card | None]] = {p: (c, None) for p, c in filled.items()}
        for slot, w in zip(slots, wilds, strict=True):
            placed[slot] = (w, base + (slot - 1) % 13)
        ordered = [placed[p] for p in sorted(placed)]
        return Meld("run", tuple(c for c, _ in ordered), tuple(s for _, s in ordered))

    def _all_wild(self, wilds: list[Card]) -> Meld:
        rank = self.wild if self.wild is not None else 13
        return Meld("set", tuple(wilds), tuple(card(rank, i % 4) for i in range(len(wilds))))


# -- small sequence helpers ----------------------------------------------------------------------


def _set_sizes(pooled: int, sets: int) -> list[int]:
    """``pooled`` cards dealt as evenly as possible into ``sets`` sets (the fewest wilds needed)."""
    base, extra = divmod(pooled, sets)
    return [base + 1] * extra + [base] * (sets - extra)


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

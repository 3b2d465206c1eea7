"""The search: exact, memoised branch and bound over one hand's meld table.

The state is (naturals left, wilds not yet placed, spare room for wilds in the melds made so far,
the pool of the rank being passed). The search always decides the lowest natural left (rank-major
order, so every other card of its suit ranks at least as high): into its rank's pool (which
becomes sets or deadwood as a whole when the search leaves the rank), or the head of a run drawn
from the higher naturals of its suit; where an ace may play high, it may instead move to a digit
after the kings. A meld's missing cards are paid in wilds. Results and the lower bounds proven
under a budget share one memo (see formats), so ranking a hand's discards revisits most states
for free. Under a budget, what cannot get below it is cut, also by the floor on large hands.

The search runs on the hand's mirror image (ranks counted from the king down), where the dearest
cards come first and cuts come soonest; on large hands it races the hand as it is, since each
order has hands only the other finds easy. (Where the rules limit wilds, ``roles`` searches each
split of the hand's wild-rank cards into naturals and wilds over one table.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine.analysis.candidates import Context
from engine.analysis.floor import Tally, floor, smaller
from engine.analysis.formats import (
    BIT_SLOTS,
    ENTRY_BOUND,
    ENTRY_RESULT,
    ENTRY_VALUE_AT,
    POOL_NEED,
    POOL_ROOM_AT,
    RUN_CARDS,
    RUN_NEED,
    RUN_NEED_AT,
    RUN_ROOM_AT,
    UNLIMITED,
    exact_entry,
    state_key,
)
from engine.analysis.hand import without_wilds
from engine.analysis.memo import Memo
from engine.analysis.table import MeldTable
from engine.cards import Card

RACE_FROM: Final = 1000
"""The states each order of a large hand's search gets in the first round (see search_of)."""
NO_RUNS: Final = vec[i64]()


class Exhausted(Exception):
    pass


class Search:
    """An exact, memoised search over a meld table for one multiset of wild cards.

    State: (naturals left, wilds not yet placed, spare room for wilds in the melds made so far,
    capped at the wilds left, and the pool of the rank being passed: its rank and how many cards).
    It decides the lowest natural left: into its rank's pool, or the head of a run that still
    fits; leaving a rank settles its pool. Its memo is shared by every query on the same wilds, so
    ranking the discards of a hand revisits most states for free.
    """

    def __init__(self, table: MeldTable, wilds: list[Card]) -> None:
        context = self.context = table.context
        self.table = table
        self.wild_count = len(wilds)
        self.wild_cards = (
            sorted(wilds, key=context.card_points.__getitem__) if len(wilds) > 1 else list(wilds)
        )
        self.wild_key = tuple(context.card_points[c] for c in self.wild_cards)
        self.leaf, self.pools, self.pool_need, self.pool_moves = context.wild_tables(self.wild_key)
        self.leaf_stride: i64 = self.wild_count + 1
        # Exact results and lower bounds proven by searches under a budget (see formats), in
        # one memo: one lookup per state. An exact result is held with the move that reaches it
        # (see exact_entry).
        self.known = Memo()
        # The table's vectors the search reads, as its own attributes: read in place, where a local
        # would take a reference (and give it back) on every call.
        self.runs, self.ranks, self.unit = table.runs, table.rank_of, table.unit
        self.digit_at, self.high_of = table.digit_at_bit, table.high_of
        self.width, self.floored, self.low_aces = table.width, table.floored, table.low_aces
        self.limited = context.limit is not None
        self.rank_points = context.rank_points
        self.state_limit = UNLIMITED
        """The most states the search may know: beyond them it gives up (raises Exhausted)."""
        self.keep_moves = True
        """Whether exact results keep the move that reaches them (``arrange`` follows them)."""
        self.lone_limit = 1 if context.limit is None or context.limit >= 2 else UNLIMITED
        """The most wilds with which a card with no partner (see floor) cannot be melded."""
        self.tally = Tally()
        """The floor's scratch tally."""
        self.floor_below = 4 if self.lone_limit == 1 else UNLIMITED
        """The wilds from which on the floor is not worth its cost (and with one wild per meld,
        lone cards stay deadwood whatever the wilds)."""

    def best(self, state: int, budget: int = UNLIMITED, wilds: int | None = None) -> int:
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

        The hot loop of the whole service, written for mypyc: methods of a compiled class, so
        the recursion is a direct native call, and the memo's key is one int, not a tuple.
        (Native 64-bit ints throughout: no tag checks and no boxed ints; every value fits, see
        formats. Hence plain ifs where a conditional expression would mix a native int with a
        literal: mypyc types that as an object, and boxes the value.)
        """
        settled = self.settle(state, wilds, spare, pool_rank, pooled, budget)
        state, spare, pool_rank, pooled, passed, head = settled
        if head < 0 and not pooled:
            return passed  # every card settled
        budget -= passed
        # A pool of three cards or more is a free set that takes any number more: with no
        # limit of wilds per meld, those states are one.
        counted: i64 = 3
        if self.limited or pooled < 3:
            counted = pooled
        key: i64 = state_key(state, wilds, spare, pool_rank, counted, self.width)
        found: i64 = self.known.get(key)
        if found >= 0:
            if not found & ENTRY_BOUND:
                return passed + (found >> ENTRY_VALUE_AT & ENTRY_RESULT)
            if found >> ENTRY_VALUE_AT >= budget:
                return passed + (found >> ENTRY_VALUE_AT)
        if self.known.size > self.state_limit:
            raise Exhausted
        present: i64 = self.table.present(state)
        # (The floor counts whole, whatever the budget: where the memo holds a bound below the
        # budget, the floor's is no higher, and it cannot cut.)
        if self.floored and found < 0 and wilds < self.floor_below and not state & self.low_aces:
            bound: i64 = floor(
                self.table, self.tally, self.lone_limit, state, present, wilds, pool_rank, pooled,
                budget,
            )  # fmt: skip
            if bound >= budget:
                # (Kept for the next visit, but with no wilds left, where the floor is quickest
                # and most of the memo's bounds were: a smaller memo stays in the caches.)
                if wilds:
                    self.known.put(key, bound << ENTRY_VALUE_AT | ENTRY_BOUND)
                return passed + bound
        if pooled and (head < 0 or self.ranks[head] != pool_rank):
            best, move = self.leave_pool(state, wilds, spare, pool_rank, pooled, budget)
        else:
            best, move = self.decide_head(state, present, head, wilds, spare, pool_rank, pooled,
                                          budget)  # fmt: skip
        if best >= budget:
            self.known.put(key, best << ENTRY_VALUE_AT | ENTRY_BOUND)
        elif self.keep_moves:
            self.known.put(key, exact_entry(best, move))
        else:
            self.known.put(key, best << ENTRY_VALUE_AT)
        return passed + best

    def settle(  # noqa: PLR0917 - the hot loop
        self, state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64, budget: i64
    ) -> tuple[i64, i64, i64, i64, i64, i64]:
        """Settles what leaves no choice: a card that heads no run it could pay for goes to its
        rank's pool (an ace that may play high, to its digit after the kings); a pool left
        behind is deadwood when it cannot be a set, and a set when it holds three cards or more
        (with no limit of wilds per meld: a free set with room for every wild, which deadwood
        never beats). Returns (state, spare, pool rank, pooled, deadwood passed, head): the head
        is the card to decide, or -1 with nothing pooled once every card is settled (the
        deadwood then includes the leftover wilds'), or once the deadwood reaches ``budget``."""
        passed: i64 = 0
        head: i64
        rank: i64
        while True:
            head = rank = -1
            if state:
                head = self.digit_at[(state & -state) % BIT_SLOTS]
                rank = self.ranks[head]
            if pooled and rank != pool_rank:
                if self.pool_need[pooled] > wilds:
                    passed += pooled * self.rank_points[pool_rank]
                    if passed >= budget:
                        return state, spare, 0, 0, passed, -1
                elif not self.limited and pooled >= 3:
                    spare = wilds
                else:
                    return state, spare, pool_rank, pooled, passed, head  # sets or deadwood
                pool_rank = pooled = 0
            if head < 0:
                return state, spare, 0, 0, passed + self.leaf[wilds * self.leaf_stride + spare], -1
            listed = self.runs[head]
            melds = self.table.runs_headed_by(head) if listed is None else listed
            if len(melds) and (melds[0] >> RUN_NEED_AT) & RUN_NEED <= wilds:
                return state, spare, pool_rank, pooled, passed, head  # a run, or the pool
            high: i64 = -1
            if rank == 0:
                high = self.high_of[head]
            if high >= 0:
                state += self.unit[high] - self.unit[head]
                continue
            state -= self.unit[head]
            pool_rank = rank
            pooled += 1

    def leave_pool(  # noqa: PLR0917 - the hot loop
        self, state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64, budget: i64
    ) -> tuple[i64, i64]:
        """Leaving a rank: its pool is all deadwood, or all in sets (each way of making them).
        The least deadwood (or a bound, at least ``budget``) and the move to it."""
        cost: i64 = pooled * self.rank_points[pool_rank]
        best: i64 = cost
        move: i64 = -1
        if cost < budget:
            best += self.solve(state, wilds, spare, 0, 0, budget - cost)
        moves = self.pool_moves[pooled]
        for option in range(len(moves)):
            need: i64 = moves[option] & POOL_NEED
            if need > wilds or not best:
                break
            left: i64 = wilds - need
            after: i64 = smaller(spare + (moves[option] >> POOL_ROOM_AT), left)
            total = self.solve(state, left, after, 0, 0, smaller(best, budget))
            if total < best:
                best, move = total, option
        return best, move

    def decide_head(  # noqa: PLR0917 - the hot loop
        self,
        state: i64,
        present: i64,
        head: i64,
        wilds: i64,
        spare: i64,
        pool_rank: i64,
        pooled: i64,
        budget: i64,
    ) -> tuple[i64, i64]:
        """The head heads a run that fits (each in turn), or goes to its rank's pool (an ace that
        may play high: to its digit after the kings). The least deadwood (or a bound, at least
        ``budget``) and the move to it: the run's index, or -1."""
        best: i64 = UNLIMITED
        move: i64 = -1
        melds = self.runs[head]
        runs = NO_RUNS if melds is None else melds
        for option in range(len(runs)):
            run: i64 = runs[option]
            need: i64 = (run >> RUN_NEED_AT) & RUN_NEED
            if need > wilds or not best:
                break
            vector: i64 = run & RUN_CARDS
            if present & vector != vector:
                continue
            left: i64 = wilds - need
            after: i64 = smaller(spare + (run >> RUN_ROOM_AT), left)
            total = self.solve(
                state - vector, left, after, pool_rank, pooled, smaller(best, budget)
            )
            if total < best:
                best, move = total, option
        if not best:
            return best, move
        rank: i64 = self.ranks[head]
        high: i64 = -1
        if rank == 0:
            high = self.high_of[head]
        if high >= 0:
            state += self.unit[high] - self.unit[head]
        else:
            state -= self.unit[head]
            pool_rank = rank
            pooled += 1
        total = self.solve(state, wilds, spare, pool_rank, pooled, smaller(best, budget))
        if total < best:
            best, move = total, -1
        return best, move


def search_of(
    context: Context, naturals: list[Card], wilds: list[Card]
) -> tuple[tuple[MeldTable, Search], tuple[MeldTable, Search] | None]:
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
    table = MeldTable(context.flipped(), [flip[n] for n in naturals], len(wilds))
    mirrored = table, Search(table, wilds)
    if not table.floored:
        return mirrored, None
    table = MeldTable(context, naturals, len(wilds))
    plain = table, Search(table, wilds)
    if race([(*mirrored, mirrored[0].full), (*plain, table.full)]):
        return plain, mirrored
    return mirrored, plain


def race(entrants: list[tuple[MeldTable, Search, int]], budget: int = UNLIMITED) -> int:
    """The index of the entrant (a table, its search, and a state of that table) whose search of
    its state finishes first, each in turn getting a number of states, four times more each
    round (see search_of). The winner's result is in its memo; the others' memos stay true."""
    limit = RACE_FROM
    while True:
        for k, (_, search, state) in enumerate(entrants):
            search.state_limit = limit
            try:
                search.best(state, budget)
            except Exhausted:
                continue
            search.state_limit = UNLIMITED
            return k
        limit *= 4


def wild_key(wilds: Iterable[Card], penalty: Sequence[int]) -> tuple[int, ...]:
    """Wilds differ to the search only by their penalties."""
    return tuple(sorted(penalty[c] for c in wilds))


def least_of_split(context: Context, naturals: list[Card], wilds: list[Card], budget: int) -> int:
    """The least deadwood of one split of a hand into naturals and wilds, when below ``budget``
    (else at least ``budget``)."""
    if not wilds and len(set(naturals)) == len(naturals):
        found = without_wilds(naturals, context.card_points, context.ace_high)
        if found is not None:
            return found
    (table, search), _ = search_of(context, naturals, wilds)
    return search.best(table.full, budget)

"""The candidate melds under one rules value and wild rank (a ``Context``): the runs a card heads,
given the higher cards of its suit the hand holds and the wilds it may use; the ways a rank's
pool of naturals makes sets; what leftover wilds cost. They depend on no one hand, so they are
built once and kept, each cache with its bound.
"""

from __future__ import annotations

from functools import cache
from itertools import accumulate
from typing import Final, TypeAlias

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.analysis.formats import (
    CARD_OF_DIGIT,
    HIGH_ACE,
    MAX_HAND,
    POOL_ROOM_AT,
    RANK_BITS,
    RANK_OF_DIGIT,
    RUN_NEED_AT,
    RUN_ROOM_AT,
    RUNS_HIGHER_AT,
    RUNS_USABLE_AT,
    SUITS,
    UNLIMITED,
)
from engine.analysis.hand import WILD_CARDS
from engine.analysis.memo import Memo
from engine.cards import JOKER, Card, Rank
from engine.rules import Rules

RUN_CACHE_LIMIT: Final = 100_000
"""Entries a context's cache of candidate runs may hold before it starts again: a key is a head
and the ranks above it, so a process meets a few thousand at most per context; the bound keeps a
stream of odd rules values from growing it without end."""
WILD_TABLES_LIMIT: Final = 1024
"""Kinds of wilds (their penalties in order) a context keeps tables for before it starts
again: a game's hands hold a handful of kinds; the bound is for a stream of odd hands."""
# A search's tables for its wilds: leftover penalties, pool options, the fewest wilds per pool.
# (leaf, pools, pool_need, pool_moves: see Context.wild_tables. A string: at run time, vec[i64]
# is no type.)
WildTables: TypeAlias = (
    "tuple[vec[i64], list[list[tuple[int, int, int]]], vec[i64], list[vec[i64]]]"
)


class Context:
    """What every hand analysed under one rules value and wild rank shares: penalties, the meld
    limits, and caches of candidate runs and of leftover-wild penalties."""

    def __init__(self, rules: Rules, wild: Rank | None, *, mirrored: bool = False) -> None:
        self.rules = rules
        self.wild = wild
        self.mirrored = mirrored
        self.wild_cards = WILD_CARDS[wild or 0]
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
        self.digit_points = tuple(rules.points(face[c], wild) for c in CARD_OF_DIGIT)
        self.rank_points = vec[i64]([self.digit_points[r * SUITS] for r in range(HIGH_ACE + 1)])
        self.limit = rules.max_wilds_per_meld
        self.max_run = rules.max_run_length
        self.ace_high = rules.aces == "high_or_low"
        self.all_wild = rules.all_wild_melds and (self.limit is None or self.limit >= 3)
        # Under a limit on wilds a wild-rank card playing as itself counts as no wild, so it may
        # do better as a natural (see roles); with none, a wild does all a natural can.
        self.either_role = self.limit is not None or not rules.all_wild_melds
        # A run needing two wilds or more per natural card is never better than each of its
        # cards in a set with two wilds: no more wilds, and at least as much room for others.
        self.singles_do_better = self.limit is None or self.limit >= 2
        # The runs by key (see runs_headed_by): in a memo of native ints, their index in a list.
        # (A dict would box each key, and compare it by value with its own.)
        self.run_index = Memo()
        self.run_lists: list[vec[i64]] = []
        self.tables_by_wilds: dict[tuple[int, ...], WildTables] = {}
        self._flipped: Context | None = None

    def flipped(self) -> Context:
        """The mirrored context of the same rules and wild rank."""
        if self._flipped is None:
            self._flipped = Context(self.rules, self.wild, mirrored=True)
        return self._flipped

    def room(self, length: int, need: int, *, is_set: bool) -> int:
        """How many more wilds a meld of ``length`` cards (``need`` of them wild) can take."""
        room = UNLIMITED if is_set else self.max_run - length
        return room if self.limit is None else min(room, self.limit - need)

    def runs_headed_by(self, head: int, higher: int, usable: int) -> vec[i64]:
        """The candidate runs headed by digit ``head`` when the hand holds the higher ranks of its
        suit in the bit mask ``higher`` (bit 0: the next rank up) and ``usable`` wilds: their
        ranks, need and room, each as one int (see RUN_NEED_AT)."""
        key: i64 = usable << RUNS_USABLE_AT | higher << RUNS_HIGHER_AT | head
        at = self.run_index.get(key)
        if at < 0:
            if len(self.run_lists) >= RUN_CACHE_LIMIT:
                self.run_index, self.run_lists = Memo(), []
            at = len(self.run_lists)
            self.run_lists.append(self._runs_headed_by(head, higher, usable))
            self.run_index.put(key, at)
        return self.run_lists[at]

    def _runs_headed_by(self, head: int, higher: int, usable: int) -> vec[i64]:
        """Runs of the head with higher cards of its suit (an ace that may play high included,
        at 14), one per rank, gaps paid in wilds."""
        rank = RANK_OF_DIGIT[head] + 1
        top = HIGH_ACE + 1 if self.ace_high else 13
        ranked = [
            (rank + 1 + k, head + SUITS * (k + 1)) for k in range(top - rank) if higher >> k & 1
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
                ranks |= 1 << ((d - head) // SUITS)
            shapes = append(shapes, ranks | need << RUN_NEED_AT | room << RUN_ROOM_AT)
        return shapes

    def wild_tables(self, penalties: tuple[int, ...]) -> WildTables:
        """What a search needs to know of its wilds (their penalties, in increasing order)."""
        found = self.tables_by_wilds.get(penalties)
        if found is None:
            if len(self.tables_by_wilds) >= WILD_TABLES_LIMIT:
                self.tables_by_wilds.clear()
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
            pools = pool_options(len(penalties), self.limit)
            pool_need = vec[i64]([options[0][1] if options else UNLIMITED for options in pools])
            pool_moves = [
                vec[i64]([need | room << POOL_ROOM_AT for _, need, room in options])
                for options in pools
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
                if splits_into(in_own, 3, self.limit):
                    best = max(best, in_own + min(wilds - in_own, spare))
        return best


# The caches of contexts. A context's caches of runs and wild tables are what every analysis
# under the same rules reuses, so it pays to find the context again: by value (at most 64
# rules values and wild ranks, then it starts again), and by the identity of the rules object,
# since hashing a Rules value hashes every field, in Python (at most 256, keyed by
# id(rules) and the wild rank, 0 for none: each entry holds its rules object, so while it is
# there no other object can take that id), and the last one, for a stream of one game's hands.
_CONTEXTS: dict[tuple[Rules, Rank | None], Context] = {}
_BY_IDENTITY: dict[int, tuple[Rules, Context]] = {}
_LAST_CONTEXT: list[Context] = [Context(Rules.from_spec("classic"), None)]


def context_for(rules: Rules, wild: Rank | None) -> Context:
    last = _LAST_CONTEXT[0]
    if last.rules is rules and last.wild == wild:
        return last
    identity = id(rules) << RANK_BITS | (wild or 0)
    known = _BY_IDENTITY.get(identity)
    if known is not None and known[0] is rules:
        found = known[1]
    else:
        found_by_value = _CONTEXTS.get((rules, wild))
        if found_by_value is None:
            if len(_CONTEXTS) >= 64:
                _CONTEXTS.clear()
            found_by_value = Context(rules, wild)
            _CONTEXTS[rules, wild] = found_by_value
        found = found_by_value
        if len(_BY_IDENTITY) >= 256:
            _BY_IDENTITY.clear()
        _BY_IDENTITY[identity] = rules, found
    _LAST_CONTEXT[0] = found
    return found


def set_sizes(pooled: int, sets: int) -> list[int]:
    """``pooled`` cards dealt as evenly as possible into ``sets`` sets (the fewest wilds needed)."""
    base = pooled // sets
    extra = pooled - base * sets
    return [base + 1 if k < extra else base for k in range(sets)]


@cache
def pool_options(wilds: int, limit: int | None) -> list[list[tuple[int, int, int]]]:
    """For each pool size n, the ways n naturals of one rank can all be sets: (sets, wilds
    needed, room for more wilds). One set when any number of wilds may join a meld; under a limit
    per meld, more sets hold more wilds."""
    table = []
    for pooled in range(MAX_HAND + 1):
        options = []
        for sets in range(1, pooled + 1 if limit is not None else min(pooled, 1) + 1):
            needs = [max(0, 3 - size) for size in set_sizes(pooled, sets)]
            need = sum(needs)
            if need > wilds or (limit is not None and max(needs) > limit):
                continue
            room = UNLIMITED if limit is None else sum(limit - n for n in needs)
            options.append((sets, need, room))
        table.append(options)
    return table


def splits_into(total: int, low: int, high: int) -> bool:
    """Whether ``total`` is a sum of parts each between ``low`` and ``high``."""
    parts = -(-total // high)
    return parts * low <= total

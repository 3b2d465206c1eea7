"""One hand laid out for the search (a ``MeldTable``): a digit per distinct natural card in the
shared rank-major order, each just wide enough for its count (see formats); the runs each card
heads, as vectors of that layout; the cards no meld can ever hold; and the tables the floor reads.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.analysis.candidates import Context
from engine.analysis.formats import (
    ACE_HIGH_AT,
    ACE_LOW,
    ACE_TO_HIGH,
    BIT_SLOTS,
    DIGITS,
    FACT_BIT_AT,
    FACT_POINTS_AT,
    FACT_RANK_AT,
    FACT_SUIT_AT,
    HIGH_ACE,
    MAX_HAND,
    POWER,
    RUN_CARDS,
    SET_CARDS_AT,
    SUITS,
    digit_of,
)
from engine.cards import Card

FLOOR_FROM: Final = 15
"""From this many distinct naturals on, the search cuts with a lower bound (floor); on smaller
hands building its tables costs more than it saves."""
# Empty vectors that a hand's tables start as copies of: each table is a slice of a template,
# set in place (appending to a vector is a call, and a vector made from a list iterates it as
# objects).
NO_SLOTS: Final = vec[i64]([0] * BIT_SLOTS)
NO_HIGH_ACES: Final = vec[i64]([-1] * (MAX_HAND + 1))
NO_COPIES: Final = vec[i64]([0] * DIGITS)
NO_INDEX: Final = vec[i64]([-1] * DIGITS)
NO_ABOVE: Final = vec[i64]([0] * 5)


def within_reach(higher: i64, wilds: i64) -> i64:
    """The part of ``higher`` (the ranks above a card, bit 0 the next rank up) that a run from
    that card can reach with this many wilds (fewer than 12): up to the first gap wider than the
    wilds."""
    gaps: i64 = ~higher & (POWER[13 + wilds] - 1)  # (a vector: see POWER)
    starts: i64 = gaps
    shift: i64
    for shift in range(1, wilds + 1):
        starts &= gaps >> shift
    return higher & ((starts & -starts) - 1)


class MeldTable:
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
        context: Context,
        naturals: list[Card],
        wild_count: int,
        floored: bool | None = None,
    ) -> None:
        """``floored``: whether the search cuts with its lower bound (by default, on hands of
        FLOOR_FROM distinct naturals or more)."""
        self.context = context
        limit = context.limit
        self.usable = wild_count if limit is None else min(wild_count, limit)
        self.suit_masks = NO_COPIES[:SUITS]
        """Per suit, its ranks held (bit 0: aces; bit HIGH_ACE: an ace with a digit after the
        kings)."""
        shared, counts = self._distinct_cards(naturals)
        self.high_from = len(shared)
        """The first of the digits of aces kept to play high (after every natural's)."""
        self.high_of = NO_HIGH_ACES[: len(shared)]
        """Each ace's digit after the kings, where it has one; else -1."""
        for i in self._aces_to_move(shared, counts) if context.ace_high else []:
            self.high_of[i] = len(shared)
            self.high_of = append(self.high_of, -1)
            shared = append(shared, HIGH_ACE * SUITS + shared[i])
            counts = append(counts, counts[i])  # (room for every copy; none there at first)
            self.suit_masks[shared[i]] |= POWER[HIGH_ACE]
        self.shared = shared
        self._lay_out(counts)
        # Filled on first use: the search never asks for the runs of a card it never heads with.
        self.runs: list[vec[i64] | None] = [None] * len(shared)
        self.dead = self._dead_digits(counts) if self.usable < 2 else vec[i64]()
        dead_mask: i64 = 0
        for d in self.dead:
            dead_mask |= self.count_mask[d] << self.offset[d]
        self.dead_mask = dead_mask
        self.floored = self.high_from >= FLOOR_FROM if floored is None else floored
        if self.floored:
            self._floor_tables(counts)

    def _distinct_cards(self, naturals: list[Card]) -> tuple[vec[i64], vec[i64]]:
        """The hand's distinct naturals as digits of the shared order (ascending), and the copies
        of each; the suits' masks of ranks held, on the way.

        (Every table here is a vector of unboxed ints: a list's items are objects. Each is a
        slice of a template, set in place: appending to a vector is a call, and a vector made
        from a list iterates it as objects.)"""
        masks = self.suit_masks
        copies = NO_COPIES[:]  # of each digit of the shared order
        lowest: i64 = DIGITS
        highest: i64 = 0
        distinct: i64 = 0
        c: i64
        d: i64
        for c in naturals:
            masks[c // 13] |= POWER[c % 13]
            d = (c % 13) * SUITS + c // 13  # digit_of(c)
            if not copies[d]:
                distinct += 1
            copies[d] += 1
            lowest, highest = min(lowest, d), max(highest, d)
        shared = NO_COPIES[:distinct]
        counts = NO_COPIES[:distinct]
        distinct = 0
        for d in range(lowest, highest + 1):
            if copies[d]:
                shared[distinct] = d
                counts[distinct] = copies[d]
                distinct += 1
        return shared, counts

    def _lay_out(self, counts: vec[i64]) -> None:
        """The hand's own layout (see formats): a digit per distinct natural, in the shared
        order, each just wide enough for its own count, so a search state (with its key) is one
        machine word; and what the search reads of each digit."""
        digits = len(self.shared)
        self.index = NO_INDEX[:]
        self.count_mask = NO_COPIES[:digits]  # each digit's bits, from its lowest
        self.offset = NO_COPIES[:digits]  # each digit's lowest bit
        self.unit = NO_COPIES[:digits]  # each digit's lowest bit, as a power of two
        self.rank_of = NO_COPIES[:digits]
        self.card_of = NO_COPIES[:digits]
        self.digit_at_bit = NO_SLOTS[:]
        """The digit of each bit, by the bit's slot (see BIT_SLOTS)."""
        above = NO_ABOVE[:]  # above[k]: the (k+1)-th bit of every digit wider than k
        full: i64 = 0
        low: i64 = 0
        at: i64 = 0
        low_aces: i64 = 0
        for i in range(digits):
            digit = self.shared[i]
            count = counts[i]
            one: i64 = POWER[at]
            self.index[digit] = i
            self.unit[i] = one
            # (RANK_OF_DIGIT and CARD_OF_DIGIT, computed: their items are objects)
            self.rank_of[i] = digit // SUITS
            self.card_of[i] = (digit % SUITS) * 13 + digit // SUITS % 13
            self.offset[i] = at
            width: i64 = 1
            while count >> width:
                width += 1
            self.count_mask[i] = POWER[width] - 1
            if self.high_of[i] >= 0:
                low_aces |= (POWER[width] - 1) << at
            for k in range(width):
                self.digit_at_bit[POWER[at + k] % BIT_SLOTS] = i
                if k:
                    above[k] = above[k] | one << k
            if i < self.high_from:
                full += count * one
            low += one
            at += width
        self.width = at
        """The bits a state of this layout takes (at most 40: see formats.state_key)."""
        self.above = vec[i64](capacity=4)
        for k in range(1, len(above)):
            if above[k]:
                self.above = append(self.above, above[k])
        self.full, self.low = full, low
        self.low_aces = low_aces
        """Where an ace may play high: the aces the search has not yet moved after the kings."""

    def _aces_to_move(self, shared: vec[i64], counts: vec[i64]) -> list[int]:
        """The aces that get a digit after the kings: those of a suit with a card a run to the ace
        at 14 could hold (a king, or as far down as the wilds can bridge). But sets of aces are
        made on one side: where the aces could make one (with the wilds), every ace or none.
        (An ace moved there is counted as deadwood only once the search reaches it, so it moves
        only where it might do better.)"""
        aces = [i for i in range(len(shared)) if shared[i] < SUITS]
        reach = [i for i in aces if self.suit_masks[shared[i]] >> max(1, 12 - self.usable)]
        if sum(counts[i] for i in aces) + self.usable >= 3:
            return aces if reach else []
        return reach

    def runs_headed_by(self, head: i64) -> vec[i64]:
        """The runs the card of digit ``head`` heads, each one int: vector | need << RUN_NEED_AT |
        room << RUN_ROOM_AT (wilds needed at most 30, room at most 13)."""
        found = self.runs[head]
        if found is not None:
            return found
        digit: i64 = self.shared[head]
        higher = self.suit_masks[digit % SUITS] >> (digit // SUITS + 1)
        if self.usable < 12:
            higher = within_reach(higher, self.usable)
        # Each run's ranks (under the context) become its vector (in this hand's layout).
        runs = self.context.runs_headed_by(digit, higher, self.usable)[:]  # set in place
        shape: i64
        ranks: i64
        d: i64
        vector: i64
        for i in range(len(runs)):
            shape = runs[i]
            ranks, d, vector = shape & RUN_CARDS, digit, 0
            while ranks:
                if ranks & 1:
                    vector += self.unit[self.index[d]]
                ranks >>= 1
                d += SUITS
            runs[i] = shape - (shape & RUN_CARDS) + vector
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
        return self.less(self.full, c)

    def less(self, state: int, c: Card) -> int:
        """``state`` less one copy of ``c``, a natural of the hand itself (in the mirrored
        search too) that ``state`` holds."""
        if self.context.mirrored:
            c = self.context.mirror[c]
        return state - self.unit[self.index[digit_of(c)]]

    def cards(self, vector: i64) -> list[Card]:
        """The cards of a vector of this layout, one per copy, in the layout's order."""
        found: list[Card] = []
        d: i64
        count: i64
        while vector:
            d = self.digit_at_bit[(vector & -vector) % BIT_SLOTS]
            count = (vector >> self.offset[d]) & self.count_mask[d]
            if count == 1:
                found.append(self.card_of[d])
            else:
                found.extend([self.card_of[d]] * count)
            vector &= ~(self.count_mask[d] << self.offset[d])
        return found

    def _floor_tables(self, counts: vec[i64]) -> None:
        """What the search's lower bound (Search.floor) reads: the runs of three naturals the hand
        holds (as presence masks), the ranks that could make a set of naturals, and each card's
        partners (the cards that could share a meld with it and a single wild)."""
        partner = [0] * len(self.unit)
        self.windows = self._run_windows(partner)
        self.sets = self._rank_sets(counts, partner)
        """Per rank with three cards or more in the hand: its cards' presence bits and its rank
        (see formats)."""
        self._floor_facts(partner)

    def _run_windows(self, partner: list[int]) -> vec[i64]:
        """The presence masks of every three naturals in a row of one suit; adds to ``partner``
        the cards one or two ranks apart in a suit."""
        unit = self.unit
        # The digits at each position of each suit. (Where an ace may play high, the floor is
        # only asked once the search has moved every ace to its digit after the kings.)
        at: list[list[list[int]]] = [[[] for _ in range(15)] for _ in range(SUITS)]
        for i, c in enumerate(self.card_of):
            at[c // 13][self.rank_of[i] + 1].append(i)
        windows = vec[i64]()
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
        return windows

    def _rank_sets(self, counts: vec[i64], partner: list[int]) -> vec[i64]:
        """Per rank with three cards or more, its presence bits and rank; adds to ``partner`` the
        other cards of each card's rank."""
        unit = self.unit
        by_rank: list[list[int]] = [[] for _ in range(HIGH_ACE + 1)]
        for i, rank in enumerate(self.rank_of):
            by_rank[rank].append(i)
        sets = vec[i64]()
        for rank, digits in enumerate(by_rank):
            for i in digits:
                for j in digits:
                    if j != i:
                        partner[i] |= unit[j]
            if sum(counts[i] for i in digits) >= 3:
                sets = append(sets, sum(unit[i] for i in digits) << SET_CARDS_AT | rank)
        return sets

    def _floor_facts(self, partner: list[int]) -> None:
        """What the floor reads of each card, by the lowest bit of its digit: its count's mask,
        rank, suit and penalty packed in one int, and its partners."""
        points = self.context.digit_points
        facts, partner_at = NO_SLOTS[:], NO_SLOTS[:]
        for i, first_bit in enumerate(self.offset):
            slot = POWER[first_bit] % BIT_SLOTS
            facts[slot] = (
                self.count_mask[i]
                | self.rank_of[i] << FACT_RANK_AT
                | self.card_of[i] // 13 << FACT_SUIT_AT
                | first_bit << FACT_BIT_AT
                | points[self.shared[i]] << FACT_POINTS_AT
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
        by_rank = NO_COPIES[:13]
        i: i64
        for i in range(self.high_from):
            by_rank[rank_of[i]] += counts[i]
        # Per suit, the ranks (bit r: rank r, 1 to 13, and 14 for an ace that may play high)
        # that some meld of that suit's cards could hold.
        reach = NO_COPIES[:SUITS]
        mask: i64
        starts: i64
        for i in range(SUITS):
            mask = self.suit_masks[i] << 1
            if ace_high:
                mask |= (mask & ACE_LOW) << ACE_TO_HIGH
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
            position = POWER[c % 13 + 1]
            if ace_high and c % 13 == 0:
                position |= POWER[ACE_HIGH_AT]
            if by_rank[c % 13] + usable < 3 and not reach[c // 13] & position:
                dead = append(dead, i)
        return dead

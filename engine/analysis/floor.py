"""The search's lower bound ("floor"): deadwood no arrangement of a state can avoid.

A card in no meld of naturals alone (three of its rank, counting the pool, or three in a row of
its suit) can only be melded with a wild, in a meld that lies in its suit or its rank; each wild
serves at most one meld. So the deadwood holds at least those cards less the dearest ``wilds`` of
their suits and ranks. A card with no partner (no other card of its rank, none within two ranks in
its suit) needs two wilds in its meld. The tallies it keeps per suit are packed fields (see
formats); the search asks it only on large hands (see table.FLOOR_FROM), where it cuts most.
"""

from __future__ import annotations

from librt.vecs import vec
from mypy_extensions import i64

from engine.analysis.formats import (
    BIT_MASK,
    BIT_SLOTS,
    FACT_BIT_AT,
    FACT_COUNT,
    FACT_POINTS_AT,
    FACT_RANK_AT,
    FACT_SUIT_AT,
    NO_LONE_RANKS,
    POWER,
    RANK_BITS,
    RANK_MASK,
    SET_CARDS_AT,
    SUIT_COUNT,
    SUIT_MASK,
    SUITS,
    TALLY,
    TALLY_BITS,
)
from engine.analysis.table import MeldTable


def floor(  # noqa: PLR0917 - called from the hot loop
    table: MeldTable,
    tally: Tally,
    lone_limit: i64,
    state: i64,
    present: i64,
    wilds: i64,
    pool_rank: i64,
    pooled: i64,
    budget: i64,
) -> i64:
    """A lower bound of the deadwood of the naturals in ``state`` with ``wilds`` wilds (or an
    upper bound of that bound when it is below ``budget``: it then cannot cut).

    The cards covered by a meld of naturals alone cost nothing here; the others (``alone``) are
    deadwood unless a wild rescues them, one meld per wild, in a suit or a rank (see the module's
    docstring). A card with no partner needs two wilds: with one wild it is deadwood.
    """
    alone = present & ~covered(table, state, present, pool_rank, pooled)
    if not alone:
        return 0
    if not wilds:
        return deadwood_of(table, state, alone)
    # (Counted whole, never stopping at the budget: a bound that cuts is kept in the memo,
    # and a stronger one spares the floor later visits under wider budgets.)
    lone = wilds <= lone_limit
    tally.count(table, state, present, alone, wilds + 1, pool_rank, pooled, lone)
    if tally.stranded + tally.total < budget:
        return tally.stranded + tally.total  # it cannot cut: spare the rest
    return tally.bound(wilds, lone)


def covered(table: MeldTable, state: i64, present: i64, pool_rank: i64, pooled: i64) -> i64:
    """The cards of ``present`` in a meld of naturals alone: three in a row of a suit (the
    table's windows), or three of a rank, the pool of that rank counted."""
    found: i64 = 0
    window: i64
    for window in table.windows:
        if present & window == window:
            found |= window
    facts = table.facts
    info: i64
    for info in table.sets:
        mask: i64 = info >> SET_CARDS_AT
        left: i64 = present & mask
        if not left & ~found:
            continue  # (none of its cards left to cover)
        fewer: i64 = left & (left - 1)
        if fewer & (fewer - 1):  # three suits of it left
            found |= mask
            continue
        held: i64 = 0
        if info & RANK_MASK == pool_rank:
            held = pooled
        while left:  # (one or two suits: their copies)
            bit: i64 = left & -left
            left ^= bit
            fact: i64 = facts[bit % BIT_SLOTS]
            held += (state >> ((fact >> FACT_BIT_AT) & BIT_MASK)) & fact & FACT_COUNT
        if held >= 3:
            found |= mask
    return found


def deadwood_of(table: MeldTable, state: i64, cards: i64) -> i64:
    """The penalty of every copy in ``state`` of the cards marked in ``cards``."""
    found: i64 = 0
    while cards:
        bit: i64 = cards & -cards
        cards ^= bit
        fact: i64 = table.facts[bit % BIT_SLOTS]
        at: i64 = (fact >> FACT_BIT_AT) & BIT_MASK
        found += ((state >> at) & fact & FACT_COUNT) * (fact >> FACT_POINTS_AT)
    return found


class Tally:
    """The floor's running tally of the cards a wild might rescue, kept by each search and reset
    at each count (the floor never recurses). Native attributes rather than a tuple or a list:
    nothing boxed.

    Cards with no partner (``stranded`` in all), per suit in packed 12-bit fields (see formats):
    the dearest, the dearest two one run can hold (``reach`` ranks apart at most), and the rank
    and penalty of the last one met. The other cards (``total`` in all) by group, a suit's or a
    rank's cards: their suits, each suit's cost, and the four dearest groups.
    """

    def __init__(self) -> None:
        self.stranded: i64 = 0
        self.total: i64 = 0
        self.lonely_tops: i64 = 0
        self.pair_tops: i64 = 0
        self.last_lonely: i64 = NO_LONE_RANKS
        self.last_points: i64 = 0
        self.suits: i64 = 0
        self.suit_cost = vec[i64]([0] * SUITS)
        self.first: i64 = 0
        self.second: i64 = 0
        self.third: i64 = 0
        self.fourth: i64 = 0

    def count(  # noqa: PLR0917 - called from the floor
        self,
        table: MeldTable,
        state: i64,
        present: i64,
        alone: i64,
        reach: i64,
        pool_rank: i64,
        pooled: i64,
        lone: bool,
    ) -> None:
        """Tallies the cards of ``alone`` (rank-major: a rank's cards come in a row)."""
        self.stranded = self.total = self.lonely_tops = self.pair_tops = self.suits = 0
        self.first = self.second = self.third = self.fourth = self.last_points = 0
        self.last_lonely = NO_LONE_RANKS
        suit: i64
        for suit in range(SUITS):
            self.suit_cost[suit] = 0
        facts, partner = table.facts, table.partner_at
        rank: i64 = -1
        rank_cost: i64 = 0
        while alone:
            bit: i64 = alone & -alone
            alone ^= bit
            slot: i64 = bit % BIT_SLOTS
            fact: i64 = facts[slot]
            n: i64 = (state >> ((fact >> FACT_BIT_AT) & BIT_MASK)) & fact & FACT_COUNT
            points: i64 = fact >> FACT_POINTS_AT
            its_rank: i64 = (fact >> FACT_RANK_AT) & RANK_MASK
            suit = (fact >> FACT_SUIT_AT) & SUIT_MASK
            if n == 1 and not present & partner[slot] and (not pooled or its_rank != pool_rank):
                self.stranded += points
                if not lone:
                    self.lonely(suit, its_rank, points, reach)
                continue
            cost: i64 = n * points
            self.total += cost
            self.suits |= POWER[suit]
            self.suit_cost[suit] += cost
            if its_rank != rank:
                self.keep(rank_cost)
                rank, rank_cost = its_rank, cost
            else:
                rank_cost += cost
        self.keep(rank_cost)  # the last rank's cards, and each suit's, are groups too
        for suit in range(SUITS):
            self.keep(self.suit_cost[suit])

    def lonely(self, suit: i64, rank: i64, points: i64, reach: i64) -> None:
        """Tallies a card with no partner in its suit's fields."""
        place: i64 = TALLY_BITS * suit
        self.lonely_tops = keep_field(self.lonely_tops, place, points)
        if 0 < rank - ((self.last_lonely >> RANK_BITS * suit) & RANK_MASK) <= reach:
            pair = points + ((self.last_points >> place) & TALLY)
            self.pair_tops = keep_field(self.pair_tops, place, pair)
        self.last_lonely = set_field(self.last_lonely, RANK_BITS * suit, RANK_MASK, rank)
        self.last_points = set_field(self.last_points, place, TALLY, points)

    def keep(self, cost: i64) -> None:
        """Keeps ``cost`` among the four dearest groups, if it is one."""
        if cost <= self.fourth:
            return
        if cost > self.third:
            self.fourth = self.third
            if cost > self.second:
                self.third = self.second
                if cost > self.first:
                    self.second, self.first = self.first, cost
                else:
                    self.second = cost
            else:
                self.third = cost
        else:
            self.fourth = cost

    def bound(self, wilds: i64, lone: bool) -> i64:
        """The floor of the tallied cards with ``wilds`` wilds.

        Melding a card with no partner takes two wilds: a set of it and the two, or a run of its
        suit, where the wilds fill the ranks to the next card, three ranks away or more (then a
        card with no partner too, or one of its suit's group). With two or three wilds, either
        no such card is melded, or one with (at most) its suit's group, or two in one run of
        their suit with its group, and a third wild may meld one more group: the least of the
        three is a lower bound."""
        groups = SUIT_COUNT[self.suits], self.first, self.second, self.third, self.fourth
        best = self.stranded + unrescued(groups, self.total, wilds)
        if lone or not self.lonely_tops:
            return best
        if wilds > 3:  # pragma: no cover - the floor_below of lone_limit 1 is 4
            return unrescued(groups, self.total, wilds)  # (as if every such card were melded)
        extra: i64 = 0
        if wilds == 3:
            extra = self.first
        rescued = rescued_by(self.lonely_tops, self.suit_cost, extra, self.total)
        if self.pair_tops:
            pairs = rescued_by(self.pair_tops, self.suit_cost, extra, self.total)
            rescued = larger(rescued, pairs)
        found = self.stranded + self.total - rescued
        return smaller(found, best)


def unrescued(groups: tuple[int, int, int, int, int], total: int, melds: int) -> int:
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


def keep_field(fields: i64, at: i64, value: i64) -> i64:
    """``fields`` with the 12-bit field at bit ``at`` raised to ``value``, if that is more."""
    if value > (fields >> at) & TALLY:
        return set_field(fields, at, TALLY, value)
    return fields


def set_field(fields: i64, at: i64, mask: i64, value: i64) -> i64:
    """``fields`` with the field ``mask`` at bit ``at`` set to ``value``. (Written without
    shifting the mask itself: compiled, a constant shifted by a native int is a 32-bit C int,
    and fields from bit 31 up came out wrong.)"""
    return fields - (((fields >> at) & mask) << at) + (value << at)


def rescued_by(tops: i64, suit_cost: vec[i64], extra: i64, total: i64) -> i64:
    """The most one meld of cards with no partner (``tops``: the dearest such cards it can hold,
    a 12-bit field a suit) rescues with its suit's group (``suit_cost``), and ``extra`` more
    from another meld, of the groups' ``total`` at most."""
    best: i64 = 0
    suit: i64
    for suit in range(SUITS):
        best = larger(best, with_group(tops >> TALLY_BITS * suit, suit_cost[suit], extra, total))
    return best


def with_group(tops: i64, group: i64, extra: i64, total: i64) -> i64:
    """What the suit whose tally lies in the low 12 bits of ``tops`` rescues (see rescued_by)."""
    top = tops & TALLY
    if top:
        return top + smaller(group + extra, total)
    return 0


def larger(a: i64, b: i64) -> i64:
    return a if a > b else b


def smaller(a: i64, b: i64) -> i64:
    return a if a < b else b

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

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, product
from typing import Final, Literal

from engine.cards import (
    ACE,
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
    return _Search(rules_value, wild_rank, wilds).best(naturals)


def analyse(
    cards: Iterable[Card | str], wild: Rank | str | None, rules: RulesSpec = "classic"
) -> Analysis:
    """The best arrangement of ``cards``, its deadwood, and every discard ranked by what it leaves.

    ``wild`` is a rank (int or code such as ``"8"``), or None when only jokers are wild.
    """
    hand, wild_rank, rules_value = _inputs(cards, wild, rules)
    naturals, wilds = _split(hand, wild_rank)
    search = _Search(rules_value, wild_rank, wilds)
    melds, deadwood = search.arrange(naturals)
    points = sum(rules_value.points(c, wild_rank) for c in deadwood)

    discards: list[Discard] = []
    if len(hand) > 1:
        searches = {tuple(wilds): search}
        for c in sorted(set(hand)):
            rest_naturals, rest_wilds = list(naturals), list(wilds)
            (rest_wilds if c in wilds else rest_naturals).remove(c)
            key = tuple(rest_wilds)
            if key not in searches:
                searches[key] = _Search(rules_value, wild_rank, rest_wilds)
            discards.append(Discard(c, searches[key].best(rest_naturals)))
        discards.sort(
            key=lambda d: (d.deadwood_points, -rules_value.points(d.card, wild_rank), d.card)
        )
    return Analysis(wild_rank, tuple(melds), tuple(deadwood), points, tuple(discards))


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
    for c in hand:
        if not rules_value.in_pack(c):
            raise HandError(f"{format_card(c)} is not in the {rules_value.preset} pack")
    wild_rank = parse_rank(wild) if isinstance(wild, str) else wild
    if wild_rank is not None and wild_rank not in rules_value.ranks:
        raise HandError(f"wild rank {wild_rank} is not a rank of the {rules_value.preset} pack")
    return hand, wild_rank, rules_value


def _split(hand: Sequence[Card], wild: Rank | None) -> tuple[list[Card], list[Card]]:
    wild_cards = {JOKER} if wild is None else {JOKER, *(card(wild, s) for s in range(5))}
    naturals = sorted(c for c in hand if c not in wild_cards)
    wilds = [c for c in hand if c in wild_cards]
    return naturals, wilds


# -- the search -----------------------------------------------------------------------------------

# A planned meld: its kind, its natural cards in play order, and the wilds it needs.
_Plan = tuple[MeldKind, tuple[Card, ...], int]
# A move from a state: (penalty paid now, naturals left, wilds used, extra room, meld or None).
_Move = tuple[int, tuple[Card, ...], int, int, _Plan | None]


class _Search:
    """An exact search for one rules value, wild rank and multiset of wild cards.

    Its memo is shared by every query on the same wilds, so ranking the discards of a hand
    revisits most states for free.
    """

    def __init__(self, rules: Rules, wild: Rank | None, wilds: Sequence[Card]) -> None:
        self.rules = rules
        self.wild = wild
        self.wild_count = len(wilds)
        self.wild_cards = sorted(wilds, key=lambda c: rules.points(c, wild))
        # cheapest[k]: the penalty of leaving the k cheapest wilds unmatched.
        self.cheapest = [0, *accumulate(rules.points(c, wild) for c in self.wild_cards)]
        self.points = [rules.points(c, wild) for c in range(JOKER)]
        self.limit = rules.max_wilds_per_meld
        self.max_run = rules.max_run_length
        self.ace_high = rules.aces == "high_or_low"
        self.all_wild = rules.all_wild_melds and (self.limit is None or self.limit >= 3)
        self.memo: dict[tuple[tuple[Card, ...], int, int], int] = {}

    # -- queries ----------------------------------------------------------------------------------

    def best(self, naturals: Sequence[Card]) -> int:
        live, dead_points = self._live(naturals)
        return dead_points + self._solve(tuple(live), self.wild_count, 0)

    def arrange(self, naturals: Sequence[Card]) -> tuple[list[Meld], list[Card]]:
        """The best arrangement: melds (wilds assigned) and deadwood cards."""
        live, _ = self._live(naturals)
        deadwood = _minus(naturals, live)
        plan: list[_Plan] = []
        state, wilds, spare = tuple(live), self.wild_count, 0
        while state:
            target = self._solve(state, wilds, spare)
            _, rest, used, room, meld = next(
                move
                for move in self._moves(state, wilds, spare)
                if move[0]
                + self._solve(move[1], wilds - move[2], min(spare + move[3], wilds - move[2]))
                == target
            )
            left = wilds - used
            if meld is None:
                deadwood.append(state[0])
            else:
                plan.append(meld)
            state, wilds, spare = rest, left, min(spare + room, left)
        melds, unplaced = self._place_wilds(plan, wilds)
        return melds, sorted(deadwood) + unplaced

    # -- the exact search ------------------------------------------------------------------------

    def _solve(self, state: tuple[Card, ...], wilds: int, spare: int) -> int:
        if not state:
            return self.cheapest[wilds - self._absorbable(wilds, spare)]
        key = (state, wilds, spare)
        found = self.memo.get(key)
        if found is not None:
            return found
        best = _UNLIMITED
        for now, rest, used, room, _ in self._moves(state, wilds, spare):
            if now >= best:
                continue
            left = wilds - used
            total = now + self._solve(rest, left, min(spare + room, left))
            if total < best:
                best = total
                if best == 0:
                    break
        self.memo[key] = best
        return best

    def _moves(self, state: tuple[Card, ...], wilds: int, spare: int) -> Iterator[_Move]:
        """Every way to place the lowest natural: deadwood, the head of a set, the head of a run."""
        c = state[0]
        rest = state[1:]
        limit = self.limit
        usable = wilds if limit is None else min(wilds, limit)
        yield self.points[c], rest, 0, 0, None

        rank, suit = c % 13, c // 13
        # Sets: c with any sub-multiset of the other naturals of its rank.
        mates = [x for x in rest if x % 13 == rank]
        groups = _runs_of_equal(mates)
        for counts in product(*(range(len(g) + 1) for g in groups)):
            chosen = tuple(x for g, k in zip(groups, counts, strict=True) for x in g[:k])
            size = 1 + len(chosen)
            need = max(0, 3 - size)
            if need > usable:
                continue
            room = _UNLIMITED if limit is None else limit - need
            yield 0, _minus_sorted(rest, chosen), need, room, ("set", (c, *chosen), need)

        # Runs: c with higher naturals of its suit, one card per rank, gaps paid in wilds.
        higher = sorted({x for x in rest if x // 13 == suit and x != c})
        yield from self._runs(c, rest, higher, usable, high=False)
        if self.ace_high and rank == ACE - 1:
            yield from self._runs(c, rest, higher, usable, high=True)

    def _runs(
        self, c: Card, rest: tuple[Card, ...], higher: list[Card], usable: int, *, high: bool
    ) -> Iterator[_Move]:
        """Runs headed by ``c``: upwards from it, or (an ace played high) downwards from 14."""
        base = c - c % 13  # the suit's first card
        position = 14 if high else c % 13 + 1
        ranks = [x - base + 1 for x in higher]
        if high:
            ranks.reverse()
        max_run = self.max_run
        limit = self.limit
        # Depth-first over increasing (or, played high, decreasing) ranks: chosen ranks and gaps.
        stack: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, ())]
        while stack:
            start, gaps, chosen = stack.pop()
            last = chosen[-1] if chosen else position
            for i in range(start, len(ranks)):
                r = ranks[i]
                gap = abs(r - last) - 1
                if gap < 0:
                    continue
                total_gaps = gaps + gap
                if total_gaps > usable:
                    break
                picked = (*chosen, r)
                stack.append((i + 1, total_gaps, picked))
                size = 1 + len(picked)
                need = max(total_gaps, 3 - size)
                length = size + need
                if need > usable or length > max_run:
                    continue
                room = max_run - length
                if limit is not None:
                    room = min(room, limit - need)
                cards = tuple(base + x - 1 for x in picked)
                run = (c, *cards) if not high else (*cards[::-1], c)
                yield 0, _minus_sorted(rest, tuple(sorted(cards))), need, room, ("run", run, need)

    def _absorbable(self, wilds: int, spare: int) -> int:
        """How many leftover wilds the melds' spare room and all-wild melds can hold."""
        if wilds == 0:
            return 0
        best = min(wilds, spare)
        if self.all_wild and wilds >= 3:
            limit = self.limit
            if limit is None:
                return wilds
            for in_own in range(3, wilds + 1):
                if _splits_into(in_own, 3, limit):
                    best = max(best, in_own + min(wilds - in_own, spare))
        return best

    def _live(self, naturals: Sequence[Card]) -> tuple[list[Card], int]:
        """Naturals that some meld could hold, and the penalty of the rest (always deadwood)."""
        usable = self.wild_count if self.limit is None else min(self.wild_count, self.limit)
        if usable >= 2:
            return list(naturals), 0
        present = set(naturals)
        rank_counts: dict[int, int] = {}
        for c in naturals:
            rank_counts[c % 13] = rank_counts.get(c % 13, 0) + 1
        live: list[Card] = []
        dead_points = 0
        for c in naturals:
            if rank_counts[c % 13] + usable >= 3 or self._has_run(c, present, usable):
                live.append(c)
            else:
                dead_points += self.points[c]
        return live, dead_points

    def _has_run(self, c: Card, present: set[Card], usable: int) -> bool:
        base, rank = c - c % 13, c % 13 + 1
        positions = [rank] if not (self.ace_high and rank == 1) else [1, 14]
        ranks = {x - base + 1 for x in present if x - base in range(13)}
        if self.ace_high and 1 in ranks:
            ranks.add(14)
        for pos in positions:
            for lo in range(pos - 2, pos + 1):
                if lo < self.rules.low_rank or lo + 2 > (14 if self.ace_high else 13):
                    continue
                if len({lo, lo + 1, lo + 2} - ranks) <= usable:
                    return True
        return False

    # -- laying out the wilds ---------------------------------------------------------------------

    def _room(self, kind: MeldKind, cards: tuple[Card, ...], need: int) -> int:
        room = _UNLIMITED if kind == "set" else self.max_run - len(cards) - need
        return room if self.limit is None else min(room, self.limit - need)

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
                if (self.limit is None or _splits_into(k, 3, self.limit))
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
            size = own if self.limit is None else min(own, self.limit)
            if own - size in (1, 2):
                size = own - 3
            mine, pool = pool[:size], pool[size:]
            melds.append(self._all_wild(mine))
            own -= size
        return melds, unplaced

    def _lay_out(self, kind: MeldKind, naturals: tuple[Card, ...], wilds: list[Card]) -> Meld:
        suits = self.rules.suits
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
        top = 14 if self.ace_high and 1 not in positions else 13
        bottom = 2 if 14 in positions else self.rules.low_rank
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


def _runs_of_equal(cards: list[Card]) -> list[list[Card]]:
    groups: list[list[Card]] = []
    for c in cards:
        if groups and groups[-1][0] == c:
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def _minus_sorted(cards: tuple[Card, ...], taken: tuple[Card, ...]) -> tuple[Card, ...]:
    """``cards`` without one copy of each of ``taken`` (both sorted)."""
    if not taken:
        return cards
    out = list(cards)
    for t in taken:
        out.remove(t)
    return tuple(out)


def _minus(cards: Sequence[Card], taken: Sequence[Card]) -> list[Card]:
    out = list(cards)
    for t in taken:
        out.remove(t)
    return out


def _splits_into(total: int, low: int, high: int) -> bool:
    """Whether ``total`` is a sum of parts each between ``low`` and ``high``."""
    parts = -(-total // high)
    return parts * low <= total

"""The two roles of a wild-rank card: under a limit on wilds (per meld, or no all-wild melds), a
card of the round's wild rank plays as a wild or as the natural card it is, which counts towards
neither limit. (With no limit a wild does all a natural can: every such card plays as a wild.)

A hand's least deadwood is then the least over its *splits*: how many of each suit's copies of
the wild rank play as naturals (copies of one card are alike). The splits share one layout: the
hand's table holds every wild-rank card as a natural, and a split is a state of that table (the
copies playing as wilds taken out) searched with its own wilds. Searches of the same wilds share
a memo, so the splits of one hand, and the splits of each hand left by a discard, revisit each
other's states instead of searching from scratch; across splits the search is one branch and
bound, each split searched under the least deadwood found so far.
"""

from __future__ import annotations

from itertools import product

from engine.analysis.candidates import Context
from engine.analysis.formats import SUITS, UNLIMITED
from engine.analysis.hand import split_wilds
from engine.analysis.search import Search, race
from engine.analysis.table import MeldTable
from engine.cards import JOKER, Card

# A split of a hand: the cards taken out of its table's naturals, and the wilds.
Split = tuple[tuple[Card, ...], tuple[Card, ...]]


def plays_either_way(context: Context, wilds: list[Card]) -> bool:
    """Whether a hand with these wilds has more than one split (a wild-rank card, and a limit)."""
    return context.either_role and any(c != JOKER for c in wilds)


class Roles:
    """The searches of one hand whose wild-rank cards may play either way, over every split of
    the hand and of each hand it leaves by discarding one card.

    One table per search order holds the hand's naturals and its wild-rank cards, for as many
    wilds as the hand holds (a search with fewer wilds never takes a run it cannot pay for). Each
    multiset of wilds gets a search in each order, and on large hands the two orders race on the
    first state asked of them (see search.race); the winner answers for those wilds from then on.
    """

    def __init__(self, context: Context, hand: list[Card]) -> None:
        naturals, wilds = split_wilds(hand, context.wild)
        self.context = context
        self.jokers = tuple(c for c in wilds if c == JOKER)
        self.either = tuple(c for c in wilds if c != JOKER)
        """The hand's wild-rank cards."""
        every = naturals + list(self.either)
        flip = context.mirror
        mirrored = MeldTable(context.flipped(), [flip[c] for c in every], len(wilds))
        self.tables = [mirrored]
        self.floored = mirrored.floored
        """Whether the searches cut with the floor (a large hand, searched in both orders)."""
        if mirrored.floored:
            self.tables.append(MeldTable(context, every, len(wilds)))
        self.searches: dict[tuple[Card, ...], list[Search]] = {}
        """Per multiset of wilds (sorted), its search in each order (the race's winner alone,
        once it has run)."""
        self.best_wilds: tuple[Card, ...] = ()

    def splits(self, gone: Card | None = None) -> list[Split]:
        """Every split of the hand less ``gone`` (one of its cards, or None), the most naturals
        first: the fewest wilds make the smallest search, whose least deadwood is then the
        budget of the others (on a 30-card hand of eight jokers and two wild-rank cards, a
        hundredth of the states of the split with every wild). The split with the whole hand's
        best wilds goes first of all, since it most often gives the tightest budget soonest."""
        jokers, either, taken = list(self.jokers), list(self.either), []
        if gone == JOKER:
            jokers.remove(gone)
        elif gone is not None:
            taken.append(gone)
            if gone in either:
                either.remove(gone)
        by_suit = [[c for c in either if c // 13 == s] for s in range(SUITS)]
        found: list[Split] = []
        for kept in product(*[range(len(copies) + 1) for copies in by_suit]):
            as_wilds = [c for copies, k in zip(by_suit, kept, strict=True) for c in copies[k:]]
            wilds = tuple(sorted(jokers + as_wilds))
            found.append(((*taken, *as_wilds), wilds))
        found.sort(key=lambda split: (split[1] != self.best_wilds, len(split[1])))
        return found

    def search(self, split: Split, budget: int) -> tuple[Search, int]:
        """The search that answers for a split's wilds, and the split's state in its table; on
        first use of those wilds on a large hand, the race between the orders, under
        ``budget``."""
        taken, wilds = split
        searches = self.searches.get(wilds)
        if searches is None:
            searches = self.searches[wilds] = [Search(t, list(wilds)) for t in self.tables]
            if len(searches) > 1:
                won = race([(s.table, s, self.state(s.table, taken)) for s in searches], budget)
                searches[:] = [searches[won]]
        search = searches[0]
        return search, self.state(search.table, taken)

    @staticmethod
    def state(table: MeldTable, taken: tuple[Card, ...]) -> int:
        """The whole hand's state in ``table`` less the cards ``taken``."""
        state = table.full
        for c in taken:
            state = table.less(state, c)
        return state

    def least(self, gone: Card | None = None, budget: int = UNLIMITED) -> int:
        """The least deadwood of the hand less ``gone`` over its splits, when below ``budget``
        (else at least ``budget``): each split under the least found so far."""
        best = budget
        for split in self.splits(gone):
            search, state = self.search(split, best)
            best = min(best, search.best(state, best))
        return best

    def best(self) -> tuple[Search, int, int]:
        """The whole hand's best split: its search, its state, and the least deadwood (the first
        split to reach it)."""
        first, *others = self.splits()
        search, state = self.search(first, UNLIMITED)
        best, chosen = search.best(state), (search, state)
        self.best_wilds = first[1]
        for split in others:
            search, state = self.search(split, best)
            found = search.best(state, best)
            if found < best:
                best, chosen, self.best_wilds = found, (search, state), split[1]
        return *chosen, best

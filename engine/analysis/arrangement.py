"""The arrangement: the best melds and deadwood of a searched hand, its wilds laid into the melds.

``arrange`` follows the search's own path: what it settled without a choice, the same way, and
at each choice the move its memo recorded with the exact result. The plan of melds (kind, natural
cards, wilds needed) then gets its wilds: each meld the ones it needs, the spare ones into the
melds' room and all-wild melds, the dearest placed and the cheapest left as deadwood. Laying a
wild into a set or a run (which card it stands for) is written once here; a wild-rank card given
its own place stands for itself, and so for None, like a natural. In the mirrored search every
natural and every card a wild stands for is mirrored back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mypy_extensions import i64

from engine.analysis.candidates import Context, set_sizes, splits_into
from engine.analysis.formats import (
    BIT_SLOTS,
    RUN_CARDS,
    RUN_NEED,
    RUN_NEED_AT,
    RUN_ROOM_AT,
    UNLIMITED,
    state_key,
)
from engine.analysis.results import Meld, MeldKind
from engine.analysis.search import Search
from engine.cards import JOKER, Card

AS_IS: Final = tuple(range(JOKER + 1))
"""Each card as itself: the place of a card of the hand as it is (see set_stands)."""
# A planned meld: its kind, its natural cards in play order, and the wilds it needs.
Plan = tuple[MeldKind, tuple[Card, ...], int]


def arrange(search: Search, state: i64) -> tuple[tuple[Meld, ...], tuple[Card, ...]]:
    """The best arrangement of the hand itself (in the mirrored search, turned back): melds
    (wilds assigned), and the deadwood (the naturals in order, then the wilds left
    unplaced). It searches ``state``, then follows the search's own path: what it settled
    without a choice, the same way, and at each choice the move it recorded."""
    table = search.table
    deadwood = table.cards(state & table.dead_mask)
    state &= ~table.dead_mask
    search.solve(state, search.wild_count, 0, 0, 0, UNLIMITED)
    plan: list[Plan] = []
    wilds, spare, pool_rank, pool = search.wild_count, 0, 0, list[Card]()
    head: i64  # (native ints, so that the table's vectors are read directly)
    move: i64
    while True:
        head = -1
        if state:
            head = table.digit_at_bit[(state & -state) % BIT_SLOTS]
        if pool and (head < 0 or table.rank_of[head] != pool_rank):
            move = pool_move(search, state, wilds, spare, pool_rank, len(pool))
            if move < 0:
                deadwood.extend(pool)
            else:
                sets, need, room = search.pools[len(pool)][move]
                plan += [("set", cards, max(0, 3 - len(cards))) for cards in dealt(pool, sets)]
                wilds -= need
                spare = min(spare + room, wilds)
            pool, pool_rank = [], 0
        if head < 0:
            break
        runs = table.runs_headed_by(head)
        move = -1
        if len(runs) and (runs[0] >> RUN_NEED_AT) & RUN_NEED <= wilds:
            move = recorded_move(search, state, wilds, spare, pool_rank, len(pool))
        if move < 0 and table.high_of[head] >= 0:
            state += table.unit[table.high_of[head]] - table.unit[head]
        elif move >= 0:
            run = runs[move]
            need = (run >> RUN_NEED_AT) & RUN_NEED
            # (its cards in the layout's order: play order, an ace played high last)
            plan.append(("run", tuple(table.cards(run & RUN_CARDS)), need))
            state -= run & RUN_CARDS
            wilds -= need
            spare = min(spare + (run >> RUN_ROOM_AT), wilds)
        else:
            pool.append(table.card_of[head])
            pool_rank = table.rank_of[head]
            state -= table.unit[head]
    melds, unplaced = place_wilds(search, plan, wilds)
    deadwood = sorted([search.context.face[c] for c in deadwood])
    return tuple(melds), (*deadwood, *unplaced)


def pool_move(  # noqa: PLR0917 - the search's state, field by field
    search: Search, state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64
) -> i64:
    """How the search settled a pool it left: -1 as deadwood, else the pool option it took."""
    if search.pool_need[pooled] > wilds:
        return -1
    if not search.limited and pooled >= 3:
        return 0
    return recorded_move(search, state, wilds, spare, pool_rank, pooled)


def recorded_move(  # noqa: PLR0917 - the search's state, field by field
    search: Search, state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64
) -> i64:
    """The move the search recorded at this state, with its exact result. (The key is computed
    here, not in a nested function: a closure would hold the caller's frame, and with it the
    search and its memo, in a reference cycle that only the GC frees.)"""
    counted = pooled if search.limited or pooled < 3 else 3
    key = state_key(state, wilds, spare, pool_rank, counted, search.table.width)
    return search.known.move_at(key)


def dealt(pool: list[Card], sets: int) -> list[tuple[Card, ...]]:
    """``pool``, a rank's cards, dealt into ``sets`` sets as evenly as possible."""
    found = []
    for size in set_sizes(len(pool), sets):
        found.append(tuple(pool[:size]))
        pool = pool[size:]
    return found


def meld_room(context: Context, kind: MeldKind, cards: tuple[Card, ...], need: int) -> int:
    return context.room(len(cards) + need, need, is_set=kind == "set")


def place_wilds(search: Search, plan: list[Plan], wilds: int) -> tuple[list[Meld], list[Card]]:
    """Give each meld the wilds it needs, then place the spare ones: in the melds' room, then
    in all-wild melds. The dearest wilds are placed; the cheapest are left unmatched."""
    context = search.context
    if not search.wild_count:
        return [
            as_hand_meld(context, kind, cards, (None,) * len(cards)) for kind, cards, _ in plan
        ], []
    limit = context.limit
    room = 0
    for kind, cards, need in plan:
        room += meld_room(context, kind, cards, need)
    spare = min(room, wilds)
    extra = context.absorbable(wilds, spare)
    unplaced = search.wild_cards[: wilds - extra]
    pool = search.wild_cards[wilds - extra :][::-1]  # the dearest first
    own = 0  # wilds in melds of their own
    if extra > spare:
        own = min(
            k
            for k in range(3, extra + 1)
            if (limit is None or splits_into(k, 3, limit)) and k + min(extra - k, spare) >= extra
        )
    room_left = extra - own
    melds = []
    for kind, cards, need in plan:
        take = min(room_left, meld_room(context, kind, cards, need))
        room_left -= take
        mine, pool = pool[: need + take], pool[need + take :]
        melds.append(lay_out(context, kind, cards, mine))
    while own:
        size = own if limit is None else min(own, limit)
        if own - size in (1, 2):
            size = own - 3
        mine, pool = pool[:size], pool[size:]
        melds.append(all_wild_meld(context, mine))
        own -= size
    return melds, unplaced


def lay_out(
    context: Context, kind: MeldKind, naturals: tuple[Card, ...], wilds: list[Card]
) -> Meld:
    """A meld of the search's naturals (in its own order: mirrored in the mirrored search) and
    the wilds given to it, each wild assigned the card it stands for. A wild of the wild rank
    stands for itself wherever the meld has room for that card."""
    if not wilds:  # the naturals come in play order (a run's ace played high last)
        return as_hand_meld(context, kind, naturals, (None,) * len(naturals))
    face = context.face
    if kind == "set":
        stands = set_stands(naturals[0] % 13, naturals, wilds, face, context.rules.suits)
        return as_hand_meld(context, "set", (*naturals, *wilds), (*[None] * len(naturals), *stands))
    # A run: naturals at their ranks (an ace played high at 14), wilds in the gaps first,
    # then extending it upwards, then downwards.
    base = naturals[0] - naturals[0] % 13
    positions = [c % 13 + 1 for c in naturals]
    if len(positions) > 1 and positions[-1] == 1:
        positions[-1] = 14
    top = 14 if context.ace_high and 1 not in positions else 13
    bottom = 2 if 14 in positions else context.rules.low_rank
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
    for w, slot in zip(wilds, run_slots(base, slots[: len(wilds)], wilds, face), strict=True):
        at[slot] = w
        stands_at[slot] = base + (slot - 1) % 13
    return as_hand_meld(context, "run", tuple(at[lo : hi + 1]), tuple(stands_at[lo : hi + 1]))


def as_hand_meld(
    context: Context, kind: MeldKind, cards: tuple[Card, ...], stands_for: tuple[Card | None, ...]
) -> Meld:
    """A meld of naturals (and wilds) laid out by the search, as a meld of the hand itself: in
    the mirrored search, each natural and what each wild stands for mirrored back, and a run
    from its low end again."""
    flip = context.face
    turned, stands = list(cards), list(stands_for)
    for k in range(len(turned)):
        stand = stands[k]
        if stand is None:
            turned[k] = flip[turned[k]]
        elif flip[stand] == turned[k]:
            stands[k] = None  # a wild-rank card standing for itself: no wild
        else:
            stands[k] = flip[stand]
    if kind == "run" and context.mirrored:
        turned.reverse()
        stands.reverse()
    return Meld(kind, tuple(turned), tuple(stands))


def all_wild_meld(context: Context, wilds: list[Card]) -> Meld:
    """Wilds alone, a set of the wild rank (of kings for jokers alone): a wild-rank card plays
    as itself, a joker stands for a card of the rank. (The hand's own cards: in the mirrored
    search too, nothing to mirror back.)"""
    rank = context.wild if context.wild is not None else 13
    suits = context.rules.suits
    stands = set_stands(rank - 1, (), wilds, AS_IS, suits)
    return Meld(
        "set",
        tuple(wilds),
        tuple(None if s == w else s for s, w in zip(stands, wilds, strict=True)),
    )


def set_stands(
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


def run_slots(base: int, slots: list[int], wilds: list[Card], face: Sequence[Card]) -> list[int]:
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

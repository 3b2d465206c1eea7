"""Every packed integer the analyser computes with, described once.

The search computes in native 64-bit ints (mypyc's ``i64``): a hand, a candidate run, a search
state and a memo entry are each one machine word, where arithmetic and hashing are cheapest and
nothing is boxed. Each format below is a row of fields, from the low bits up; the constants name
each field's shift (``..._AT``) and mask, and no algorithm writes a bare shift or mask.

==========================  =============================================  ======  =============
format                      field                                          bits    shift
==========================  =============================================  ======  =============
hand layout (a *state*)     per distinct natural card (its *digit*), its   1 to 5  its digit's
                            count; just wide enough for the count, so a            offset in the
                            hand takes at most 40 bits (see state_key)             table
candidate run               its cards: under a context its ranks (bit k,   40      0
                            k ranks above the head), in a hand's table a
                            vector of the hand layout (one of each card)
                            wilds it needs                                 6       RUN_NEED_AT
                            room it leaves for more wilds                  rest    RUN_ROOM_AT
run cache key               the head's digit in the shared order           7       0
                            the higher ranks of its suit the hand holds    14      RUNS_HIGHER_AT
                            wilds usable in one meld                       rest    RUNS_USABLE_AT
pool option                 wilds the sets need                            8       0
                            room they leave                                rest    POOL_ROOM_AT
search state key            the hand layout left                           width   0
                            cards in the pool being passed                 5       width
                            the pool's rank                                4       KEY_RANK_AT
                            spare room in the melds made                   5       KEY_SPARE_AT
                            wilds not yet placed                           5       KEY_WILDS_AT
memo entry, exact           0 (an exact result is even)                    1       0
                            the result                                     16      ENTRY_VALUE_AT
                            the move reaching it, plus one                 rest    ENTRY_MOVE_AT
memo entry, a lower bound   1 (odd: ENTRY_BOUND)                           1       0
                            the bound                                      rest    ENTRY_VALUE_AT
suit rank mask              per rank r of the suit (14: an ace played  1 each  r
                            high)
floor fact (per card)       its count's mask                               5       0
                            its rank                                       4       FACT_RANK_AT
                            its suit                                       3       FACT_SUIT_AT
                            its digit's lowest bit in the layout           6       FACT_BIT_AT
                            its penalty                                    rest    FACT_POINTS_AT
floor set                   the rank                                       4       0
                            its cards' presence bits                       rest    SET_CARDS_AT
floor tallies per suit      a penalty, or two (at most 2,000)              12      TALLY_BITS *
                                                                                   suit
floor last lone card        its rank, per suit (all ones: none yet)        4       RANK_BITS *
                                                                                   suit
ranked discard              the card                                       7       0
                            DISCARD_POINTS less its penalty (the dearest   10      DISCARD_
                            first among equals)                                    POINTS_AT
                            the deadwood left                              rest    DISCARD_
                                                                                   LEFT_AT
==========================  =============================================  ======  =============

The shared order of digits is rank-major (all aces, then all twos, ...; five suits each), so the
search meets every card of a rank in a row; a run is then a vector of the layout, it fits when
all its cards are present (MeldTable.present), and taking it is one subtraction. Where an ace may
play high it has a second digit after the kings (rank HIGH_ACE).
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine.cards import Card

MAX_HAND: Final = 30
UNLIMITED: Final = 1 << 30
"""More than any count or penalty the search meets: no limit."""

# -- the shared order of digits
SUITS: Final = 5
HIGH_ACE: Final = 13
"""The rank of an ace kept to play high, after the king."""
DIGITS: Final = (HIGH_ACE + 1) * SUITS
CARD_OF_DIGIT: Final = tuple((d % SUITS) * 13 + d // SUITS % 13 for d in range(DIGITS))
RANK_OF_DIGIT: Final = tuple(d // SUITS for d in range(DIGITS))
"""A digit's rank, 0 (ace) to 12 (king), and 13 (HIGH_ACE)."""


def digit_of(c: Card) -> int:
    return (c % 13) * SUITS + c // 13


# -- candidate runs
RUN_NEED_AT: Final = 40
RUN_NEED: Final = 63
RUN_ROOM_AT: Final = 46
RUN_CARDS: Final = (1 << RUN_NEED_AT) - 1
RUNS_HIGHER_AT: Final = 7
RUNS_USABLE_AT: Final = 21
POOL_ROOM_AT: Final = 8
POOL_NEED: Final = (1 << POOL_ROOM_AT) - 1

# -- search states and memo entries
KEY_RANK_AT: Final = 5
KEY_SPARE_AT: Final = 9
KEY_WILDS_AT: Final = 14
ENTRY_BOUND: Final = 1
"""The low bit of a memo entry: set for a lower bound, clear for an exact result."""
ENTRY_VALUE_AT: Final = 1
ENTRY_RESULT: Final = 0xFFFF
ENTRY_MOVE_AT: Final = 17


def state_key(  # noqa: PLR0917 - called from the hot loop
    state: i64, wilds: i64, spare: i64, pool_rank: i64, pooled: i64, width: i64
) -> i64:
    """A search state as one int (see the table). A hand holds at most 30 cards, so the wilds,
    the spare room and the pool each fit in five bits, the rank in four; the naturals come in the
    low bits, where they vary most. A key fits in 59 bits: a digit of a count n takes at most n
    bits, so the naturals take at most 30, and the aces' digits after the kings at most 10 more
    (at most 2 bits more than its copies for each of five suits' aces)."""
    fields = wilds << KEY_WILDS_AT | spare << KEY_SPARE_AT | pool_rank << KEY_RANK_AT | pooled
    return fields << width | state


def exact_entry(result: i64, move: i64) -> i64:
    """The memo's entry of an exact result reached by ``move``: a run's index, a pool option's,
    or -1 (the head to its pool, or an ace to its digit after the kings; the pool to deadwood).
    A search whose path no one will follow stores none: its entry is the result doubled."""
    return (move + 1) << ENTRY_MOVE_AT | result << ENTRY_VALUE_AT


def move_of(exact: i64) -> i64:
    return (exact >> ENTRY_MOVE_AT) - 1


# -- a suit's ranks as a mask: bit r for rank r (1, an ace, to 13), and 14 for an ace played high
ACE_LOW: Final = 1 << 1
ACE_HIGH_AT: Final = 14
ACE_TO_HIGH: Final = ACE_HIGH_AT - 1
"""The shift that moves an ace's bit from its low place to its high one."""

# -- the floor's tables
FACT_COUNT: Final = 31
FACT_RANK_AT: Final = 5
FACT_SUIT_AT: Final = 9
FACT_BIT_AT: Final = 12
FACT_POINTS_AT: Final = 18
RANK_BITS: Final = 4
RANK_MASK: Final = 15
SUIT_MASK: Final = 7
BIT_MASK: Final = 63
SET_CARDS_AT: Final = 4
TALLY_BITS: Final = 12
TALLY: Final = 4095
NO_LONE_RANKS: Final = 0xFFFFF
"""The floor's last lone card per suit before it has met any (all ones in each field)."""

# -- ranked discards
DISCARD_LEFT_AT: Final = 17
DISCARD_POINTS_AT: Final = 7
DISCARD_POINTS: Final = 1023
DISCARD_CARD: Final = 127

# -- bits and slots
BIT_SLOTS: Final = 67
"""Powers of two below 2**64 leave distinct remainders modulo 67: a table with this many slots,
indexed by ``bit % 67``, maps a single bit to what lies at its position, with no bit scan."""
POWER: Final = vec[i64]([1 << k for k in range(63)])
"""Powers of two as native ints (in compiled code, ``1 << n`` can take a 32-bit C shift)."""
SUIT_COUNT: Final = tuple(bin(suits).count("1") for suits in range(1 << SUITS))
"""How many suits a mask of suits holds."""

"""The words every feature's JSON shares: cards, ranks, seats, counts, names, melds and rules.

Cards and ranks stay text at this edge; ``service.vocabulary.to_engine`` turns them into the
engine's ints, and ``service.vocabulary.to_wire`` back.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from msgspec import UNSET, Meta, UnsetType

from engine import rule_checks, rules
from engine.analysis import MAX_HAND
from engine.names import MAX_COMBINING_MARKS, MAX_DISPLAY_NAME
from service.http.wire import Out, Strict
from service.vocabulary.names import NAME_PATTERN

# -- the rules' bounds ---------------------------------------------------------------------------

# The engine's own (``engine.rule_checks`` names each bound once);
# tests/service/vocabulary/test_rule_bounds.py checks that the engine accepts each and refuses one
# past it.
MIN_PLAYERS: Final = rule_checks.MIN_SEATS
MAX_PLAYERS: Final = rule_checks.MAX_SEATS
MAX_DECKS: Final = rule_checks.MAX_DECKS
MAX_JOKERS: Final = rule_checks.MAX_JOKERS
MAX_POINTS: Final = rule_checks.MAX_POINTS
MAX_WILDS_PER_MELD: Final = rule_checks.MAX_WILDS_PER_MELD
MAX_ROUNDS: Final = rules.MAX_ROUNDS
"""The most rounds any schedule deals."""
MAX_GAME_HAND: Final = rules.MAX_DEALT + 1
"""The most cards a seat holds in a game: the largest hand dealt, and the card it draws."""
FACE_CARDS: Final = rule_checks.FACE_CARDS
MAX_VERSION: Final = 2**31 - 1
"""The service's bound on a game's version (a stream's ``Last-Event-ID``, a log's ``since``)."""
SEED_LIMIT: Final = 2**63
"""Seeds are below 2**63: the wire's, and the mixed seeds the tables' records hold (63 bits,
still past any search)."""

# -- reusable constraints -------------------------------------------------------------------------

# A pattern ends with ``$(?!\n)``, not a bare ``$``: msgspec matches a pattern as Python's
# ``re.search`` does, where ``$`` also matches before a final newline ("4H\n" would pass). The
# lookahead means the same in the JSON Schema (ECMA) dialect of the OpenAPI document.

CardCode = Annotated[
    str,
    Meta(
        pattern=r"^(?:[Jj][Kk]|(?:10|[2-9AaTtJjQqKk])[CDHSXcdhsx♣♦♥♠★♧♢♡♤])$(?!\n)",
        description=(
            "A card: rank A 2-9 T (or 10) J Q K, then suit C D H S (X = five-crowns stars); JK is "
            "a joker. Case-insensitive; suit symbols ♣ ♦ ♥ ♠ ★ are accepted."
        ),
        examples=["TH", "8S", "JK"],
    ),
]
CanonicalCard = Annotated[
    str, Meta(pattern=r"^(?:JK|[A2-9TJQK][CDHSX])$(?!\n)", description="A card in canonical form.")
]
RankCode = Annotated[
    str,
    Meta(
        pattern=r"^(?:10|[2-9AaTtJjQqKk])$(?!\n)",
        description="A rank: A, 2-9, T (or 10), J, Q or K.",
        examples=["8", "T", "K"],
    ),
]
WildRank = Annotated[
    RankCode | None,
    Meta(
        description=(
            "The wild rank; when omitted, the wild rank of `round` under the rules' schedule."
        )
    ),
]
"""A request's wild rank, or its round's (``round``) when it is left out."""
CanonicalRank = Annotated[
    str, Meta(pattern=r"^[A2-9TJQK]$(?!\n)", description="A rank, canonical.")
]
Hand = Annotated[
    list[CardCode],
    Meta(
        min_length=1,
        max_length=MAX_HAND,
        description=f"1 to {MAX_HAND} cards; identical cards may repeat.",
    ),
]
"""As many cards as the analyser takes (the engine's ``MAX_HAND``)."""
RoundNumber = Annotated[int, Meta(ge=1, le=MAX_ROUNDS, description="A round, 1 first.")]
Seat = Annotated[int, Meta(ge=0, le=MAX_PLAYERS - 1, description="A seat number, 0 first.")]
Count = Annotated[int, Meta(ge=0)]
Points = Annotated[int, Meta(ge=0, le=MAX_POINTS)]
Version = Annotated[int, Meta(ge=0, le=MAX_VERSION)]
PlayerName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_DISPLAY_NAME,
        pattern=NAME_PATTERN,
        description=(
            "A display name: no control, format (zero-width, bidirectional) or separator "
            f"characters, at most {MAX_COMBINING_MARKS} combining marks on a letter; kept in "
            "Unicode NFC."
        ),
    ),
]
Seed = Annotated[
    int,
    Meta(
        ge=0,
        le=SEED_LIMIT - 1,
        description=(
            "Makes the shuffles reproducible, for tests and replays: every view then says "
            "`seeded: true`. A seed gives the deal away (a small one is found from one seat's "
            "view in seconds): omit it in real games."
        ),
    ),
]
GameId = Annotated[str, Meta(description="The game's id.", examples=["3q0cYFz2R1mA5lVt"])]
PresetName = rules.PresetName


# -- rules ----------------------------------------------------------------------------------------


class RulesOverrides(Strict, frozen=True):
    """A preset with some options changed. Omitted fields keep the preset's value; see RULES.md.
    The rules a response shows (a view's ``rules``, ``GET /v1/rules``) are this schema with
    every field present, and are accepted back as they are."""

    preset: PresetName = "classic"
    suits: rule_checks.Suits | UnsetType = UNSET
    low_rank: rule_checks.LowRank | UnsetType = UNSET
    decks: Annotated[int, Meta(ge=1, le=MAX_DECKS)] | UnsetType | None = UNSET
    jokers: Annotated[int, Meta(ge=0, le=MAX_JOKERS)] | UnsetType = UNSET
    min_players: Annotated[int, Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)] | UnsetType = UNSET
    max_players: Annotated[int, Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)] | UnsetType = UNSET
    aces: rule_checks.AceMode | UnsetType = UNSET
    all_wild_melds: bool | UnsetType = UNSET
    max_wilds_per_meld: Annotated[int, Meta(ge=1, le=MAX_WILDS_PER_MELD)] | UnsetType | None = UNSET
    ace_points: Points | UnsetType = UNSET
    face_points: (
        Annotated[list[Points], Meta(min_length=FACE_CARDS, max_length=FACE_CARDS)] | UnsetType
    ) = UNSET
    joker_points: Points | UnsetType = UNSET
    wild_points: Points | UnsetType | None = UNSET
    going_out_bonus: rule_checks.GoingOutBonus | UnsetType = UNSET
    failed_go_out: rule_checks.FailedGoOut | UnsetType = UNSET
    failed_go_out_penalty: Points | UnsetType = UNSET
    first_lap_go_out: bool | UnsetType = UNSET
    doubled_late_rounds: bool | UnsetType = UNSET
    schedule: rule_checks.Schedule | UnsetType = UNSET
    double_naughts: bool | UnsetType = UNSET
    discard_piles: rule_checks.DiscardPiles | UnsetType = UNSET
    redemption: bool | UnsetType = UNSET
    stock_exhausted: rule_checks.StockExhausted | UnsetType = UNSET
    tie: rule_checks.TieRule | UnsetType = UNSET
    discard_drawn_upcard: bool | UnsetType = UNSET
    turns: rule_checks.Turns | UnsetType = UNSET
    joker_discards: rule_checks.JokerDiscards | UnsetType = UNSET


RulesSpec = Annotated[
    PresetName | RulesOverrides,
    Meta(description='A preset name, or {"preset": name, ...overrides}.'),
]


RulesOut = RulesOverrides
"""A game's complete rules on the way out: the overrides' struct with every field set. One
schema both ways, so a view's ``rules`` (or a preset of ``GET /v1/rules``) is accepted as it is
by ``/v1/analyse`` and ``/v1/advise``, in a typed client too."""


class PresetsOut(Out, frozen=True):
    presets: list[RulesOut]


class MeldOut(Out, frozen=True):
    kind: Literal["set", "run"]
    cards: Annotated[
        list[CanonicalCard], Meta(description="In play order: a run from its low end.")
    ]
    stands_for: Annotated[
        list[CanonicalCard | None],
        Meta(
            description=(
                "Parallel to `cards`: the card each wild plays as, null for a natural card."
            )
        ),
    ]

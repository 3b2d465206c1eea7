"""The rules of a game: every option of docs/rules.md in a frozen value, the three presets, and the
round schedule.

``Rules`` is the only place an option is named. Build one from a preset and overrides with
``Rules.from_spec("online")`` or ``Rules.from_spec({"preset": "classic", "aces": "high_or_low"})``;
``Rules.to_spec()`` gives back the same mapping with every field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias, get_args

from engine.cards import ACE, JOKER, KING, Card, Rank, card, rank_of
from engine.errors import RulesError
from engine.rule_checks import (
    WILDS_IN_AN_ALL_WILD_MELD,
    AceMode,
    DiscardPiles,
    FailedGoOut,
    GoingOutBonus,
    JokerDiscards,
    LowRank,
    Schedule,
    StockExhausted,
    Suits,
    TieRule,
    Turns,
    check,
    check_type,
)

PresetName = Literal["classic", "online", "five-crowns"]
"""The presets by name, as a type (``PRESETS`` holds them; a test keeps the two equal)."""

PRESET_NAMES: Final[tuple[str, ...]] = get_args(PresetName)

RulesSpec: TypeAlias = "Rules | str | Mapping[str, Any] | None"
"""What callers pass as rules: a ``Rules``, a preset name, or ``{"preset": ..., **overrides}``."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of RULES.md. Field names are the wire names of the rules object."""

    preset: str = "classic"
    # The pack.
    suits: int = 4
    """4, or 5 with the five-crowns stars suit."""
    low_rank: Rank = ACE
    """The lowest rank in the pack: 1 (aces), or 3 for five-crowns (no aces, no twos)."""
    decks: int | None = None
    """Decks in the pack, or None for one deck per two players (at least one)."""
    jokers: int = 0
    """Jokers in the whole pack; they are always wild."""
    min_players: int = 2
    max_players: int = 8
    # Melds.
    aces: AceMode = "low"
    all_wild_melds: bool = True
    max_wilds_per_meld: int | None = None
    # Penalty points.
    ace_points: int = 1
    face_points: tuple[int, int, int] = (10, 10, 10)
    joker_points: int = 20
    wild_points: int | None = None
    """Penalty of an unmatched card of the wild rank, or None for its ordinary value."""
    # Game options.
    going_out_bonus: GoingOutBonus = 0
    failed_go_out: FailedGoOut = "reject"
    failed_go_out_penalty: int = 20
    first_lap_go_out: bool = True
    """False: nobody may go out before every seat has had one full turn this round."""
    doubled_late_rounds: bool = False
    schedule: Schedule = "up"
    double_naughts: bool = False
    discard_piles: DiscardPiles = "shared"
    redemption: bool = False
    stock_exhausted: StockExhausted = "reshuffle"
    tie: TieRule = "shared"
    discard_drawn_upcard: bool = True
    turns: Turns = "in_turn"
    """``speed``: play goes in calls, every seat choosing at once (engine.game.speed)."""
    joker_discards: JokerDiscards = "own_pile"
    """``any_pile``: with a pile per seat, a joker may be discarded onto another seat's pile."""
    # Derived; not part of the wire form.
    rank_points: tuple[int, ...] = field(init=False, repr=False, compare=False)
    pack_cards: frozenset[Card] = field(init=False, repr=False, compare=False)
    """Every distinct card the pack holds."""
    card_points: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The penalty of each card int when no rank is wild."""

    def __post_init__(self) -> None:
        check(self)
        j, q, k = self.face_points
        points = (0, self.ace_points, *range(2, 11), j, q, k)
        object.__setattr__(self, "rank_points", points)
        by_card = (*(points[c % 13 + 1] for c in range(JOKER)), self.joker_points)
        object.__setattr__(self, "card_points", by_card)
        distinct = {card(r, s) for s in range(self.suits) for r in self.ranks}
        if self.jokers:
            distinct.add(JOKER)
        object.__setattr__(self, "pack_cards", frozenset(distinct))

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def preset_named(cls, name: str) -> Rules:
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(
                f"unknown preset {name!r}: expected one of {', '.join(PRESET_NAMES)}",
                field="preset",
            ) from None

    @classmethod
    def from_spec(cls, spec: RulesSpec) -> Rules:
        """A preset name, ``{"preset": name, **overrides}``, a ``Rules``, or None (classic)."""
        if spec is None:
            return PRESETS["classic"]
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            return cls.preset_named(spec)
        overrides = dict(spec)
        base = cls.preset_named(overrides.pop("preset", "classic"))
        unknown = sorted(set(overrides) - set(WIRE_FIELDS))
        if unknown:
            raise RulesError(f"unknown rules field {unknown[0]!r}", field=unknown[0])
        if "face_points" in overrides and isinstance(overrides["face_points"], list):
            overrides["face_points"] = tuple(overrides["face_points"])
        # A limit below three wilds rules out all-wild melds; say so only if asked for both.
        limit = overrides.get("max_wilds_per_meld", base.max_wilds_per_meld)
        if (
            limit is not None
            and limit < WILDS_IN_AN_ALL_WILD_MELD
            and "all_wild_melds" not in overrides
        ):
            overrides["all_wild_melds"] = False
        # Speed implies a pile per seat; say so only if asked for both.
        if overrides.get("turns") == "speed" and "discard_piles" not in overrides:
            overrides["discard_piles"] = "per_player"
        for name, value in overrides.items():
            check_type(name, value, _TYPE_CHOICES.get(name))
        return dataclasses.replace(base, **overrides)

    def to_spec(self) -> dict[str, Any]:
        """Every wire field, JSON-ready."""
        out = {name: getattr(self, name) for name in WIRE_FIELDS}
        out["preset"] = self.preset
        out["face_points"] = list(self.face_points)
        return out

    # -- the pack -----------------------------------------------------------------------------

    @property
    def ranks(self) -> range:
        return range(self.low_rank, KING + 1)

    def decks_for(self, players: int) -> int:
        return self.decks if self.decks is not None else max(1, (players + 1) // 2)

    def pack(self, players: int) -> list[Card]:
        """The whole pack for ``players`` seats, in a fixed order (shuffle it to deal)."""
        self.check_players(players)
        one_deck = [card(r, s) for s in range(self.suits) for r in self.ranks]
        return one_deck * self.decks_for(players) + [JOKER] * self.jokers

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise RulesError(
                f"{players} players: the {self.preset} rules take "
                f"{self.min_players} to {self.max_players}",
                field="players",
            )
        decks = self.decks_for(players)
        limit = self.seat_limit(decks)
        if players > limit:
            kind = "a speed game" if self.turns == "speed" else "a game"
            raise RulesError(
                f"a pack of {self.pack_size(decks)} cards cannot deal {max(self.hand_sizes)} "
                f"cards to {players} players in {kind} (at most {limit}): add decks",
                field="decks",
            )

    def pack_size(self, decks: int) -> int:
        return decks * self.suits * len(self.ranks) + self.jokers

    def seat_limit(self, decks: int) -> int:
        """The most players a pack of ``decks`` decks deals the largest hand of these rules to:
        in turns, each seat's hand plus the stock's first card and the upcard; in speed, each
        seat's hand, its own upcard and a stock card for every seat's first draw."""
        if self.turns == "speed":
            return self.pack_size(decks) // (max(self.hand_sizes) + 2)
        return (self.pack_size(decks) - 2) // max(self.hand_sizes)

    @property
    def most_seats(self) -> int:
        """The most players these rules can seat at all: ``max_players``, or fewer where the
        pack cannot deal to that many (with ``decks`` null the pack grows with the table)."""
        return max(
            (p for p in range(2, self.max_players + 1) if p <= self.seat_limit(self.decks_for(p))),
            default=1,
        )

    # -- points -------------------------------------------------------------------------------

    def points(self, c: Card, wild: Rank | None) -> int:
        """Penalty of ``c`` left unmatched in a round whose wild rank is ``wild``."""
        if c == JOKER:
            return self.joker_points
        rank = rank_of(c)
        if rank == wild and self.wild_points is not None:
            return self.wild_points
        return self.rank_points[rank]

    def rank_value(self, rank: Rank) -> int:
        """The ordinary penalty of a rank (used by the minus-the-wild-rank going-out bonus)."""
        return self.rank_points[rank]

    # -- the schedule -------------------------------------------------------------------------

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards dealt in each round, round 1 first."""
        return HAND_SIZES[self.schedule]

    @property
    def rounds(self) -> int:
        return len(self.hand_sizes)

    def hand_size(self, round_number: int) -> int:
        self._check_round(round_number)
        return self.hand_sizes[round_number - 1]

    def wild_rank(self, round_number: int) -> Rank:
        """The wild rank of a round: the rank equal to the cards dealt (14 → aces, 15 → twos)."""
        size = self.hand_size(round_number)
        return {14: ACE, 15: 2}.get(size, size)

    def _check_round(self, round_number: int) -> None:
        if not 1 <= round_number <= self.rounds:
            raise RulesError(
                f"round {round_number} does not exist: the {self.schedule!r} schedule has "
                f"rounds 1 to {self.rounds}",
                field="round",
            )

    @property
    def max_run_length(self) -> int:
        """The longest a run can be: 13 (an ace plays low or high, not both), 11 in five-crowns."""
        return KING - self.low_rank + 1


_UP: Final = tuple(range(3, 14))
HAND_SIZES: Final[dict[str, tuple[int, ...]]] = {
    "up": _UP,
    "down": _UP[::-1],
    "up_down": _UP + _UP[::-1],
    "extended": (*_UP, 14, 15),
}
"""The cards dealt in each round of each schedule, round 1 first."""
MAX_ROUNDS: Final = max(len(sizes) for sizes in HAND_SIZES.values())
"""The most rounds any schedule deals (22, ``up_down``)."""
MAX_DEALT: Final = max(max(sizes) for sizes in HAND_SIZES.values())
"""The most cards any round deals a seat (15, ``extended``); a hand holds one more after its
draw."""

CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "suits": get_args(Suits),
    "low_rank": get_args(LowRank),
    "aces": get_args(AceMode),
    "schedule": get_args(Schedule),
    "failed_go_out": get_args(FailedGoOut),
    "discard_piles": get_args(DiscardPiles),
    "stock_exhausted": get_args(StockExhausted),
    "tie": get_args(TieRule),
    "turns": get_args(Turns),
    "joker_discards": get_args(JokerDiscards),
    "going_out_bonus": get_args(GoingOutBonus),
}
"""The values of each option that takes one of a few: the wire's types are these very
``Literal``s (``service.vocabulary.wire``)."""

_TYPE_CHOICES: Final = {
    name: values for name, values in CHOICES.items() if name not in ("suits", "low_rank")
}
"""The choices ``check_type`` names in its message; ``suits`` and ``low_rank`` are checked as
integers there, and their values by ``engine.rule_checks`` (which says what each means)."""

WIRE_FIELDS: Final[tuple[str, ...]] = tuple(
    f.name for f in dataclasses.fields(Rules) if f.init and f.name != "preset"
)


PRESETS: Final[dict[str, Rules]] = {
    "classic": Rules(),
    "online": Rules(
        preset="online",
        decks=2,
        jokers=4,
        max_players=5,
        aces="high_or_low",
        ace_points=15,
        face_points=(11, 12, 13),
        joker_points=50,
        wild_points=50,
    ),
    "five-crowns": Rules(
        preset="five-crowns",
        suits=5,
        low_rank=3,
        decks=2,
        jokers=6,
        max_players=7,
        face_points=(11, 12, 13),
        joker_points=50,
        wild_points=20,
    ),
}

"""The checks of a rules value: each option's type, its bounds, and the options that cannot go
together. ``Rules`` runs them when it is built; a broken rule raises ``RulesError`` naming the
option.

The bounds are named here once (``MAX_DECKS``, ``MAX_POINTS``, ...), and so are the values of
each option that takes one of a few (``Suits``, ``AceMode``, ...; ``engine.rules`` gives them
to ``Rules``): the service's wire types, its constraints and the OpenAPI document take them
from this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Literal, get_args

from engine.cards import ACE
from engine.errors import RulesError

if TYPE_CHECKING:
    from engine.rules import Rules

# -- the values of each option that takes one of a few ----------------------------------------

Suits = Literal[4, 5]
"""Four suits, or five with the five-crowns stars."""
LowRank = Literal[1, 3]
"""The lowest rank in the pack: 1 (aces), or 3 (five-crowns: no aces, no twos)."""
AceMode = Literal["low", "high_or_low"]
Schedule = Literal["up", "down", "up_down", "extended"]
FailedGoOut = Literal["reject", "penalty"]
DiscardPiles = Literal["shared", "per_player"]
StockExhausted = Literal["reshuffle", "end_round"]
TieRule = Literal["shared", "tiebreak"]
Turns = Literal["in_turn", "speed"]
JokerDiscards = Literal["own_pile", "any_pile"]
GoingOutBonus = Literal[0, -5, -10, "minus_wild"]

# -- the bounds ---------------------------------------------------------------------------------

MIN_SEATS: Final = 2
MAX_SEATS: Final = 16
"""The most seats any rules take (``max_players``); a pack may allow fewer (``seat_limit``)."""
MAX_DECKS: Final = 16
MAX_JOKERS: Final = 64
MAX_POINTS: Final = 1000
"""The most penalty points any one card may carry."""
MAX_WILDS_PER_MELD: Final = 64
"""The largest limit of wilds a meld may hold (``max_wilds_per_meld``; null for no limit)."""
WILDS_IN_AN_ALL_WILD_MELD: Final = 3
FACE_CARDS: Final = 3
"""face_points gives the points of J, Q and K."""

_BOOL_FIELDS: Final = (
    "all_wild_melds",
    "first_lap_go_out",
    "doubled_late_rounds",
    "double_naughts",
    "redemption",
    "discard_drawn_upcard",
)
_INT_FIELDS: Final = (
    "suits",
    "low_rank",
    "jokers",
    "min_players",
    "max_players",
    "ace_points",
    "joker_points",
    "failed_go_out_penalty",
)
_OPTIONAL_INT_FIELDS: Final = ("decks", "max_wilds_per_meld", "wild_points")
_POINT_FIELDS: Final = ("ace_points", "joker_points", "failed_go_out_penalty")


def is_int(value: object) -> bool:
    """An int that is not a bool (JSON's true is no number of decks)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_type(name: str, value: object, choices: tuple[object, ...] | None) -> None:
    """``value`` has the type of option ``name``; ``choices`` lists the values of an option
    that takes one of a few (a ``Literal``), None for the others."""
    if choices is not None:
        if not any(value == c and type(value) is type(c) for c in choices):
            shown = ", ".join(repr(c) for c in choices)
            raise RulesError(f"{name} must be one of {shown}, not {value!r}", field=name)
        return
    if name in _BOOL_FIELDS:
        ok, expected = isinstance(value, bool), "true or false"
    elif name in _INT_FIELDS:
        ok, expected = is_int(value), "an integer"
    elif name in _OPTIONAL_INT_FIELDS:
        ok, expected = value is None or is_int(value), "an integer or null"
    elif name == "face_points":
        ok = isinstance(value, tuple) and len(value) == FACE_CARDS and all(is_int(v) for v in value)
        expected = "three integers [J, Q, K]"
    else:  # pragma: no cover - every wire field is listed above
        raise AssertionError(name)
    if not ok:
        raise RulesError(f"{name} must be {expected}, not {value!r}", field=name)


def check(rules: Rules) -> None:
    """Every check of a built rules value, in the order the options are documented."""
    for each in _CHECKS:
        each(rules)


def _check_pack(rules: Rules) -> None:
    if rules.suits not in get_args(Suits):
        raise RulesError(f"suits must be 4 or 5 (with stars), not {rules.suits}", field="suits")
    if rules.low_rank not in get_args(LowRank):
        raise RulesError(
            f"low_rank must be 1 (aces) or 3 (no aces or twos), not {rules.low_rank}",
            field="low_rank",
        )
    if rules.decks is not None and not 1 <= rules.decks <= MAX_DECKS:
        raise RulesError(
            f"decks must be 1 to {MAX_DECKS} or null, not {rules.decks}", field="decks"
        )
    if not 0 <= rules.jokers <= MAX_JOKERS:
        raise RulesError(f"jokers must be 0 to {MAX_JOKERS}, not {rules.jokers}", field="jokers")
    if not MIN_SEATS <= rules.min_players <= rules.max_players <= MAX_SEATS:
        raise RulesError(
            f"players must satisfy {MIN_SEATS} <= min_players ({rules.min_players}) <= "
            f"max_players ({rules.max_players}) <= {MAX_SEATS}",
            field="max_players",
        )


def _check_points(rules: Rules) -> None:
    for name in _POINT_FIELDS:
        if not 0 <= getattr(rules, name) <= MAX_POINTS:
            raise RulesError(
                f"{name} must be 0 to {MAX_POINTS}, not {getattr(rules, name)}", field=name
            )
    if any(not 0 <= p <= MAX_POINTS for p in rules.face_points):
        raise RulesError(
            f"face_points must be 0 to {MAX_POINTS} each, not {list(rules.face_points)}",
            field="face_points",
        )
    if rules.wild_points is not None and not 0 <= rules.wild_points <= MAX_POINTS:
        raise RulesError(
            f"wild_points must be 0 to {MAX_POINTS} or null, not {rules.wild_points}",
            field="wild_points",
        )
    if rules.going_out_bonus not in get_args(GoingOutBonus):
        raise RulesError(
            f"going_out_bonus must be 0, -5, -10 or 'minus_wild', not {rules.going_out_bonus!r}",
            field="going_out_bonus",
        )


def _check_melds(rules: Rules) -> None:
    most = rules.max_wilds_per_meld
    if most is not None and not 1 <= most <= MAX_WILDS_PER_MELD:
        raise RulesError(
            f"max_wilds_per_meld must be 1 to {MAX_WILDS_PER_MELD} or null, not {most}",
            field="max_wilds_per_meld",
        )
    if rules.all_wild_melds and most is not None and most < WILDS_IN_AN_ALL_WILD_MELD:
        raise RulesError(
            f"all_wild_melds cannot go together with max_wilds_per_meld {most}: an all-wild "
            f"meld needs {WILDS_IN_AN_ALL_WILD_MELD} wilds",
            field="all_wild_melds",
        )
    if rules.low_rank != ACE and rules.aces != "low":
        raise RulesError("aces 'high_or_low' needs a pack with aces (low_rank 1)", field="aces")
    if rules.low_rank != ACE and rules.schedule == "extended":
        raise RulesError(
            "the 'extended' schedule makes aces and twos wild: it needs a pack with them",
            field="schedule",
        )


def _check_piles(rules: Rules) -> None:
    """Speed and jokers discarded anywhere need a pile per seat; speed has no turns to lay
    cards off in."""
    if rules.turns not in get_args(Turns):
        raise RulesError(f"turns must be 'in_turn' or 'speed', not {rules.turns!r}", field="turns")
    if rules.turns == "speed" and rules.discard_piles != "per_player":
        raise RulesError(
            "turns 'speed' gives every seat its own discard pile: discard_piles must be "
            f"'per_player', not {rules.discard_piles!r}",
            field="discard_piles",
        )
    if rules.turns == "speed" and rules.redemption:
        raise RulesError(
            "redemption lays cards off turn by turn: a speed game has no turns to do it in",
            field="redemption",
        )
    if rules.joker_discards == "any_pile" and rules.discard_piles != "per_player":
        raise RulesError(
            "joker_discards 'any_pile' needs a pile per seat: discard_piles must be "
            f"'per_player', not {rules.discard_piles!r}",
            field="joker_discards",
        )


_CHECKS: Final[tuple[Callable[[Rules], None], ...]] = (
    _check_pack,
    _check_melds,
    _check_piles,
    _check_points,
)

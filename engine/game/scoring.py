"""A seat's score for a round, from its deadwood: the going-out bonus, doubled late rounds and
the failed go-out penalty. The game's round end and the score sheets of games played with real
cards both score through here, so the two can never disagree."""

from __future__ import annotations

from engine.cards import JACK, KING, Rank
from engine.rules import Rules


def seat_score(rules: Rules, wild: Rank, deadwood: int, *, went_out: bool, penalty: int = 0) -> int:
    """A seat's score for a round: its deadwood points, or the going-out bonus for the seat that
    went out, doubled in a doubled late round, then any failed go-out penalty on top."""
    points = going_out_bonus(rules, wild) if went_out else deadwood
    if doubled_round(rules, wild):
        points *= 2
    return points + penalty


def doubled_round(rules: Rules, wild: Rank) -> bool:
    """Whether ``doubled_late_rounds`` doubles a round: the jacks, queens and kings rounds."""
    return rules.doubled_late_rounds and JACK <= wild <= KING


def going_out_bonus(rules: Rules, wild: Rank) -> int:
    """The score of the seat that went out (0, -5, -10, or minus the wild rank's value)."""
    bonus = rules.going_out_bonus
    return -rules.rank_value(wild) if bonus == "minus_wild" else bonus

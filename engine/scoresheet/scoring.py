"""Scoring one round of a score sheet: each seat's entry checked against the round's shape and
the pack, its cards laid out in melds, and its points by the game's own scoring."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from engine.analysis import Meld
from engine.cards import JOKER, Card, Rank, format_card
from engine.errors import (
    CardNotInPack,
    FailedGoOutNotScored,
    NoSuchSeat,
    OutSeatNotMelded,
    SeatEnteredTwice,
    SeatNotEntered,
    TooManyCopies,
    WrongHandSize,
)
from engine.game.melding import arrange
from engine.game.scoring import seat_score
from engine.rule_checks import is_int
from engine.rules import Rules
from engine.scoresheet.entries import CardsEntry, Deal, Entry, PointsEntry, RoundShape, ScoredEntry

if TYPE_CHECKING:
    from engine.scoresheet import Sheet

# -- scoring one round ----------------------------------------------------------------------------


def scored_deal(
    sheet: Sheet, shape: RoundShape, out_seat: int | None, entries: Sequence[Entry]
) -> Deal:
    rules = sheet.rules
    by_seat = _entries_by_seat(sheet, shape, entries)
    if out_seat is not None and (not is_int(out_seat) or out_seat not in shape.seats):
        raise NoSuchSeat(
            f"out_seat {out_seat!r} did not play round {shape.round}: "
            f"its seats are {_listed(shape.seats)}",
            field="out_seat",
        )
    _check_cards(sheet, shape, by_seat)
    scored = []
    for seat in shape.seats:
        index, entry = by_seat[seat]
        scored.append(_scored_entry(rules, shape, entry, f"entries[{index}]", seat == out_seat))
    replayed = rules.double_naughts and all(e.deadwood_points == 0 for e in scored)
    return Deal(shape.round, out_seat, tuple(scored), replayed)


def _entries_by_seat(
    sheet: Sheet, shape: RoundShape, entries: Sequence[Entry]
) -> dict[int, tuple[int, Entry]]:
    """Each seat's entry and its index; every seat that played the round has exactly one."""
    by_seat: dict[int, tuple[int, Entry]] = {}
    for index, entry in enumerate(entries):
        seat = entry.seat
        if not is_int(seat) or seat not in shape.seats:
            where = "the tie-break round" if shape.tiebreak else "this sheet"
            raise NoSuchSeat(
                f"seat {seat!r} is not in {where}: its seats are {_listed(shape.seats)}",
                field=f"entries[{index}].seat",
            )
        if seat in by_seat:
            raise SeatEnteredTwice(
                f"seat {seat} ({sheet.players[seat]}) has two entries: "
                f"entries[{by_seat[seat][0]}] and entries[{index}]",
                field=f"entries[{index}].seat",
            )
        by_seat[seat] = index, entry
    missing = [seat for seat in shape.seats if seat not in by_seat]
    if missing:
        raise SeatNotEntered(
            f"seat {missing[0]} ({sheet.players[missing[0]]}) has no entry: round "
            f"{shape.round} needs one for each of seats {_listed(shape.seats)}",
            field="entries",
        )
    return by_seat


def _check_cards(sheet: Sheet, shape: RoundShape, by_seat: dict[int, tuple[int, Entry]]) -> None:
    """Every hand holds cards of the pack, as many as the round leaves in a hand, and the round's
    hands together no more copies of a card than the pack holds."""
    rules = sheet.rules
    copies = rules.decks_for(len(sheet.players))
    seen: Counter[Card] = Counter()
    for seat in shape.seats:
        index, entry = by_seat[seat]
        if not isinstance(entry, CardsEntry):
            continue
        field = f"entries[{index}].cards"
        size = len(entry.cards)
        if size != shape.cards_dealt and not (rules.redemption and size < shape.cards_dealt):
            held = "at most" if rules.redemption else "exactly"
            raise WrongHandSize(
                f"seat {seat} ({sheet.players[seat]}) holds {size} cards, but round "
                f"{shape.round} leaves {held} {shape.cards_dealt} in each hand",
                field=field,
            )
        for position, c in enumerate(entry.cards):
            if c not in rules.pack_cards:
                raise CardNotInPack(
                    f"seat {seat}'s {_card_text(c)} is not a card of the {rules.preset} pack",
                    field=f"{field}[{position}]",
                )
            seen[c] += 1
            limit = rules.jokers if c == JOKER else copies
            if seen[c] > limit:
                raise TooManyCopies(
                    f"seat {seat}'s {format_card(c)}: the round's hands hold {seen[c]} of it, "
                    f"but the pack for {len(sheet.players)} players has {limit}",
                    field=f"{field}[{position}]",
                )


def _scored_entry(
    rules: Rules, shape: RoundShape, entry: Entry, field: str, went_out: bool
) -> ScoredEntry:
    failed = entry.failed_go_outs
    if failed:
        _check_failed_go_outs(rules, entry, f"{field}.failed_go_outs")
    if isinstance(entry, PointsEntry):
        if went_out and entry.points != 0:
            raise OutSeatNotMelded(
                f"seat {entry.seat} went out, so its points are 0 (it scores the going-out "
                f"bonus), not {entry.points}",
                field=f"{field}.points",
            )
        points = seat_score(rules, shape.wild, 0, went_out=True) if went_out else entry.points
        return ScoredEntry(entry, (), (), entry.points, points)
    melds, deadwood, deadwood_points = _arranged(tuple(sorted(entry.cards)), shape.wild, rules)
    if went_out and deadwood_points:
        left = " ".join(format_card(c) for c in deadwood)
        raise OutSeatNotMelded(
            f"seat {entry.seat} went out, but its cards leave {deadwood_points} points of "
            f"deadwood ({left}): a seat that goes out melds every card",
            field=f"{field}.cards",
        )
    penalty = failed * rules.failed_go_out_penalty
    points = seat_score(rules, shape.wild, deadwood_points, went_out=went_out, penalty=penalty)
    return ScoredEntry(entry, melds, deadwood, deadwood_points, points)


def _check_failed_go_outs(rules: Rules, entry: Entry, field: str) -> None:
    if not is_int(entry.failed_go_outs) or entry.failed_go_outs < 0:
        raise FailedGoOutNotScored(
            f"failed_go_outs must be a count, not {entry.failed_go_outs!r}", field=field
        )
    if rules.failed_go_out != "penalty":
        raise FailedGoOutNotScored(
            "these rules reject a go-out whose hand does not meld (failed_go_out 'reject'): "
            "there is no failed go-out to score",
            field=field,
        )
    if isinstance(entry, PointsEntry):
        raise FailedGoOutNotScored(
            f"seat {entry.seat}'s points are taken as given: count the failed go-out's "
            "penalty in them, or enter the seat's cards",
            field=field,
        )


@lru_cache(maxsize=4096)
def _arranged(
    hand: tuple[Card, ...], wild: Rank, rules: Rules
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """The best arrangement of a sorted hand, memoised: a stored sheet is scored again each time
    it is read."""
    return arrange(hand, wild, rules)


def _card_text(c: Card) -> str:
    return format_card(c) if 0 <= c <= JOKER else repr(c)


def _listed(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seats)

"""What a record claims beside its actions, against what its replay reaches.

A record states each round's end (the seats out, every seat's melds, deadwood and points, in
the order the replay scores them) and the game's end (status, totals, winners). Import believes
none of it: each function here compares one claim with the replay and gives the first
``Mismatch`` (the record's part at fault and what the replay has there), or None. Every field
of a round's result is compared, so a record that imports prints back as it was read.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card, format_card
from engine.game import GameState, RoundResult, SeatResult
from engine.records.notation import meld_text
from engine.records.record import Headers


@dataclass(frozen=True, slots=True)
class Where:
    """A part of a record: its ``path`` in the JSON form, and its ``place`` in the text
    (``engine.records.parsing.Places`` has the line of each place)."""

    path: str
    place: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Mismatch:
    where: Where
    message: str


def result_mismatch(
    index: int, replayed: RoundResult, recorded: RoundResult | None
) -> Mismatch | None:
    """The first claim of round ``index``'s recorded result that the replay's result is not."""
    out_at = Where(f"rounds[{index}].result", ("out", index))
    if recorded is None:
        return Mismatch(
            out_at, "the round ends after its last action, and the record has no result"
        )
    return (
        _out_mismatch(out_at, replayed, recorded)
        or _scores_mismatch(index, replayed, recorded)
        or _order_mismatch(index, replayed, recorded)
        or (
            None
            if recorded == replayed
            else Mismatch(out_at, "the replay ends the round otherwise")
        )
    )


def _out_mismatch(out_at: Where, replayed: RoundResult, recorded: RoundResult) -> Mismatch | None:
    mine = (replayed.out_seat, replayed.replayed, replayed.tiebreak)
    if (recorded.out_seat, recorded.replayed, recorded.tiebreak) != mine:
        return Mismatch(
            out_at,
            f"the replay ends the round with out seat {_seat(replayed.out_seat)}"
            f"{' replayed' if replayed.replayed else ''}"
            f"{' tiebreak' if replayed.tiebreak else ''}",
        )
    if recorded.out_seats != replayed.out_seats:
        seats = " ".join(map(str, replayed.out_seats)) or "-"
        return Mismatch(
            Where(f"{out_at.path}.out_seats", out_at.place),
            f"the replay's out seats are {seats}",
        )
    return None


def _scores_mismatch(index: int, replayed: RoundResult, recorded: RoundResult) -> Mismatch | None:
    """Each recorded score line against the replay's score of its seat."""
    scores = {s.seat: s for s in replayed.results}
    for number, score in enumerate(recorded.results):
        at = Where(f"rounds[{index}].result.scores[{number}]", ("score", index, score.seat))
        mine = scores.pop(score.seat, None)
        if mine is None:
            return Mismatch(at, f"seat {score.seat} did not play this round, or is scored twice")
        wrong = _score_mismatch(at, mine, score)
        if wrong is not None:
            return wrong
    if scores:
        return Mismatch(
            Where(f"rounds[{index}].result", ("out", index)), f"no score for seat {min(scores)}"
        )
    return None


def _score_mismatch(at: Where, mine: SeatResult, score: SeatResult) -> Mismatch | None:
    seat = score.seat
    if mine.points != score.points:
        return Mismatch(at, f"seat {seat} scores {mine.points} in the replay, not {score.points}")
    if mine.melds != score.melds:
        shown = " ".join(meld_text(m) for m in mine.melds) or "nothing"
        claimed = " ".join(meld_text(m) for m in score.melds) or "nothing"
        return Mismatch(
            Where(f"{at.path}.melds", at.place),
            f"seat {seat}'s melds are {shown} in the replay, not {claimed}",
        )
    if mine.deadwood != score.deadwood:
        return Mismatch(
            Where(f"{at.path}.deadwood", at.place),
            f"seat {seat}'s deadwood is {_cards(mine.deadwood)} in the replay, "
            f"not {_cards(score.deadwood)}",
        )
    return None


def _order_mismatch(index: int, replayed: RoundResult, recorded: RoundResult) -> Mismatch | None:
    for number, (mine, score) in enumerate(zip(replayed.results, recorded.results, strict=True)):
        if mine.seat != score.seat:
            return Mismatch(
                Where(f"rounds[{index}].result.scores[{number}]", ("score", index, score.seat)),
                f"the replay scores seat {mine.seat} here (the seats dealt in, in seat order)",
            )
    return None


def end_mismatch(headers: Headers, game: GameState) -> Mismatch | None:
    """The first of the record's status, totals and winners that the replay's end is not."""
    if headers.status != game.status:
        return Mismatch(Where("status", ("header", "Status")), f"the replay is {game.status}")
    if headers.totals != game.totals:
        return Mismatch(
            Where("totals", ("header", "Totals")),
            f"the replay's totals are {' '.join(map(str, game.totals))}",
        )
    if headers.winners != game.winners:
        shown = "none" if game.winners is None else " ".join(map(str, game.winners))
        return Mismatch(
            Where("winners", ("header", "Winners")), f"the replay's winners are {shown}"
        )
    return None


def _seat(seat: int | None) -> str:
    return "-" if seat is None else str(seat)


def _cards(cards: tuple[Card, ...]) -> str:
    return " ".join(format_card(c) for c in cards) or "nothing"

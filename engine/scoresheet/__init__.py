"""Score sheets for games played with real cards: every round's shape (cards dealt, wild rank,
dealer) before anything is entered, each round's entries scored exactly, corrections, totals and
winners.

A sheet is a frozen value. ``new_sheet`` starts one; ``enter_round`` returns the sheet with one
round entered (or corrected), or raises the ``SheetError`` of the rule the entry breaks, naming
the offending field; ``restore`` rebuilds a sheet from its rounds as entered.

An entry is the cards left in a seat's hand, arranged by the exact analyser under the sheet's
rules and the round's wild rank, or the seat's points as written at the table, taken as given.
Scoring is the game's own (``engine.game.scoring.seat_score``): the going-out bonus for the
seat that went out, doubled late rounds, and the failed go-out penalty. The rounds follow the
game too (``engine.game.play``): the deal passes to the left each round, a double-naught round
(every seat melded) is dealt again by the same dealer and counts for nothing, and under
``tie: "tiebreak"`` seats tied for the lowest total play one more round, dealt like the last,
whose lowest score wins and which adds nothing to the totals.

Where a sheet needs more than the game says:

- the seat marked out must meld every card, or be entered as 0 points; its score is then the
  going-out bonus. A failed go-out (``failed_go_out: "penalty"``) is entered as a count on that
  seat's cards entry, its penalty added after any doubling.
- under ``redemption`` a hand may hold fewer cards than were dealt (the ones laid off on others'
  melds); otherwise every hand holds exactly the round's cards dealt.
- a correction may turn a round into a double naught only while no later round is entered (it is
  then open again, to be entered as played once more). A correction that changes who is tied
  for the lowest total drops a tie-break round entered for the old tie.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import (
    NoSuchSeat,
    ReplayConflict,
    RoundNotOpen,
    RoundOutOfRange,
    TooManyReplays,
)
from engine.game.play import check_players, dealer_of, hand_size, wild_rank
from engine.rule_checks import is_int
from engine.rules import Rules, RulesSpec
from engine.scoresheet import scoring
from engine.scoresheet.entries import CardsEntry, Deal, Entry, PointsEntry, RoundShape, ScoredEntry

__all__ = [
    "MAX_REPLAYS",
    "CardsEntry",
    "Deal",
    "Entry",
    "PointsEntry",
    "RoundShape",
    "ScoredEntry",
    "Sheet",
    "enter_round",
    "new_sheet",
    "restore",
]

MAX_REPLAYS = 10
"""Double naughts a sheet keeps for one round: at a real table a round is dealt again once in a
long while, and each replay is one more deal the sheet holds and scores on every read."""

# -- the sheet ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sheet:
    players: tuple[str, ...]
    rules: Rules
    first_dealer: int
    deals: tuple[Deal, ...] = ()
    """Every round entered, in the order played: a round's replayed deals before its counted one,
    the tie-break round last."""

    @property
    def counted(self) -> dict[int, Deal]:
        """The deal that counts for each round entered (not replayed), by round."""
        return {d.round: d for d in self.deals if not d.replayed}

    def replays_of(self, round_number: int) -> tuple[Deal, ...]:
        return tuple(d for d in self.deals if d.replayed and d.round == round_number)

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's total over the rounds of the schedule (the tie-break round adds nothing)."""
        counted = [d for r, d in self.counted.items() if r <= self.rules.rounds]
        return tuple(sum(d.points_of(seat) for d in counted) for seat in range(len(self.players)))

    @property
    def tied(self) -> tuple[int, ...]:
        """The seats with the lowest total."""
        totals = self.totals
        return tuple(seat for seat, total in enumerate(totals) if total == min(totals))

    @property
    def tiebreak_due(self) -> bool:
        """Every round of the schedule entered, several seats tied, and the rules break ties."""
        rounds = self.rules.rounds
        counted = self.counted
        return (
            self.rules.tie == "tiebreak"
            and all(r in counted for r in range(1, rounds + 1))
            and len(self.tied) > 1
        )

    @property
    def last_round(self) -> int:
        return self.rules.rounds + 1 if self.tiebreak_due else self.rules.rounds

    @property
    def next_round(self) -> int | None:
        """The round to enter next, or None once the sheet is finished."""
        counted = self.counted
        return next((r for r in range(1, self.last_round + 1) if r not in counted), None)

    @property
    def status(self) -> str:
        return "playing" if self.next_round is not None else "finished"

    @property
    def winners(self) -> tuple[int, ...]:
        """Once finished, the seats that won: the lowest total (ties share the win), or the
        lowest score of the tie-break round (a tie there shares it)."""
        if self.next_round is not None:
            return ()
        if not self.tiebreak_due:
            return self.tied
        tiebreak = self.counted[self.rules.rounds + 1]
        lowest = min(e.points for e in tiebreak.entries)
        return tuple(e.seat for e in tiebreak.entries if e.points == lowest)

    def shape(self, round_number: int) -> RoundShape:
        """A round's cards dealt, wild rank and dealer (the round must be on the sheet)."""
        n = len(self.players)
        tiebreak = round_number > self.rules.rounds
        return RoundShape(
            round=round_number,
            cards_dealt=hand_size(self.rules, round_number),
            wild=wild_rank(self.rules, round_number),
            dealer=dealer_of(self.first_dealer, n, round_number),
            seats=self.tied if tiebreak else tuple(range(n)),
            tiebreak=tiebreak,
        )

    def shapes(self) -> tuple[RoundShape, ...]:
        """Every round on the sheet, entered or not, round 1 first."""
        return tuple(self.shape(r) for r in range(1, self.last_round + 1))


def new_sheet(players: Sequence[str], rules: RulesSpec, first_dealer: int | None = None) -> Sheet:
    """A sheet with nothing entered. Without ``first_dealer`` the first dealer is drawn from the
    operating system's cryptographic source, as a game's is."""
    rules_value = Rules.from_spec(rules)
    names = check_players(players, rules_value)
    if first_dealer is None:
        first_dealer = secrets.randbelow(len(names))
    elif not is_int(first_dealer) or not 0 <= first_dealer < len(names):
        raise NoSuchSeat(
            f"first_dealer {first_dealer!r} is not a seat: seats are 0 to {len(names) - 1}",
            field="first_dealer",
        )
    return Sheet(names, rules_value, first_dealer)


def enter_round(
    sheet: Sheet, round_number: int, out_seat: int | None, entries: Sequence[Entry]
) -> Sheet:
    """The sheet with round ``round_number`` entered: the open round, or a correction of one
    entered before. ``entries``: one per seat that played it, in any order."""
    entered = _entered(sheet, round_number, out_seat, entries)
    replayed_again = len(entered.deals) > len(sheet.deals) and entered.deals[-1].replayed
    if replayed_again and len(sheet.replays_of(round_number)) >= MAX_REPLAYS:
        raise TooManyReplays(
            f"round {round_number} has been dealt again {MAX_REPLAYS} times (every seat "
            "melded): a sheet keeps no more; enter the deal that counts",
            field="entries",
        )
    return entered


def _entered(
    sheet: Sheet, round_number: int, out_seat: int | None, entries: Sequence[Entry]
) -> Sheet:
    last = sheet.last_round
    if not is_int(round_number) or not 1 <= round_number <= last:
        raise RoundOutOfRange(
            f"round {round_number!r} is not on this sheet: it has rounds 1 to {last}", field="round"
        )
    open_round = sheet.next_round
    if open_round is not None and round_number > open_round:
        raise RoundNotOpen(
            f"round {round_number} cannot be entered before round {open_round}", field="round"
        )
    deal = scoring.scored_deal(sheet, sheet.shape(round_number), out_seat, entries)
    index = next(
        (i for i, d in enumerate(sheet.deals) if d.round == round_number and not d.replayed), None
    )
    if index is None:
        deals = (*sheet.deals, deal)
    else:
        later = [r for r in sheet.counted if r > round_number]
        if deal.replayed and later:
            raise ReplayConflict(
                f"this correction makes round {round_number} a double naught (every seat "
                f"melded), which is dealt again, but round {later[0]} is already entered",
                field="entries",
            )
        deals = (*sheet.deals[:index], deal, *sheet.deals[index + 1 :])
    return _without_stale_tiebreak(dataclasses.replace(sheet, deals=deals))


def restore(
    players: Sequence[str],
    rules: RulesSpec,
    first_dealer: int,
    rounds: Sequence[tuple[int, int | None, Sequence[Entry]]],
) -> Sheet:
    """The sheet whose rounds, entered in this order, are ``rounds``: (round, out seat, entries)
    for each of ``Sheet.deals``.

    Linear in the deals: each is entered on a sheet of the counted deals only (at most one a
    round), never on the replays before it, which change no round's shape, order or total.
    Entering each on the whole sheet so far cost a pass over every deal before it, so reading
    a sheet was quadratic in its replays (2,000 replays: 289 ms a read). The bound
    on replays is not checked here: a sheet stored before it is still read."""
    counted = new_sheet(players, rules, first_dealer)
    deals: list[Deal] = []
    for round_number, out_seat, entries in rounds:
        entered = _entered(counted, round_number, out_seat, entries)
        deal = next((d for d in reversed(entered.deals) if d.round == round_number), None)
        if deal is None:  # a tie-break deal its sheet no longer ties for, as enter_round drops
            continue
        deals.append(deal)
        if not deal.replayed:
            counted = entered
    return dataclasses.replace(counted, deals=tuple(deals))


def _without_stale_tiebreak(sheet: Sheet) -> Sheet:
    """Drop tie-break deals that a correction left without a tie, or with another one."""
    tiebreak = sheet.rules.rounds + 1
    if not any(d.round == tiebreak for d in sheet.deals):
        return sheet
    regular = dataclasses.replace(sheet, deals=tuple(d for d in sheet.deals if d.round < tiebreak))
    if regular.tiebreak_due and all(
        tuple(e.seat for e in d.entries) == regular.tied for d in sheet.deals if d.round == tiebreak
    ):
        return sheet
    return regular

"""Engine → wire for score sheets: a sheet and its entries in ``service.sheets.wire``'s shapes."""

from __future__ import annotations

from engine.scoresheet import CardsEntry, ScoredEntry, Sheet
from service.sheets import wire as sheet_wire
from service.vocabulary.to_wire import card_codes, meld_to_wire, rank_code, rules_to_wire


def sheet_to_wire(sheet_id: str, version: int, sheet: Sheet) -> sheet_wire.ScoreSheet:
    counted = sheet.counted
    running = [0] * len(sheet.players)
    rounds = []
    for shape in sheet.shapes():
        deal = counted.get(shape.round)
        totals = None
        if deal is not None and not shape.tiebreak:
            running = [t + deal.points_of(seat) for seat, t in enumerate(running)]
            totals = list(running)
        rounds.append(
            sheet_wire.SheetRoundOut(
                round=shape.round,
                cards_dealt=shape.cards_dealt,
                wild=rank_code(shape.wild) or "",
                dealer=shape.dealer,
                seats=list(shape.seats),
                tiebreak=shape.tiebreak,
                entered=deal is not None,
                out_seat=None if deal is None else deal.out_seat,
                entries=None if deal is None else [_entry_to_wire(e) for e in deal.entries],
                totals=totals,
                replayed=[
                    sheet_wire.ReplayedDealOut(
                        out_seat=d.out_seat, entries=[_entry_to_wire(e) for e in d.entries]
                    )
                    for d in sheet.replays_of(shape.round)
                ],
            )
        )
    finished = sheet.next_round is None
    return sheet_wire.ScoreSheet(
        sheet_id=sheet_id,
        version=version,
        status="finished" if finished else "playing",
        rules=rules_to_wire(sheet.rules),
        players=[
            sheet_wire.SheetPlayerOut(seat=seat, name=name)
            for seat, name in enumerate(sheet.players)
        ],
        first_dealer=sheet.first_dealer,
        rounds=rounds,
        next_round=sheet.next_round,
        totals=list(sheet.totals),
        winners=list(sheet.winners) if finished else None,
    )


def _entry_to_wire(scored: ScoredEntry) -> sheet_wire.SheetEntryOut:
    entry = scored.entry
    is_cards = isinstance(entry, CardsEntry)
    return sheet_wire.SheetEntryOut(
        seat=entry.seat,
        points=scored.points,
        given="cards" if is_cards else "points",
        cards=card_codes(sorted(entry.cards)) if isinstance(entry, CardsEntry) else None,
        melds=[meld_to_wire(m) for m in scored.melds] if is_cards else None,
        deadwood=card_codes(scored.deadwood) if is_cards else None,
        deadwood_points=scored.deadwood_points,
        failed_go_outs=entry.failed_go_outs,
    )

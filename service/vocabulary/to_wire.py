"""Engine → wire: every answer's cards, ranks, rules, melds, views, logs, analyses, hints and
score sheets as the JSON shapes of the features' ``wire`` modules, in one place.

Cards are ints past the wire and text on it; the code of each card int is a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import msgspec

import engine
from engine.advice import DrawHint, Hint
from engine.analysis import build_document
from engine.cards import (
    ACE,
    JOKER,
    KING,
    Card,
    Rank,
    format_card,
    format_rank,
)
from engine.game import views
from engine.game.actions import Action, CallEnd, Chosen, Discard, Draw, LayOff
from engine.game.state import RoundResult
from engine.game.views import LogEntry
from engine.scoresheet import CardsEntry, ScoredEntry, Sheet
from service.advice.wire import DiscardOptionOut, DrawOptionOut, HintOut
from service.analysis.wire import AnalyseResponse, DiscardOut
from service.games.action_wire import DiscardAction, DrawAction, LayOffAction
from service.games.log_wire import (
    LogEntryOut,
    LoggedCallEnd,
    LoggedChosen,
    LoggedDiscard,
    LoggedDraw,
    LoggedLayOff,
    MoveOut,
)
from service.games.wire import (
    CallOut,
    GameView,
    LegalAction,
    PlayerOut,
    RoundResultOut,
    SeatResultOut,
)
from service.sheets import wire as sheet_wire
from service.vocabulary.wire import MeldOut, RulesOut

_CODE_OF_CARD: Final = tuple(format_card(c) for c in range(JOKER + 1))
_CODE_OF_RANK: Final = tuple(format_rank(r) for r in range(ACE, KING + 1))


def card_code(card: Card) -> str:
    return _CODE_OF_CARD[card]


def card_codes(cards: Sequence[Card]) -> list[str]:
    code = _CODE_OF_CARD
    return [code[c] for c in cards]


def optional_card_code(card: Card | None) -> str | None:
    return None if card is None else _CODE_OF_CARD[card]


def rank_code(rank: Rank | None) -> str | None:
    return None if rank is None else _CODE_OF_RANK[rank - ACE]


def rules_to_wire(rules: engine.Rules) -> RulesOut:
    return msgspec.convert(rules.to_spec(), RulesOut)


@lru_cache(maxsize=256)
def game_rules_to_wire(rules: engine.Rules) -> RulesOut:
    """``rules_to_wire``, remembered per rules value: every view carries its game's rules."""
    return rules_to_wire(rules)


def meld_to_wire(meld: engine.Meld) -> MeldOut:
    code = _CODE_OF_CARD
    return MeldOut(
        kind=meld.kind,
        cards=[code[c] for c in meld.cards],
        stands_for=[optional_card_code(s) for s in meld.stands_for],
    )


def analysis_to_wire(analysis: engine.Analysis) -> AnalyseResponse:
    """The analysis in its wire structs, shaped by the engine's one definition of the document
    (the structs are its constructors: a field either side lacks fails at once)."""
    return build_document(analysis, AnalyseResponse, MeldOut, DiscardOut)


_LoggedAction = LoggedDraw | LoggedDiscard | LoggedLayOff | LoggedChosen | LoggedCallEnd


def _logged_action(action: Action) -> _LoggedAction:
    match action:
        case Draw():
            return LoggedDraw(source=action.source, pile=action.pile)
        case Discard():
            return LoggedDiscard(go_out=action.go_out, pile=action.pile)
        case LayOff():
            return LoggedLayOff(seat=action.seat, meld=action.meld)
        case Chosen():
            return LoggedChosen()
        case CallEnd():
            return LoggedCallEnd(
                number=action.number,
                phase=action.phase.value,
                moves=[
                    MoveOut(
                        seat=m.seat,
                        action=LoggedDraw(source=m.action.source, pile=m.action.pile)
                        if isinstance(m.action, Draw)
                        else LoggedDiscard(go_out=m.action.go_out, pile=m.action.pile),
                        card=optional_card_code(m.card),
                    )
                    for m in action.moves
                ],
                timed_out=action.timed_out,
            )
    raise AssertionError(action)  # pragma: no cover - only applied actions are logged


def legal_to_wire(actions: Sequence[Action]) -> list[LegalAction]:
    """The engine's legal actions as the bodies ``POST …/actions`` accepts."""
    code = _CODE_OF_CARD
    out: list[LegalAction] = []
    for action in actions:
        match action:
            case Draw():
                out.append(DrawAction(source=action.source, pile=action.pile))
            case Discard():
                out.append(
                    DiscardAction(card=code[action.card], go_out=action.go_out, pile=action.pile)
                )
            case LayOff():
                out.append(LayOffAction(card=code[action.card], seat=action.seat, meld=action.meld))
    return out


def log_entry_to_wire(entry: LogEntry) -> LogEntryOut:
    return LogEntryOut(
        version=entry.version,
        seat=entry.seat,
        action=_logged_action(entry.action),
        card=optional_card_code(entry.card),
    )


def _round_result_to_wire(result: RoundResult) -> RoundResultOut:
    return RoundResultOut(
        round=result.round,
        out_seat=result.out_seat,
        results=[
            SeatResultOut(
                seat=r.seat,
                melds=[meld_to_wire(m) for m in r.melds],
                deadwood=card_codes(r.deadwood),
                points=r.points,
            )
            for r in result.results
        ],
        replayed=result.replayed,
        tiebreak=result.tiebreak,
    )


def view_to_wire(
    game_id: str,
    view: views.GameView,
    seat: int | None,
    rules: RulesOut,
    legal: list[LegalAction] | None,
) -> GameView:
    """The wire view of a game in play; ``seat`` is the viewer (None: the public), whose
    ``legal`` actions the caller lists (a speed game's ``call``: ``call_to_wire``, which needs
    the record's deadline)."""
    return GameView(
        game_id=game_id,
        version=view.version,
        status=view.status,
        round=view.round,
        rounds=view.rounds,
        wild=rank_code(view.wild),
        dealer=view.dealer,
        turn=view.turn,
        phase=None if view.phase is None else view.phase.value,
        out_seat=view.out_seat,
        stock_count=view.stock_count,
        discard_top=optional_card_code(view.discard_top),
        discard_tops=None
        if view.discard_tops is None
        else [optional_card_code(c) for c in view.discard_tops],
        players=[
            PlayerOut(
                seat=p.seat,
                name=p.name,
                open=False,
                hand_count=p.hand_count,
                score=p.score,
                round_scores=list(p.round_scores),
            )
            for p in view.players
        ],
        last_round=None if view.last_round is None else _round_result_to_wire(view.last_round),
        winners=None if view.winners is None else list(view.winners),
        hand=None if view.hand is None else card_codes(view.hand),
        active=list(view.active),
        tiebreak=view.tiebreak,
        last_turns=view.last_turns,
        upcard=optional_card_code(view.upcard),
        table=None
        if view.table is None
        else [[meld_to_wire(m) for m in melds] for melds in view.table],
        seeded=view.seeded,
        seat=seat,
        rules=rules,
        legal=legal,
        invite_code=None,
        deal_known=view.deal_known,
    )


def call_to_wire(call: views.CallView, deadline: str | None) -> CallOut:
    choice = call.choice
    return CallOut(
        number=call.number,
        phase=call.phase.value,
        deadline=deadline,
        chosen=list(call.chosen),
        choice=None if choice is None else legal_to_wire([choice])[0],
    )


def hint_to_wire(advice: Hint) -> HintOut:
    if isinstance(advice, DrawHint):
        return HintOut(
            phase="draw",
            draw=advice.advised.source,
            pile=advice.advised.pile,
            options=[
                DrawOptionOut(
                    source=o.source,
                    pile=o.pile,
                    card=optional_card_code(o.card),
                    expected_deadwood=round(o.expected_deadwood, 4),
                    go_out_chance=round(o.go_out_chance, 4),
                )
                for o in advice.options
            ],
            stock_known=advice.stock_known,
            reason=advice.reason,
        )
    return HintOut(
        phase="discard",
        discards=[_discard_out(d) for d in advice.discards],
        suggested=card_code(advice.suggested),
        reason=advice.reason,
    )


def _discard_out(option: engine.advice.DiscardOption) -> DiscardOptionOut:
    return DiscardOptionOut(
        card=card_code(option.card),
        deadwood_points=option.deadwood_points,
        go_out=option.go_out,
    )


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

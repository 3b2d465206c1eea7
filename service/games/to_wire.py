"""Engine → wire for games: views, legal actions, log entries, round results and calls, in
the shapes of ``service.games.wire`` and ``service.games.log_wire``."""

from __future__ import annotations

from collections.abc import Sequence

from engine import game
from engine.game import views
from engine.game.actions import Action, CallEnd, Chosen, Discard, Draw, LayOff
from engine.game.state import RoundResult
from engine.game.views import LogEntry
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
from service.games.records import Seating, rules_of
from service.games.wire import (
    CallOut,
    GameView,
    LegalAction,
    PlayerOut,
    RoundResultOut,
    SeatResultOut,
)
from service.vocabulary.to_wire import (
    card_code,
    card_codes,
    game_rules_to_wire,
    meld_to_wire,
    optional_card_code,
    rank_code,
)
from service.vocabulary.wire import RulesOut

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
    code = card_code
    out: list[LegalAction] = []
    for action in actions:
        match action:
            case Draw():
                out.append(DrawAction(source=action.source, pile=action.pile))
            case Discard():
                out.append(
                    DiscardAction(card=code(action.card), go_out=action.go_out, pile=action.pile)
                )
            case LayOff():
                out.append(LayOffAction(card=code(action.card), seat=action.seat, meld=action.meld))
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


def waiting_view(
    game_id: str, seating: Seating, seat: int | None, players: tuple[str | None, ...] = ()
) -> GameView:
    """The view of a table before the deal: who sits where (``players``: each seat's player,
    as ``GameRecord.players``), the rules, the first round's wild and dealer; no cards. A
    seat's view has an empty hand and nothing legal to do."""
    rules = rules_of(seating.rules)
    seats = len(seating.names)
    return GameView(
        game_id=game_id,
        version=0,
        status="waiting",
        round=1,
        rounds=rules.rounds,
        wild=rank_code(game.wild_rank(rules, 1)),
        dealer=seating.first_dealer,
        turn=None,
        phase=None,
        out_seat=None,
        stock_count=0,
        discard_top=None,
        discard_tops=[None] * seats if rules.discard_piles == "per_player" else None,
        players=[
            PlayerOut(
                seat=number,
                name=name,
                open=name is None,
                hand_count=0,
                score=0,
                round_scores=[],
                bot=seating.bots[number] if seating.bots else None,  # type: ignore[arg-type]
                player_id=players[number] if players else None,
            )
            for number, name in enumerate(seating.names)
        ],
        last_round=None,
        winners=None,
        hand=None if seat is None else [],
        active=list(range(seats)),
        tiebreak=False,
        last_turns=0,
        upcard=None,
        table=[[] for _ in range(seats)] if rules.redemption else None,
        seat=seat,
        rules=game_rules_to_wire(rules),
        legal=None if seat is None else [],
        invite_code=seating.invite_code,
        seeded=seating.seed is not None,
    )

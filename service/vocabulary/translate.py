"""Between the wire and the engine: card and rank codes, rules specs, melds.

Cards are text only at this edge; everything past it works on the engine's ints. A code that
fails to parse becomes an ``InvalidField`` naming where it was (``hand[3]``, ``card``).

Every request pays for this edge, so it remembers: the engine's parse of each code (the wire's
patterns accept a few hundred spellings), the code of each card int, and the ``Rules`` of each
preset and each rules object (frozen values, whose validation costs more than a small hand's
analysis).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import msgspec

import engine
from engine.analysis import build_document
from engine.cards import (
    ACE,
    JOKER,
    KING,
    Card,
    Rank,
    format_card,
    format_rank,
    parse_card,
    parse_rank,
)
from engine.game import views
from engine.game.actions import Action, Discard, Draw, LayOff
from engine.game.state import RoundResult
from engine.game.views import LogEntry
from engine.rules import PRESET_NAMES
from service.analysis.wire import AnalyseResponse, DiscardOut
from service.games.wire import (
    ActionRequest,
    DiscardAction,
    DrawAction,
    GameView,
    LayOffAction,
    LegalAction,
    LegalDiscard,
    LegalDraw,
    LegalLayOff,
    LogEntryOut,
    LoggedDiscard,
    LoggedDraw,
    LoggedLayOff,
    PlayerOut,
    RoundResultOut,
    SeatResultOut,
)
from service.http.problems import InvalidField
from service.vocabulary.wire import MeldOut, RulesOut, RulesSpec

_CARD_OF_CODE: Final[dict[str, Card]] = {}
"""The card of every code parsed so far, up to a bound (the wire's pattern accepts a few hundred
spellings, and every code that reaches this module has passed it)."""
_CARD_CODES_KEPT: Final = 1024
_parsed_rank: Final = lru_cache(maxsize=64)(parse_rank)
_CODE_OF_CARD: Final = tuple(format_card(c) for c in range(JOKER + 1))
_CODE_OF_RANK: Final = tuple(format_rank(r) for r in range(ACE, KING + 1))
_PRESET_RULES: Final = {name: engine.Rules.preset_named(name) for name in PRESET_NAMES}


def card_from_code(code: str, field: str) -> Card:
    card = _CARD_OF_CODE.get(code)
    if card is None:
        try:
            card = parse_card(code)
        except engine.CardCodeError as exc:
            raise InvalidField(str(exc), field=field) from None
        if len(_CARD_OF_CODE) < _CARD_CODES_KEPT:
            _CARD_OF_CODE[code] = card
    return card


def cards_from_codes(codes: Sequence[str], field: str) -> list[Card]:
    known = _CARD_OF_CODE
    try:
        return [known[code] for code in codes]
    except KeyError:  # one by one, each new code parsed (and a bad one named)
        return [card_from_code(code, f"{field}[{index}]") for index, code in enumerate(codes)]


def rank_from_code(code: str, field: str) -> Rank:
    try:
        return _parsed_rank(code)
    except engine.CardCodeError as exc:
        raise InvalidField(str(exc), field=field) from None


def card_code(card: Card) -> str:
    return _CODE_OF_CARD[card]


def card_codes(cards: Sequence[Card]) -> list[str]:
    code = _CODE_OF_CARD
    return [code[c] for c in cards]


def optional_card_code(card: Card | None) -> str | None:
    return None if card is None else _CODE_OF_CARD[card]


def rank_code(rank: Rank | None) -> str | None:
    return None if rank is None else _CODE_OF_RANK[rank - ACE]


def rules_from_wire(spec: RulesSpec) -> engine.Rules:
    """A preset name or overrides → engine Rules (RulesError, naming the field, if they clash)."""
    if isinstance(spec, str):
        preset = _PRESET_RULES.get(spec)
        return engine.Rules.from_spec(spec) if preset is None else preset  # unknown: its error
    return _rules_of_overrides(msgspec.json.encode(spec))


@lru_cache(maxsize=256)
def _rules_of_overrides(encoded: bytes) -> engine.Rules:
    """Keyed by the overrides' JSON (the struct holds a list, so it has no hash); a RulesError
    is raised again each time, never remembered."""
    return engine.Rules.from_spec(msgspec.json.decode(encoded))


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


# -- games ----------------------------------------------------------------------------------------


def action_from_wire(request: ActionRequest) -> Action:
    match request:
        case DrawAction():
            return Draw(request.source, request.pile)
        case DiscardAction():
            return Discard(card_from_code(request.card, "card"), request.go_out)
        case LayOffAction():
            return LayOff(card_from_code(request.card, "card"), request.seat, request.meld)
    raise AssertionError(request)  # pragma: no cover - the union above is exhaustive


def _logged_action(action: Action) -> LoggedDraw | LoggedDiscard | LoggedLayOff:
    match action:
        case Draw():
            return LoggedDraw(source=action.source, pile=action.pile)
        case Discard():
            return LoggedDiscard(go_out=action.go_out)
        case LayOff():
            return LoggedLayOff(seat=action.seat, meld=action.meld)
    raise AssertionError(action)  # pragma: no cover - only applied actions are logged


def legal_to_wire(actions: Sequence[Action]) -> list[LegalAction]:
    """The engine's legal actions as the bodies ``POST …/actions`` accepts."""
    code = _CODE_OF_CARD
    out: list[LegalAction] = []
    for action in actions:
        match action:
            case Draw():
                out.append(LegalDraw(source=action.source, pile=action.pile))
            case Discard():
                out.append(LegalDiscard(card=code[action.card], go_out=action.go_out))
            case LayOff():
                out.append(LegalLayOff(card=code[action.card], seat=action.seat, meld=action.meld))
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
    ``legal`` actions the caller lists."""
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
    )

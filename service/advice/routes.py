"""``GET /v1/games/{game_id}/hint`` and ``POST /v1/advise``: the engine's hint over HTTP.

The hint is computed from the seat's view and the public log as that seat sees them
(``engine.seen``), never from the game's state; ``advise`` builds the same from a bare hand.
Each hint analyses one hand per distinct unseen card, a few milliseconds for a game's hands, so
it runs in a worker thread rather than holding the event loop.
"""

from __future__ import annotations

from typing import Final

import anyio
import anyio.to_thread
from litestar import Controller, get, post
from litestar.params import FromPath, JSONBody

import engine
from engine import game
from engine.advice import Hint, PackError, advise, hint
from engine.cards import Card, Rank
from engine.game.speed import check_chooser
from engine.seen import sight
from service.advice.wire import AdviseRequest, HintOut
from service.games import lifecycle as game_flow
from service.games.acting_seat import Acting
from service.http.openapi_declarations import SEAT, problems
from service.http.problems import InvalidField, MissingWild
from service.vocabulary import to_engine, to_wire

LARGEST_HAND: Final = 16
"""The largest hand a game holds after its draw (15 dealt, extended schedule, plus one)."""

_HINTS: Final = anyio.CapacityLimiter(2)


def _wild_of(data: AdviseRequest, rules: engine.Rules) -> Rank:
    if data.wild is not None:
        wild = to_engine.rank_from_code(data.wild, "wild")
        if wild not in rules.ranks:
            raise InvalidField(
                f"wild rank {data.wild!r} is not a rank of the {rules.preset} pack", field="wild"
            )
        return wild
    if data.round is not None:
        return rules.wild_rank(data.round)
    raise MissingWild("give the wild rank as `wild`, or the round as `round`", field="wild")


def _advice_of(data: AdviseRequest) -> Hint:
    rules = to_engine.rules_from_wire(data.rules)
    wild = _wild_of(data, rules)
    hand = to_engine.cards_from_codes(data.hand, "hand")
    upcard: Card | None = None
    if data.upcard is not None:
        upcard = to_engine.cards_from_codes([data.upcard], "upcard")[0]
    if len(hand) + (upcard is not None) > LARGEST_HAND:
        raise InvalidField(
            f"{len(hand)} cards: advice takes a game's hands, at most {LARGEST_HAND} cards "
            "after the draw",
            field="hand",
        )
    seen = to_engine.cards_from_codes(data.seen, "seen")
    try:
        return advise(hand, wild, rules, upcard=upcard, seen=seen, players=data.players)
    except PackError as exc:
        raise InvalidField(str(exc), field=exc.field) from None


class AdviceController(Controller):
    tags = ("advice",)

    @get(
        "/v1/games/{game_id:str}/hint",
        operation_id="getHint",
        security=SEAT,
        summary="Advice for the seat on turn: which source to draw from, or what to discard",
        description=(
            "From what the seat has seen (its view and the public log), never the hidden cards. "
            "Draw phase: each source's mean least deadwood over the unseen cards after the best "
            "discard (exact for a pile's top card) and its go-out chance. Discard phase: every "
            "card ranked. Needs the seat's token; off turn, a 409. In a speed game (`turns: "
            "speed`), the advice for the seat's choice in the open call (its sources: the stock "
            "and its right neighbour's pile), whatever it chose so far; a seat that went out "
            "this round, or was not dealt in, has no choice to make: a 409 naming why."
        ),
        responses=problems(401, 404, 409, 503),
    )
    async def hint(self, game_id: FromPath[str], acting_seat: Acting) -> HintOut:
        seat, state = acting_seat.seat, game_flow.dealt(acting_seat.loaded).state
        if state.status != "playing":
            raise engine.GameFinished()
        if state.rules.turns == "speed":
            check_chooser(state, seat)  # every seat still in the round chooses in each call
        elif seat != state.turn:
            raise engine.NotYourTurn(seat, state.turn)
        seen = sight(game.view(state, seat), game.public_log(state, seat), seat, state.rules)
        advice = await anyio.to_thread.run_sync(hint, seen, limiter=_HINTS)
        return to_wire.hint_to_wire(advice)

    @post(
        "/v1/advise",
        operation_id="adviseHand",
        summary="The hint for a bare hand, for tools",
        description=(
            "Stateless: with `upcard`, the advice for the draw (the hand before it); without, "
            "for the discard (the hand after it). `seen` cards are out of the stock; `players` "
            "sets the pack where the rules make it depend on the table. The wild rank is "
            "`wild`, or else the wild rank of `round`."
        ),
        status_code=200,
        responses=problems(400, 413, 422),
    )
    async def advise(self, data: JSONBody[AdviseRequest]) -> HintOut:
        advice = await anyio.to_thread.run_sync(_advice_of, data, limiter=_HINTS)
        return to_wire.hint_to_wire(advice)

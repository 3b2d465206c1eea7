"""``GET /v1/games/{game_id}/hint`` and ``POST /v1/advise``: the engine's hint over HTTP.

The hint is computed from the seat's view and the public log as that seat sees them
(``engine.seen``), never from the game's state; ``advise`` builds the same from a bare hand.
Each hint analyses one hand per distinct unseen card, a few milliseconds for a game's hands, so
it runs in a worker thread rather than holding the event loop. ``advise`` takes any hand of a
deal's size with any wilds: its costly requests (draw-phase advice for more than
``ADVICE_INLINE_CARDS`` cards) run in the analyses' worker processes (``service.workers.pool``),
since a thread would hold the interpreter's lock for all of their time.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import anyio
import anyio.to_thread
from litestar import Controller, get, post
from litestar.di import Provide
from litestar.params import FromPath, JSONBody

import engine
from engine import game
from engine.advice import PackError, advise, hint
from engine.cards import Card, Rank
from engine.game.speed import check_chooser
from engine.seen import sight
from service.advice.deps import AppAdviceServices
from service.advice.to_wire import hint_to_wire
from service.advice.wire import AdviseRequest, HintOut
from service.games import lifecycle as game_flow
from service.games.acting_seat import Acting, acting_seat
from service.http.openapi_declarations import SEAT, problems
from service.http.problems import InvalidField
from service.http.route_policy import Limit, policy
from service.vocabulary import to_engine

LARGEST_HAND: Final = 16
"""The largest hand a game holds after its draw (15 dealt, extended schedule, plus one)."""

_HINTS: Final = anyio.CapacityLimiter(2)
ADVICE_INLINE_CARDS: Final = 10
"""Draw-phase advice (with an upcard) for a hand of more cards than this is costly: it analyses
one hand per distinct unseen card, 10-35 ms for 15 or 16 cards (measured), more with many
wilds and one wild per meld."""


_EXAMPLE: Final = {
    "requestBody": {
        "content": {
            "application/json": {
                "example": {"hand": ["4H", "8S", "6H", "KD"], "wild": "8", "upcard": "5H"}
            }
        }
    }
}
"""A whole request (the fields' own examples, put together, would not make a legal hand)."""


class _Advising(NamedTuple):
    """What ``advise`` is given, checked and translated on the event loop (a worker gets it
    pickled)."""

    hand: list[Card]
    wild: Rank
    rules: engine.Rules
    upcard: Card | None
    seen: list[Card]
    players: int


def _advising(data: AdviseRequest) -> _Advising:
    rules = to_engine.rules_from_wire(data.rules)
    wild = to_engine.wild_from_wire(data.wild, data.round, rules)
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
    return _Advising(hand, wild, rules, upcard, seen, data.players)


def advised(asked: _Advising) -> HintOut | tuple[str, str]:
    """The advice on the wire, or the message and field of a hand the pack cannot hold; what a
    worker process runs (the engine's error does not pickle, so it comes back as a value)."""
    hand, wild, rules, upcard, seen, players = asked
    try:
        return hint_to_wire(advise(hand, wild, rules, upcard=upcard, seen=seen, players=players))
    except PackError as exc:
        return str(exc), exc.field


class AdviceController(Controller):
    tags = ("advice",)
    dependencies = {"acting_seat": Provide(acting_seat)}  # noqa: RUF012  # Litestar's declaration

    @get(
        "/v1/games/{game_id:str}/hint",
        operation_id="getHint",
        opt=policy(limits=(Limit.PER_MINUTE,)),
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
        return hint_to_wire(advice)

    @post(
        "/v1/advise",
        operation_id="adviseHand",
        opt=policy(limits=(Limit.PER_MINUTE,), openapi=_EXAMPLE),
        summary="The hint for a bare hand, for tools",
        description=(
            "Stateless: with `upcard`, the advice for the draw (the hand before it); without, "
            "for the discard (the hand after it). `seen` cards are out of the stock; `players` "
            "sets the pack where the rules make it depend on the table. The wild rank is "
            "`wild`, or else the wild rank of `round`."
        ),
        status_code=200,
        responses=problems(400, 413, 422, 503),
    )
    async def advise(self, services: AppAdviceServices, data: JSONBody[AdviseRequest]) -> HintOut:
        asked = _advising(data)
        if asked.upcard is not None and len(asked.hand) > ADVICE_INLINE_CARDS:
            answer = await services.analyses.run(advised, asked)
        else:
            answer = await anyio.to_thread.run_sync(advised, asked, limiter=_HINTS)
        if isinstance(answer, tuple):
            raise InvalidField(answer[0], field=answer[1])
        return answer

"""The game as a pure state machine: ``new_game``, ``legal_actions``, ``apply``, ``replay``.

``apply`` checks the action against the state, then hands it to one small function per phase,
each in the module of its phase: ``dealing`` (a new game, shuffles, the deal), ``drawing``,
``discarding`` (and going out), ``redemption`` (lay-offs on a last turn) and ``round_end`` (an
empty stock, the round's scoring, the next deal, the end of the game with its winners).

Where RULES.md leaves a house rule's details open, the engine plays it this way:

- failed go-out (``penalty``): the discard stands, play goes on, and the seat's score for the
  round gets the penalty on top (after any doubling).
- doubled late rounds: the rounds whose wild rank is a jack, queen or king; the round's score
  (deadwood, or the going-out bonus) is doubled.
- first lap off: nobody may go out before every seat dealt in has finished one turn this round.
- double naughts: every seat dealt in ended the round with no deadwood (a going-out bonus does
  not count); the same dealer deals the round again; ``last_round`` shows it with
  ``replayed=True`` and nothing is added to the scores.
- per-player discard piles: the upcard starts the dealer's pile; ``Draw("discard")`` without a
  pile takes from the drawer's own pile.
- redemption: whoever goes out lays its melds on the table; each other seat, on its last turn,
  after drawing and before discarding, may lay cards off on the melds on the table of other
  seats (the seat that went out, and those that have had their last turn: each lays its melds
  down as that turn ends). It keeps at least one card to discard.
- stock exhausted: checked when a turn starts; with nothing under the discard piles' top cards
  to reshuffle, the round ends as under ``end_round``.
- tie-break: one more round among the seats tied for the lowest total, dealt like the last
  round (hand size and wild rank) by the next dealer. The lowest score in it wins (a tie again is
  a shared win); its scores are not added to the totals.
- no discarding the upcard just drawn: with several decks, an identical copy the seat already
  held may still be discarded.
- jokers discarded anywhere: with a pile per seat, ``Discard(JOKER, pile=seat)`` puts a joker
  on another dealt-in seat's pile; any other card there is a ``NotAJoker``.
- speed (``turns: speed``): calls instead of turns, in ``engine.game.speed``, whose docstring
  says how it plays what the rules text leaves open.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.errors import (
    GameFinished,
    GameSetupError,
    IllegalAction,
    NotYourTurn,
    OptionNotEnabled,
)
from engine.game.actions import (
    CALL_TIMEOUT,
    CALLER,
    DRAW_PHASE,
    Action,
    CallEnd,
    CallTimeout,
    Chosen,
    Discard,
    Draw,
    EndLayOff,
    LayOff,
)
from engine.game.dealing import (
    check_players,
    choose_first_dealer,
    dealer_of,
    hand_size,
    new_game,
    start,
    wild_rank,
)
from engine.game.discarding import apply_discard, legal_discards
from engine.game.drawing import apply_draw, legal_draws
from engine.game.evolve import is_int
from engine.game.redemption import apply_lay_off, legal_lay_offs
from engine.game.speed import apply_speed, legal_choices
from engine.game.state import GameState, Shuffles
from engine.rules import Rules

__all__ = [
    "apply",
    "check_players",
    "choose_first_dealer",
    "dealer_of",
    "hand_size",
    "legal_actions",
    "new_game",
    "replay",
    "wild_rank",
]

_SPEED_ONLY = (CallTimeout, CallEnd, Chosen)


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now (none when it is not its turn). Discards are listed
    once per distinct card, with ``go_out=True`` too for each card whose discard goes out.
    In a speed game: every choice the seat may make in the open call (``CALLER``: the
    timeout)."""
    if state.status != "playing":
        return []
    if state.choices:
        return [CALL_TIMEOUT] if seat == CALLER else legal_choices(state, seat)
    if seat != state.turn:
        return []
    if state.phase is DRAW_PHASE:
        return legal_draws(state)
    actions = legal_discards(state, seat)
    if state.rules.redemption:
        actions += legal_lay_offs(state, seat)
    return actions


def apply(state: GameState, seat: int, action: Action) -> GameState:
    """The state after ``seat`` takes ``action``: a new value (``state`` is unchanged), or an
    ``EngineError`` naming what is wrong, with nothing applied."""
    if state.status != "playing":
        if type(action) is CallEnd and action == state.last_record_action:
            return state  # the call's end that finished the game, read back from its log
        raise GameFinished()
    if state.choices:
        return apply_speed(state, seat, action)
    if type(action) in _SPEED_ONLY:
        raise OptionNotEnabled("turns", field="type")
    # type() first: a plain int needs no call (apply runs thousands of times a game).
    if not (type(seat) is int or is_int(seat)) or not 0 <= seat < len(state.players):
        raise IllegalAction(f"no seat {seat!r}: seats are 0 to {len(state.players) - 1}")
    if seat != state.turn:
        raise NotYourTurn(seat, state.turn)
    # The state keeps plain ints: a caller's int subclass could print as something else.
    seat = state.turn
    match action:
        case Draw():
            return apply_draw(state, seat, action)
        case Discard():
            return apply_discard(state, seat, action)
        case LayOff():
            return apply_lay_off(state, seat, action)
        case EndLayOff():
            raise IllegalAction(
                "EndLayOff is never needed: lay cards off before the discard that ends the turn"
            )
        case _:
            raise IllegalAction(f"not an action: {action!r}")


def replay(
    players: Sequence[str],
    rules: Rules | str | Mapping[str, Any] | None,
    seed_or_deck: int | Shuffles,
    actions: Iterable[tuple[int, Action]],
) -> GameState:
    """Rebuild a game from its seed (or, for a game made without one, its ``Shuffles``: the
    state's ``shuffle_record``) and its log of actions."""
    rules_value = Rules.from_spec(rules)
    if isinstance(seed_or_deck, Shuffles):
        names = check_players(players, rules_value)
        if not 0 <= seed_or_deck.first_dealer < len(names):
            raise GameSetupError(f"no seat {seed_or_deck.first_dealer} to deal first")
        state = start(rules_value, names, None, seed_or_deck.first_dealer, seed_or_deck.packs)
    else:
        if seed_or_deck is None:
            raise GameSetupError("replay needs the game's seed or its recorded shuffles")
        state = new_game(players, rules_value, seed_or_deck)
    for seat, action in actions:
        state = apply(state, seat, action)
    return state

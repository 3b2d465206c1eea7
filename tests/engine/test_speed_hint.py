"""The hint in a speed game (``turns: speed``), for every seat's choice in every call.

Its figures are checked against a brute force from the game's state: the cards a seat has not
seen are the pack less its hand, every pile's cards (turned up at the deal or discarded, all
public) and the cards other seats took from a pile and still hold (a plain scan of the deal's
calls); the stock's figure is the mean, over those copies, of the least deadwood after the best
discard, the pile's the same for its top card, and each discard's the deadwood of the rest.
Secrecy: the hint is the same whatever the other seats chose in the call, and whatever the
cards the seat has not seen are (another seat's hand traded with the stock)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from engine.advice import DiscardHint, DrawHint, Hint, hint
from engine.cards import Card
from engine.game import Discard, Draw, GameState, apply, legal_actions, new_game, public_log, view
from engine.game.actions import CALL_TIMEOUT, CALLER, CallEnd, Phase
from engine.game.melding import deadwood_points, without
from engine.game.speed import choosers, right_neighbour
from engine.rules import Rules
from engine.seen import Sight, sight

STEPS = 400
"""Choices per game: random play seldom goes out, so a round may run through many reshuffles."""

RULES = [
    {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"},
    {"preset": "five-crowns", "turns": "speed", "discard_drawn_upcard": False},
    {"preset": "classic", "turns": "speed", "max_players": 10},
    {"preset": "classic", "turns": "speed", "decks": 1},  # nobody goes out: reshuffles
]


def seat_hint(state: GameState, seat: int) -> Hint:
    return hint(sight(view(state, seat), public_log(state, seat), seat, state.rules))


def known_in_hands(state: GameState, seat: int) -> Counter[Card]:
    """The cards other seats took from a pile this deal and still hold: a plain scan."""
    held: dict[int, Counter[Card]] = {}
    for chunk in state.records:
        for record in chunk:
            if record.deal != state.deal or type(record.action) is not CallEnd:
                continue
            for move in record.action.moves:
                mine = held.setdefault(move.seat, Counter())
                if isinstance(move.action, Draw) and move.action.source == "discard":
                    assert move.card is not None
                    mine[move.card] += 1
                elif isinstance(move.action, Discard) and mine[move.action.card]:
                    mine[move.action.card] -= 1
    return sum((c for s, c in held.items() if s != seat), Counter())


def brute_unseen(state: GameState, seat: int) -> Counter[Card]:
    unseen = Counter(state.rules.pack(len(state.players)))
    unseen.subtract(state.hands[seat])
    unseen.subtract(c for pile in state.piles for c in pile)
    unseen.subtract(known_in_hands(state, seat))
    assert all(n >= 0 for n in unseen.values())
    return +unseen


def least_after(hand: tuple[Card, ...], state: GameState, forbidden: Card | None = None) -> int:
    return min(
        deadwood_points(without(hand, d), state.wild, state.rules)
        for d in set(hand)
        if d != forbidden
    )


def check_draw(state: GameState, seat: int, advice: DrawHint) -> None:
    unseen = brute_unseen(state, seat)
    hand = state.hands[seat]
    total = sum(unseen.values())
    mean = sum(n * least_after(tuple(sorted((*hand, c))), state) for c, n in unseen.items()) / total
    stock, *piles = advice.options
    assert stock.source == "stock"
    assert stock.expected_deadwood == pytest.approx(mean)
    neighbour = right_neighbour(state, seat)
    pile = state.piles[neighbour]
    assert [(o.pile, o.card) for o in piles] == ([(neighbour, pile[-1])] if pile else [])
    if pile:
        top = pile[-1]
        forbidden = top if not state.rules.discard_drawn_upcard and top not in hand else None
        kept = least_after(tuple(sorted((*hand, top))), state, forbidden)
        assert piles[0].expected_deadwood == kept


def check_discard(state: GameState, seat: int, advice: DiscardHint) -> None:
    hand, upcard = state.hands[seat], state.upcards[seat]
    forbidden = upcard if not state.rules.discard_drawn_upcard and hand.count(upcard) == 1 else None
    left = {
        c: deadwood_points(without(hand, c), state.wild, state.rules)
        for c in set(hand)
        if c != forbidden
    }
    assert {(o.card, o.deadwood_points) for o in advice.discards} == set(left.items())
    figures = [o.deadwood_points for o in advice.discards]
    assert figures == sorted(figures)


def check_possible(state: GameState, seat: int, known: Sight) -> None:
    """What the seat thinks possible holds the truth, reshuffles or not: the card it would draw
    from the stock (every seat before it drawing from it too) is one ``stock`` counts, and every
    card of another hand is unseen, in that stock, or known to be there."""
    stock, unseen = dict(known.stock), dict(known.unseen)
    if state.phase is Phase.DRAW:
        depth = choosers(state).index(seat)
        if depth < len(state.stock):
            assert stock.get(state.stock[-1 - depth], 0) > 0
    held = Counter(c for s in choosers(state) if s != seat for c in state.hands[s])
    taken = Counter(c for s, cards in enumerate(known.taken) if s != seat for c in cards)
    for card, count in held.items():
        assert count <= unseen.get(card, 0) + stock.get(card, 0) + taken[card], card


def traded(state: GameState, seat: int) -> GameState | None:
    """The game with one card another seat was dealt (and never showed) traded with one deep in
    the stock: nothing ``seat`` has seen changes."""
    shown = {
        move.card
        for chunk in state.records
        for record in chunk
        if type(record.action) is CallEnd
        for move in record.action.moves
    }
    for other in choosers(state):
        hidden = [c for c in state.hands[other] if c not in shown] if other != seat else []
        if hidden and len(state.stock) > len(state.players) + 1 and state.stock[0] not in shown:
            card, deep = hidden[0], state.stock[0]
            hands = list(state.hands)
            hands[other] = tuple(sorted((*without(hands[other], card), deep)))
            return dataclasses.replace(state, hands=tuple(hands), stock=(card, *state.stock[1:]))
    return None


@pytest.mark.parametrize(
    "spec", RULES, ids=["jokers-any-pile", "five-crowns", "ten-seats", "reshuffles"]
)
def test_every_speed_hint_is_exact_and_secret(spec: dict[str, object]) -> None:
    rules = Rules.from_spec(spec)
    players = 10 if "max_players" in spec else 3
    rng = random.Random(f"speed-hint/{spec}")
    state = new_game([f"p{k}" for k in range(players)], rules, rng.randrange(1 << 30))
    checked = {Phase.DRAW: 0, Phase.DISCARD: 0}
    for _ in range(STEPS):
        if state.status != "playing":
            break
        waiting = [s for s in choosers(state) if state.choices[s] is None]
        seat = waiting[0]
        known = sight(view(state, seat), public_log(state, seat), seat, state.rules)
        check_possible(state, seat, known)
        advice = hint(known)
        if _no_reshuffle_since_the_deal(state):
            if isinstance(advice, DrawHint):
                check_draw(state, seat, advice)
            else:
                assert isinstance(advice, DiscardHint)
                check_discard(state, seat, advice)
            checked[state.phase] += 1
            other = traded(state, seat)
            if other is not None:
                assert seat_hint(other, seat) == advice
        if len(waiting) > 1 and rng.random() < 0.05:
            state = apply(state, CALLER, CALL_TIMEOUT)
            continue
        legal = legal_actions(state, seat)
        if spec is RULES[-1]:
            legal = [a for a in legal if not (isinstance(a, Discard) and a.go_out)]
        chosen = apply(state, seat, rng.choice(legal))
        if len(waiting) > 1:
            # Whatever this seat chose, the next seat to choose gets the same hint.
            instead = apply(state, seat, rng.choice(legal_actions(state, seat)))
            assert (
                seat_hint(instead, waiting[1])
                == seat_hint(chosen, waiting[1])
                == seat_hint(state, waiting[1])
            )
        state = chosen
    assert checked[Phase.DRAW] > 10
    assert checked[Phase.DISCARD] > 10


def _no_reshuffle_since_the_deal(state: GameState) -> bool:
    """The brute force reads the piles whole: the last shuffle is the deal's, of the pack."""
    return len(state.shuffles[-1]) == len(state.shuffles[0])

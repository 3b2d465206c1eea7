"""A plain, slow reference for the review of small positions: one shared discard pile, no
redemption, a round's first deal, no reshuffle.

What a seat knew is rebuilt here from the deal's upcard, the public log of the deal and the
seat's own hand, without ``engine.seen``: a card is seen when it is in the hand, in the pile
(the upcard turned at the deal too, covered or not: every seat saw it turned), or taken from
the pile by another seat and not discarded since. Every unseen copy of every card is then
tried, one by one, with the reference analyser.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.cards import Card
from engine.game import Action, Discard, Draw, GameState, apply, public_log, replay, view
from engine.game.actions import CallEnd
from engine.records.review import GameReview, judge, tallied
from engine.rules import Rules
from engine.seen import sight
from tests.engine.reference import reference_min_deadwood

GOOD, INACCURACY, MISTAKE = 1.0, 3.0, 7.0
"""The thresholds docs/records.md states, in points lost."""


@dataclass(frozen=True)
class Expected:
    lost: float
    grade: str


def grade(lost: float, *, missed: bool, gave_up_chance: bool) -> str:
    if missed:
        return "missed_go_out"
    if lost < 1e-9:
        return "good" if gave_up_chance else "best"
    if lost <= GOOD:
        return "good"
    if lost <= INACCURACY:
        return "inaccuracy"
    if lost <= MISTAKE:
        return "mistake"
    return "blunder"


def seen_cards(game: GameState, seat: int, upcard: Card, deal_start: int) -> Counter[Card]:
    """The cards ``seat`` has seen in the deal so far (see the module's docstring)."""
    pile = [upcard]
    taken: dict[int, list[Card]] = {s: [] for s in range(len(game.players))}
    for record in game.history[deal_start:]:
        assert record.card is not None
        if isinstance(record.action, Draw) and record.action.source == "discard":
            assert pile.pop() == record.card
            taken[record.seat].append(record.card)
        elif isinstance(record.action, Discard):
            pile.append(record.card)
            if record.card in taken[record.seat]:
                taken[record.seat].remove(record.card)
    seen: Counter[Card] = Counter(game.hands[seat])
    seen.update(pile)
    for other, cards in taken.items():
        if other != seat:
            seen.update(cards)
    return seen


def least_after_discard(hand: list[Card], wild: int, rules: Rules, forbidden: Card | None) -> int:
    return min(
        reference_min_deadwood(hand[:i] + hand[i + 1 :], wild, rules)
        for i, c in enumerate(hand)
        if c != forbidden or hand.count(c) > 1
    )


def expected_draw(game: GameState, action: Draw, seen: Counter[Card]) -> Expected:
    rules, wild, seat = game.rules, game.wild, game.turn
    hand = list(game.hands[seat])
    # The chance counts a hand left fully melded on a last turn too: it ends the round at 0.
    unseen = Counter(rules.pack(len(game.players)))
    unseen.subtract(seen)
    copies = [c for c, n in sorted(unseen.items()) for _ in range(n)]
    kept = [least_after_discard([*hand, c], wild, rules, None) for c in copies]
    options = {"stock": (sum(kept) / len(kept), sum(k == 0 for k in kept) / len(kept))}
    if game.piles[0]:
        top = game.piles[0][-1]
        forbidden = None if rules.discard_drawn_upcard else top
        value = least_after_discard([*hand, top], wild, rules, forbidden)
        options["discard"] = (float(value), 1.0 if value == 0 else 0.0)
    best = min(options.values(), key=lambda o: (o[0], -o[1]))
    mine = options[action.source]
    return Expected(
        mine[0] - best[0],
        grade(
            mine[0] - best[0],
            missed=best[1] == 1.0 and mine[1] < 1.0,
            gave_up_chance=mine[1] < best[1],
        ),
    )


def expected_discard(game: GameState, action: Discard) -> Expected:
    rules, wild, seat = game.rules, game.wild, game.turn
    hand = list(game.hands[seat])
    left = {}
    for i, c in enumerate(hand):
        left[c] = reference_min_deadwood(hand[:i] + hand[i + 1 :], wild, rules)
    best = min(left.values())
    may_go_out = game.out_seat is None
    mine = left[action.card]
    went_out = action.go_out and mine == 0
    lost = float(mine - best)
    return Expected(
        lost, grade(lost, missed=may_go_out and best == 0 and not went_out, gave_up_chance=False)
    )


def expected(game: GameState, action: Action, upcard: Card, deal_start: int) -> Expected:
    """The review of ``action`` by the seat on turn in ``game``, by brute force."""
    if isinstance(action, Draw):
        return expected_draw(game, action, seen_cards(game, game.turn, upcard, deal_start))
    assert isinstance(action, Discard)
    return expected_discard(game, action)


# -- speed games: every seat chooses at once, from the pile of the seat on its right ---------------


def speed_seen(
    start: GameState, seat: int, upcards: dict[int, Card], calls: list[CallEnd]
) -> Counter[Card]:
    """The cards ``seat`` has seen at the start of a speed call: its hand, each pile (the deal
    turned a card up on every seat's pile, the calls' discards landed on them, pile draws took
    them off), and the cards other seats took from a pile and have not discarded since."""
    piles = {s: [card] for s, card in upcards.items()}
    taken: dict[int, list[Card]] = {s: [] for s in range(len(start.players))}
    for call in calls:
        for move in call.moves:
            assert move.card is not None
            if isinstance(move.action, Draw) and move.action.pile is not None:
                assert piles[move.action.pile].pop() == move.card
                taken[move.seat].append(move.card)
            elif isinstance(move.action, Discard):
                onto = move.seat if move.action.pile is None else move.action.pile
                piles.setdefault(onto, []).append(move.card)
                if move.card in taken[move.seat]:
                    taken[move.seat].remove(move.card)
    seen: Counter[Card] = Counter(start.hands[seat])
    for cards in piles.values():
        seen.update(cards)
    for other, cards in taken.items():
        if other != seat:
            seen.update(cards)
    return seen


def expected_speed(start: GameState, seat: int, action: Action, seen: Counter[Card]) -> Expected:
    """A speed choice judged by brute force: a draw from the stock (every unseen copy tried)
    or from the right neighbour's pile (every seat is dealt in: the seat before); a discard by
    the deadwood it leaves."""
    rules, wild = start.rules, start.wild
    hand = list(start.hands[seat])
    if isinstance(action, Discard):
        left = {
            c: reference_min_deadwood(hand[:i] + hand[i + 1 :], wild, rules)
            for i, c in enumerate(hand)
        }
        best = min(left.values())
        went_out = action.go_out and left[action.card] == 0
        lost = float(left[action.card] - best)
        missed = start.out_seat is None and best == 0 and not went_out
        return Expected(lost, grade(lost, missed=missed, gave_up_chance=False))
    assert isinstance(action, Draw)
    unseen = Counter(rules.pack(len(start.players)))
    unseen.subtract(seen)
    copies = [c for c, n in sorted(unseen.items()) for _ in range(n)]
    kept = [least_after_discard([*hand, c], wild, rules, None) for c in copies]
    options = {"stock": (sum(kept) / len(kept), sum(k == 0 for k in kept) / len(kept))}
    pile = start.piles[(seat - 1) % len(start.players)]
    if pile:
        value = least_after_discard([*hand, pile[-1]], wild, rules, None)
        options["discard"] = (float(value), 1.0 if value == 0 else 0.0)
    best_option = min(options.values(), key=lambda o: (o[0], -o[1]))
    mine = options[action.source]
    lost = mine[0] - best_option[0]
    return Expected(
        lost,
        grade(
            lost,
            missed=best_option[1] == 1.0 and mine[1] < 1.0,
            gave_up_chance=mine[1] < best_option[1],
        ),
    )


# -- the whole review, each sight read afresh ----------------------------------------------------


def review_afresh(state: GameState) -> GameReview:
    """The review of a game played in turns as the hint would judge each decision: the seat's
    sight read from its view and the whole public log at that version, afresh for every decision
    (time quadratic in the game's length; ``review_game`` follows one replay per seat instead)."""
    game = replay(state.players, state.rules, state.shuffle_record, [])
    decisions = []
    for record in state.history:
        seat, action = record.seat, record.action
        if isinstance(action, Draw | Discard):
            known = sight(view(game, seat), public_log(game, seat), seat, game.rules)
            judged = judge(game, known, action)
            if judged is not None:
                decisions.append(judged)
        game = apply(game, seat, action)
    return tallied(tuple(decisions), len(state.players))

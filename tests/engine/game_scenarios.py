"""Shared by the game tests: decks stacked to deal chosen hands, and a quick random player.

``stacked`` builds a game through the public ``replay`` with a recorded pack, so a test states
the hands it needs as card codes and the engine deals them exactly as it deals any pack.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import Card, parse_cards
from engine.game import Action, Discard, Draw, GameState, LayOff, Shuffles, legal_actions, replay
from engine.game.melding import going_out_discards
from engine.rules import Rules

RulesSpec = str | Mapping[str, Any] | Rules


def cards(text: str) -> list[Card]:
    """``"4H 5H 6H"`` → card ints."""
    return parse_cards(text.split())


def stacked_pack(
    rules: Rules,
    players: int,
    dealer: int,
    hands: Sequence[str],
    upcard: str,
    *,
    stock: str = "",
    shuffle_seed: int = 0,
) -> tuple[Card, ...]:
    """A pack whose deal (round 1, the dealer ``dealer``) gives seat i the cards ``hands[i]``,
    turns up ``upcard``, and leaves ``stock`` (first card first) on top of the stock."""
    dealt = [cards(h) for h in hands]
    top = cards(stock)
    up = cards(upcard)
    rest = Counter(rules.pack(players))
    rest.subtract(Counter([c for h in dealt for c in h] + top + up))
    if any(count < 0 for count in rest.values()):
        raise ValueError("the stacked cards are not all in the pack")
    remaining = sorted(rest.elements())
    random.Random(shuffle_seed).shuffle(remaining)
    order = [(dealer + k) % players for k in range(1, players + 1)]
    dealt_sequence = [dealt[seat][i] for i in range(len(dealt[0])) for seat in order]
    # The deal pops cards off the end: first the hands, then the upcard, then the stock's top.
    return (*remaining, *reversed(top), *up, *reversed(dealt_sequence))


def stacked(
    hands: Sequence[str],
    upcard: str,
    *,
    stock: str = "",
    rules: RulesSpec = "classic",
    dealer: int = 0,
    later_packs: Sequence[tuple[Card, ...]] = (),
) -> GameState:
    """A new game whose first round deals ``hands`` (seat by seat) with dealer ``dealer``."""
    rules_value = Rules.from_spec(rules)
    n = len(hands)
    pack = stacked_pack(rules_value, n, dealer, hands, upcard, stock=stock)
    names = [f"p{i}" for i in range(n)]
    return replay(names, rules_value, Shuffles(dealer, (pack, *later_packs)), [])


def last_card(state: GameState) -> Card:
    """The card the last action drew, discarded or laid off."""
    record = state.last_record
    assert record is not None
    assert record.card is not None
    return record.card


# -- a quick random player ------------------------------------------------------------------------


def _keep_score(c: Card, hand: Sequence[Card], wild: int) -> int:
    """How much a card helps toward melds: other cards of its rank, or of its suit close by."""
    if c == 65 or c % 13 + 1 == wild:
        return 100
    score = 0
    for other in hand:
        if other is c:
            continue
        if other % 13 == c % 13:
            score += 2
        elif other // 13 == c // 13 and abs(other % 13 - c % 13) <= 2:
            score += 1
    return score


def choose(state: GameState, rng: random.Random) -> Action:
    """A random but purposeful action for the seat on turn: it goes out when it can, lays off
    when it can, keeps cards that pair up, and otherwise plays at random, so rounds end."""
    seat = state.turn
    actions = legal_actions(state, seat)
    assert actions, f"no legal action for seat {seat} in {state!r}"
    if rng.random() < 0.15:
        return rng.choice(actions)
    rules = state.rules
    wild = rules.wild_rank(min(state.round, rules.rounds))
    hand = state.hands[seat]
    draws = [a for a in actions if isinstance(a, Draw)]
    if draws:
        for draw in draws:
            if draw.source == "discard":
                pile = state.piles[0 if draw.pile is None else draw.pile]
                if _keep_score(pile[-1], hand, wild) >= 2 and rng.random() < 0.7:
                    return draw
        return draws[0] if rng.random() < 0.8 else rng.choice(draws)
    lay_offs = [a for a in actions if isinstance(a, LayOff)]
    if lay_offs and rng.random() < 0.8:
        return rng.choice(lay_offs)
    discards = [a for a in actions if isinstance(a, Discard)]
    if state.out_seat is None:
        # Under the penalty rule every discard is listed as a go-out; otherwise only real ones.
        if rules.failed_go_out == "penalty":
            outs = set(going_out_discards(hand, wild, rules))
            real = [a for a in discards if a.go_out and a.card in outs]
        else:
            real = [a for a in discards if a.go_out]
        if real:
            return rng.choice(real)
        if rules.failed_go_out == "penalty" and rng.random() < 0.05:
            failed = [a for a in discards if a.go_out]
            if failed:
                return rng.choice(failed)
    plain = [a for a in discards if not a.go_out]
    scores = {a.card: _keep_score(a.card, hand, wild) for a in plain}
    least = min(scores.values())
    return rng.choice([a for a in plain if scores[a.card] == least])


def stalling(state: GameState, rng: random.Random, until: int) -> Action:
    """``choose``, but never a go-out before version ``until``: the round goes on, its stock
    reshuffled again and again (under ``stock_exhausted: reshuffle``), as long as asked."""
    action = choose(state, rng)
    if state.version < until and isinstance(action, Discard) and action.go_out:
        plain = [a for a in legal_actions(state, state.turn) if isinstance(a, Discard)]
        return rng.choice([a for a in plain if not a.go_out] or plain)
    return action

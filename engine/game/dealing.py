"""The shape of a round (cards dealt, wild rank, dealer), a new game, shuffling and the deal."""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import Card, Rank
from engine.errors import (
    GameSetupError,
)
from engine.game.actions import (
    DRAW_PHASE,
)
from engine.game.evolve import evolve, is_int
from engine.game.state import (
    GameState,
)
from engine.rules import Rules

MAX_NAME = 64


def hand_size(rules: Rules, round_number: int) -> int:
    """Cards dealt in a round; the tie-break round (one past the last) deals as the last did."""
    return rules.hand_size(min(round_number, rules.rounds))


def wild_rank(rules: Rules, round_number: int) -> Rank:
    """The wild rank of a round; the tie-break round keeps the last round's."""
    return rules.wild_rank(min(round_number, rules.rounds))


def dealer_of(state_first_dealer: int, players: int, round_number: int) -> int:
    """The deal passes to the left every round (a double-naught round is dealt by the same seat)."""
    return (state_first_dealer + round_number - 1) % players


def new_game(
    players: Sequence[str],
    rules: Rules | str | Mapping[str, Any] | None,
    seed: int | None = None,
    *,
    first_dealer: int | None = None,
) -> GameState:
    """A new game, its first round dealt. With ``seed`` the same game every time; without one
    every shuffle comes from the operating system's cryptographic source. ``first_dealer`` fixes
    who deals the first round (a rematch moves the deal on one seat); by default the seed, or the
    cryptographic source, picks the seat."""
    rules_value = Rules.from_spec(rules)
    names = check_players(players, rules_value)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise GameSetupError(f"seed must be an integer or null, not {seed!r}")
    if first_dealer is None:
        first_dealer = choose_first_dealer(len(names), seed)
    elif not is_int(first_dealer) or not 0 <= first_dealer < len(names):
        raise GameSetupError(
            f"first_dealer must be a seat from 0 to {len(names) - 1}, not {first_dealer!r}"
        )
    return start(rules_value, names, seed, first_dealer, ())


def choose_first_dealer(players: int, seed: int | None) -> int:
    """The seat that deals first when nobody says: the seed's, or a cryptographic choice."""
    if seed is None:
        return secrets.randbelow(players)
    return random.Random(f"three-thirteen/{seed}/dealer").randrange(players)


def start(
    rules: Rules,
    names: tuple[str, ...],
    seed: int | None,
    first_dealer: int,
    pending: tuple[tuple[Card, ...], ...],
) -> GameState:
    n = len(names)
    empty = ((),) * n
    state = GameState(
        rules=rules,
        players=names,
        seed=seed,
        first_dealer=first_dealer,
        version=0,
        status="playing",
        round=1,
        wild=wild_rank(rules, 1),
        deal=0,
        dealer=first_dealer,
        active=tuple(range(n)),
        turn=first_dealer,
        phase=DRAW_PHASE,
        hands=empty,
        stock=(),
        piles=(),
        upcard=None,
        turns_done=0,
        out_seat=None,
        last_turns=0,
        table=empty,
        penalties=(0,) * n,
        round_scores=empty,
        last_round=None,
        winners=None,
        records=(),
        shuffles=(),
        pending=pending,
    )
    return deal(state, 1, tuple(range(n)))


def check_players(players: Sequence[str], rules: Rules) -> tuple[str, ...]:
    """The players' names, checked: text of 1 to MAX_NAME characters, as many as the rules take."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise GameSetupError(f"players must be a list of names, not {players!r}")
    for name in players:
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise GameSetupError(
                f"a player's name must be 1 to {MAX_NAME} characters of text, not {name!r}"
            )
    rules.check_players(len(players))
    return tuple(players)


def shuffle(state: GameState, cards: Sequence[Card]) -> tuple[GameState, tuple[Card, ...]]:
    """``cards`` in a new random order, recorded in the state so the game can be replayed."""
    if state.pending:
        order, pending = state.pending[0], state.pending[1:]
        if Counter(order) != Counter(cards):
            raise GameSetupError(
                f"recorded shuffle {len(state.shuffles) + 1} does not hold the cards to shuffle"
            )
    else:
        pending = ()
        deck = list(cards)
        if state.seed is None:
            secrets.SystemRandom().shuffle(deck)
        else:
            # One generator per shuffle, seeded from the game's seed and the shuffle's number:
            # the state stays a plain value with no generator inside.
            random.Random(f"three-thirteen/{state.seed}/{len(state.shuffles)}").shuffle(deck)
        order = tuple(deck)
    changed = evolve(state, shuffles=(*state.shuffles, order), pending=pending)
    return changed, order


def deal(state: GameState, round_number: int, active: tuple[int, ...]) -> GameState:
    rules = state.rules
    n = len(state.players)
    state, pack = shuffle(state, rules.pack(n))
    dealer = dealer_of(state.first_dealer, n, round_number)
    order = seats_after(dealer, active, n)
    size = hand_size(rules, round_number)
    stock = list(pack)
    hands: list[list[Card]] = [[] for _ in range(n)]
    for _ in range(size):
        for seat in order:
            hands[seat].append(stock.pop())
    piles = _turned_up(stock, rules, dealer, order, n)
    speed = rules.turns == "speed"
    return evolve(
        state,
        round=round_number,
        wild=wild_rank(rules, round_number),
        deal=state.deal + 1,
        dealer=dealer,
        active=active,
        turn=order[0],
        phase=DRAW_PHASE,
        hands=tuple(tuple(sorted(h)) for h in hands),
        stock=tuple(stock),
        piles=tuple(piles),
        upcard=None,
        turns_done=0,
        out_seat=None,
        last_turns=0,
        table=((),) * n,
        penalties=(0,) * n,
        choices=(None,) * n if speed else (),
        calls=0,
        drawn=(None,) * n if speed else (),
        upcards=(None,) * n if speed else (),
        out_seats=(),
    )


def _turned_up(
    stock: list[Card], rules: Rules, dealer: int, order: list[int], n: int
) -> tuple[tuple[Card, ...], ...]:
    """The discard piles at the deal, their cards popped from ``stock``: one upcard on the shared
    pile, or on the dealer's own; in a speed game one on each seat's pile, in play order."""
    if rules.discard_piles != "per_player":
        return ((stock.pop(),),)
    piles: list[tuple[Card, ...]] = [() for _ in range(n)]
    for seat in order if rules.turns == "speed" else (dealer,):
        piles[seat] = (stock.pop(),)
    return tuple(piles)


def seats_after(seat: int, active: tuple[int, ...], n: int) -> list[int]:
    """The active seats in play order, starting with the one after ``seat``."""
    return [s for s in ((seat + k) % n for k in range(1, n + 1)) if s in active]


def next_seat(seat: int, active: tuple[int, ...], n: int) -> int:
    """The active seat after ``seat`` (``seats_after(...)[0]``, which every turn asks)."""
    following = (seat + 1) % n
    while following not in active:
        following = (following + 1) % n
    return following

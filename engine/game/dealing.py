"""The shape of a round (cards dealt, wild rank, dealer), a new game, shuffling and the deal.

Given deals: rounds dealt from hands, an upcard and a stock the caller chose. A deal is turned
into the pack the engine would have shuffled to deal it (``pack_of``): the game's dealing then
takes that pack instead of a shuffle, and records it like any shuffle, so a game of given deals
replays, stores and shows exactly like another. Cards of the pack the deal leaves out (a stock
given in part, or not at all) are shuffled under the stock it gives.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.cards import JOKER, Card, Rank, format_card
from engine.errors import DealError, GameSetupError
from engine.game.actions import (
    DRAW_PHASE,
)
from engine.game.evolve import evolve, is_int
from engine.game.state import GameState, GivenPacks
from engine.rules import Rules

MAX_NAME = 64


@dataclass(frozen=True, slots=True)
class Deal:
    """One round's deal: each seat's hand (seat by seat), the card turned up, and the top of
    the stock, its first card drawn first (the rest of the pack is shuffled under it). A speed
    game turns up a card on every seat's pile: ``upcard`` is None and ``upcards`` holds them,
    seat by seat."""

    hands: tuple[tuple[Card, ...], ...]
    upcard: Card | None
    stock: tuple[Card, ...] = ()
    upcards: tuple[Card, ...] = ()

    @property
    def turned(self) -> tuple[Card, ...]:
        """The cards turned up: the upcard, or a speed deal's upcards."""
        return self.upcards if self.upcard is None else (self.upcard,)


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
    deals: Mapping[int, Deal] | None = None,
) -> GameState:
    """A new game, its first round dealt. With ``seed`` the same game every time; without one
    every shuffle comes from the operating system's cryptographic source. ``first_dealer`` fixes
    who deals the first round (a rematch moves the deal on one seat); by default the seed, or the
    cryptographic source, picks the seat. ``deals`` gives some rounds' deals, by round number
    (``Deal``): the others, and a given round dealt again, are shuffled."""
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
    given = given_packs(rules_value, len(names), first_dealer, deals, seed) if deals else ()
    return start(rules_value, names, seed, first_dealer, (), given)


def choose_first_dealer(players: int, seed: int | None) -> int:
    """The seat that deals first when nobody says: the seed's, or a cryptographic choice."""
    if seed is None:
        return secrets.randbelow(players)
    return random.Random(f"three-thirteen/{seed}/dealer").randrange(players)


def start(  # noqa: PLR0913, PLR0917 - every way a game begins: new, replayed, dealt as given
    rules: Rules,
    names: tuple[str, ...],
    seed: int | None,
    first_dealer: int,
    pending: tuple[tuple[Card, ...], ...],
    deals: GivenPacks = (),
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
        deals=deals,
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
    given = _given_pack(state, round_number)
    if given is None:
        state, pack = shuffle(state, rules.pack(n))
    else:
        state, pack = evolve(state, shuffles=(*state.shuffles, given)), given
    dealer = dealer_of(state.first_dealer, n, round_number)
    hands, stock, piles = laid_out(rules, n, pack, round_number, dealer, active)
    speed = rules.turns == "speed"
    return evolve(
        state,
        round=round_number,
        wild=wild_rank(rules, round_number),
        deal=state.deal + 1,
        dealer=dealer,
        active=active,
        turn=seats_after(dealer, active, n)[0],
        phase=DRAW_PHASE,
        hands=hands,
        stock=stock,
        piles=piles,
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


class Layout(NamedTuple):
    """The cards as a deal lays them: each seat's hand (sorted; empty for a seat not dealt
    in), the stock (its top card last) and the discard piles with their upcards."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    piles: tuple[tuple[Card, ...], ...]


def laid_out(  # noqa: PLR0913, PLR0917 - a deal's every input, as ``deal`` has them
    rules: Rules,
    players: int,
    pack: tuple[Card, ...],
    round_number: int,
    dealer: int,
    active: tuple[int, ...],
) -> Layout:
    """How ``dealer`` deals ``pack`` to the ``active`` seats in round ``round_number``: cards
    off the end of the pack, one to each seat in turn from the dealer's left, then the upcards
    (``deal``, and a record rebuilding a deal from its pack, lay them out here)."""
    order = seats_after(dealer, active, players)
    stock = list(pack)
    hands: list[list[Card]] = [[] for _ in range(players)]
    for _ in range(hand_size(rules, round_number)):
        for seat in order:
            hands[seat].append(stock.pop())
    piles = _turned_up(stock, rules, dealer, order, players)
    return Layout(tuple(tuple(sorted(h)) for h in hands), tuple(stock), piles)


def _given_pack(state: GameState, round_number: int) -> tuple[Card, ...] | None:
    """The given pack of a round's first deal (a round dealt again under double naughts is
    shuffled: the same cards played the same way would deal it again and again). A replay's
    recorded packs come first: they hold the given ones in their place."""
    last = state.last_round
    if state.pending or (last is not None and last.replayed and last.round == round_number):
        return None
    return next((pack for number, pack in state.deals if number == round_number), None)


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


def pack_of(
    hands: Sequence[Sequence[Card]],
    upcards: Sequence[Card],
    stock: Sequence[Card],
    dealer: int,
    active: Sequence[int],
) -> tuple[Card, ...]:
    """The pack whose deal by ``dealer`` to the ``active`` seats gives these hands, turns up
    ``upcards`` and leaves ``stock`` (first drawn first). ``upcards`` is the one upcard, or a
    speed deal's, one per seat of ``active`` in that order. The deal takes cards off the end
    of the pack: one to each seat in turn from the dealer's left, then the upcards, a speed
    deal's in that same order."""
    n = len(hands)
    order = [s for s in ((dealer + k) % n for k in range(1, n + 1)) if s in active]
    size = len(hands[order[0]]) if order else 0
    dealt = [hands[seat][i] for i in range(size) for seat in order]
    if len(upcards) > 1:
        by_seat = dict(zip(active, upcards, strict=True))
        upcards = [by_seat[seat] for seat in order]
    return (*reversed(stock), *reversed(upcards), *reversed(dealt))


def given_packs(
    rules: Rules,
    players: int,
    first_dealer: int,
    deals: Mapping[int, Deal],
    seed: int | None,
) -> GivenPacks:
    """The pack of each given round, checked against the rules and completed: the cards no
    deal names are shuffled under the given stock (from the seed, or the cryptographic
    source without one)."""
    packs = []
    place = {round_number: index for index, round_number in enumerate(deals)}
    for round_number in sorted(deals):
        deal = deals[round_number]
        rest = check_deal(rules, players, round_number, deal, index=place[round_number])
        if seed is None:
            secrets.SystemRandom().shuffle(rest)
        else:
            random.Random(f"three-thirteen/{seed}/given/{round_number}").shuffle(rest)
        dealer = (first_dealer + round_number - 1) % players
        stock = (*deal.stock, *rest)
        packs.append(
            (round_number, pack_of(deal.hands, deal.turned, stock, dealer, range(players)))
        )
    return tuple(packs)


def check_deal(
    rules: Rules, players: int, round_number: object, deal: object, *, index: int | None = None
) -> list[Card]:
    """The cards of the pack ``deal`` leaves out, in pack order; ``DealError`` naming the field
    at fault when the deal does not fit the rules, the players or the round. ``index``: the
    deal's place among those given, which the error carries."""
    if not isinstance(round_number, int) or not 1 <= round_number <= rules.rounds:
        raise DealError(
            f"round {round_number!r} is not in the schedule: rounds are 1 to {rules.rounds}",
            round=None,
            field="round",
            index=index,
        )

    def refuse(message: str, field: str) -> DealError:
        return DealError(
            f"round {round_number}: {message}", round=round_number, field=field, index=index
        )

    if not isinstance(deal, Deal):
        raise refuse(f"not a deal: {deal!r}", "deal")
    if len(deal.hands) != players:
        raise refuse(f"{len(deal.hands)} hands for {players} seats", "hands")
    size = rules.hand_size(round_number)
    left = Counter(rules.pack(players))
    for seat, hand in enumerate(deal.hands):
        if len(hand) != size:
            raise refuse(f"seat {seat} holds {len(hand)} cards: the round deals {size}", "hands")
        _take(left, hand, refuse, f"hands[{seat}]")
    if rules.turns == "speed":
        if deal.upcard is not None:
            raise refuse("a speed deal turns up a card on each seat's pile: give upcards", "upcard")
        if len(deal.upcards) != players:
            raise refuse(f"{len(deal.upcards)} upcards for {players} seats", "upcards")
    elif deal.upcards or deal.upcard is None:
        field = "upcards" if deal.upcards else "upcard"
        raise refuse("a game in turns turns up one card: give upcard", field)
    _take(left, deal.turned, refuse, "upcards" if deal.upcard is None else "upcard")
    _take(left, deal.stock, refuse, "stock")
    return sorted(left.elements())


def _take(
    left: Counter[Card],
    cards: Sequence[Card],
    refuse: Callable[[str, str], DealError],
    field: str,
) -> None:
    """Takes ``cards`` out of what is ``left`` of the pack."""
    for c in cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= JOKER:
            raise refuse(f"not a card: {c!r}", field)
        if c not in left:
            raise refuse(f"the pack has no {format_card(c)}", field)
        if left[c] <= 0:
            raise refuse(f"{format_card(c)} more times than the pack has", field)
        left[c] -= 1

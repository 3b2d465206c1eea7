"""The game as a pure state machine: ``new_game``, ``legal_actions``, ``apply``, ``replay``.

``apply`` checks the action against the state, then hands it to one small function per phase.
The end of a turn moves play on: the next seat, a reshuffle or the end of the round when the
stock is empty, the round's scoring after the last of the last turns, the next deal, and the end
of the game with its winners.

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
"""

from __future__ import annotations

import bisect
import dataclasses
import random
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

from engine.analysis import Meld
from engine.cards import Card, Rank
from engine.errors import (
    CannotGoOut,
    CardNotInHand,
    GameFinished,
    GameSetupError,
    IllegalAction,
    NotYourTurn,
    OptionNotEnabled,
    WrongPhase,
)
from engine.game.actions import (
    DISCARD_DRAW,
    DISCARDS,
    GO_OUTS,
    STOCK_DRAW,
    Action,
    Discard,
    Draw,
    EndLayOff,
    LayOff,
    Phase,
    shared,
)
from engine.game.dealing import Deal, GivenPacks, given_packs
from engine.game.melding import (
    arrange,
    deadwood_points,
    going_out_discards,
    lay_out_meld,
    without,
)
from engine.game.scoring import seat_score
from engine.game.state import (
    RECORD_CHUNK,
    GameState,
    Record,
    RoundResult,
    SeatResult,
    Shuffles,
)
from engine.rules import Rules

MAX_NAME = 64
_T = TypeVar("_T")
# The phases as plain module constants: an enum member read through its class costs several
# times a global, and apply and legal_actions read them every action.
_DRAW_PHASE: Final = Phase.DRAW
_DISCARD_PHASE: Final = Phase.DISCARD

# -- the shape of a round -------------------------------------------------------------------------


def hand_size(rules: Rules, round_number: int) -> int:
    """Cards dealt in a round; the tie-break round (one past the last) deals as the last did."""
    return rules.hand_size(min(round_number, rules.rounds))


def wild_rank(rules: Rules, round_number: int) -> Rank:
    """The wild rank of a round; the tie-break round keeps the last round's."""
    return rules.wild_rank(min(round_number, rules.rounds))


def dealer_of(state_first_dealer: int, players: int, round_number: int) -> int:
    """The deal passes to the left every round (a double-naught round is dealt by the same seat)."""
    return (state_first_dealer + round_number - 1) % players


# -- a new game -----------------------------------------------------------------------------------


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
    (see ``engine.game.dealing``): the others, and a given round dealt again, are shuffled."""
    rules_value = Rules.from_spec(rules)
    names = check_players(players, rules_value)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise GameSetupError(f"seed must be an integer or null, not {seed!r}")
    if first_dealer is None:
        first_dealer = choose_first_dealer(len(names), seed)
    elif not _is_int(first_dealer) or not 0 <= first_dealer < len(names):
        raise GameSetupError(
            f"first_dealer must be a seat from 0 to {len(names) - 1}, not {first_dealer!r}"
        )
    given = given_packs(rules_value, len(names), first_dealer, deals, seed) if deals else ()
    return _start(rules_value, names, seed, first_dealer, (), given)


def choose_first_dealer(players: int, seed: int | None) -> int:
    """The seat that deals first when nobody says: the seed's, or a cryptographic choice."""
    if seed is None:
        return secrets.randbelow(players)
    return random.Random(f"three-thirteen/{seed}/dealer").randrange(players)


def _start(  # noqa: PLR0913, PLR0917 - every way a game begins: new, replayed, dealt as given
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
        phase=_DRAW_PHASE,
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
    return _deal(state, 1, tuple(range(n)))


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


# -- shuffling ------------------------------------------------------------------------------------


def _shuffle(state: GameState, cards: Sequence[Card]) -> tuple[GameState, tuple[Card, ...]]:
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
    changed = _evolve(state, shuffles=(*state.shuffles, order), pending=pending)
    return changed, order


def _deal(state: GameState, round_number: int, active: tuple[int, ...]) -> GameState:
    rules = state.rules
    n = len(state.players)
    given = _given_pack(state, round_number)
    if given is None:
        state, pack = _shuffle(state, rules.pack(n))
    else:
        state, pack = _evolve(state, shuffles=(*state.shuffles, given)), given
    dealer = dealer_of(state.first_dealer, n, round_number)
    order = _seats_after(dealer, active, n)
    size = hand_size(rules, round_number)
    stock = list(pack)
    hands: list[list[Card]] = [[] for _ in range(n)]
    for _ in range(size):
        for seat in order:
            hands[seat].append(stock.pop())
    upcard = stock.pop()
    piles_count = n if rules.discard_piles == "per_player" else 1
    piles: list[tuple[Card, ...]] = [() for _ in range(piles_count)]
    piles[dealer if piles_count > 1 else 0] = (upcard,)
    return _evolve(
        state,
        round=round_number,
        wild=wild_rank(rules, round_number),
        deal=state.deal + 1,
        dealer=dealer,
        active=active,
        turn=order[0],
        phase=_DRAW_PHASE,
        hands=tuple(tuple(sorted(h)) for h in hands),
        stock=tuple(stock),
        piles=tuple(piles),
        upcard=None,
        turns_done=0,
        out_seat=None,
        last_turns=0,
        table=((),) * n,
        penalties=(0,) * n,
    )


def _given_pack(state: GameState, round_number: int) -> tuple[Card, ...] | None:
    """The given pack of a round's first deal (a round dealt again under double naughts is
    shuffled: the same cards played the same way would deal it again and again). A replay's
    recorded packs come first: they hold the given ones in their place."""
    last = state.last_round
    if state.pending or (last is not None and last.replayed and last.round == round_number):
        return None
    return next((pack for number, pack in state.deals if number == round_number), None)


def _seats_after(seat: int, active: tuple[int, ...], n: int) -> list[int]:
    """The active seats in play order, starting with the one after ``seat``."""
    return [s for s in ((seat + k) % n for k in range(1, n + 1)) if s in active]


def _next_seat(seat: int, active: tuple[int, ...], n: int) -> int:
    """The active seat after ``seat`` (``_seats_after(...)[0]``, which every turn asks)."""
    following = (seat + 1) % n
    while following not in active:
        following = (following + 1) % n
    return following


# -- legal actions --------------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now (none when it is not its turn). Discards are listed
    once per distinct card, with ``go_out=True`` too for each card whose discard goes out."""
    if state.status != "playing" or seat != state.turn:
        return []
    if state.phase is _DRAW_PHASE:
        return _legal_draws(state)
    actions = _legal_discards(state, seat)
    if state.rules.redemption:
        actions += _legal_lay_offs(state, seat)
    return actions


def _legal_draws(state: GameState) -> list[Action]:
    actions: list[Action] = [STOCK_DRAW]
    if state.rules.discard_piles == "per_player":
        actions += [Draw("discard", k) for k, pile in enumerate(state.piles) if pile]
    elif state.piles[0]:
        actions.append(DISCARD_DRAW)
    return actions


def _legal_discards(state: GameState, seat: int) -> list[Action]:
    hand = state.hands[seat]
    distinct = dict.fromkeys(hand)  # sorted, as the hand is
    rules = state.rules
    upcard = state.upcard
    if upcard is not None and not rules.discard_drawn_upcard and hand.count(upcard) == 1:
        del distinct[upcard]
    actions: list[Action] = [DISCARDS[c] for c in distinct]
    if _go_out_refusal(state) is None:
        if rules.failed_go_out == "penalty":
            actions += [GO_OUTS[c] for c in distinct]
        else:
            out = going_out_discards(hand, state.wild, rules)
            if out:
                actions += [GO_OUTS[c] for c in distinct if c in out]
    return actions


def _legal_lay_offs(state: GameState, seat: int) -> list[Action]:
    if not _lay_off_open(state, seat):
        return []
    wild = state.wild
    hand = state.hands[seat]
    actions: list[Action] = []
    for c in sorted(set(hand)):
        if not _keeps_a_discard(state, without(hand, c)):
            continue
        for owner, melds in enumerate(state.table):
            if owner == seat:
                continue
            for index, meld in enumerate(melds):
                if lay_out_meld((*meld.cards, c), wild, state.rules) is not None:
                    actions.append(LayOff(c, owner, index))
    return actions


# -- apply ----------------------------------------------------------------------------------------


def apply(state: GameState, seat: int, action: Action) -> GameState:
    """The state after ``seat`` takes ``action``: a new value (``state`` is unchanged), or an
    ``EngineError`` naming what is wrong, with nothing applied."""
    if state.status != "playing":
        raise GameFinished()
    # type() first: a plain int needs no call (apply runs thousands of times a game).
    if not (type(seat) is int or _is_int(seat)) or not 0 <= seat < len(state.players):
        raise IllegalAction(f"no seat {seat!r}: seats are 0 to {len(state.players) - 1}")
    if seat != state.turn:
        raise NotYourTurn(seat, state.turn)
    # The state keeps plain ints: a caller's int subclass could print as something else.
    seat = state.turn
    match action:
        case Draw():
            return _apply_draw(state, seat, action)
        case Discard():
            return _apply_discard(state, seat, action)
        case LayOff():
            return _apply_lay_off(state, seat, action)
        case EndLayOff():
            raise IllegalAction(
                "EndLayOff is never needed: lay cards off before the discard that ends the turn"
            )
        case _:
            raise IllegalAction(f"not an action: {action!r}")


def _apply_draw(state: GameState, seat: int, action: Draw) -> GameState:
    if state.phase is not _DRAW_PHASE:
        raise WrongPhase(state.phase.value, action)
    if action.source == "stock":
        if action.pile is not None:
            raise IllegalAction(
                f"a draw from the stock takes no pile, not pile {action.pile!r}", field="pile"
            )
        card = state.stock[-1]
        stock, piles, upcard = state.stock[:-1], state.piles, None
    elif action.source == "discard":
        index = _pile_index(state, seat, action.pile)
        pile = state.piles[index]
        if not pile:
            raise IllegalAction(f"discard pile {index} is empty", field="source")
        card = pile[-1]
        stock, upcard = state.stock, card
        piles = _replace_at(state.piles, index, pile[:-1])
    else:
        raise IllegalAction(
            f"draw source must be 'stock' or 'discard', not {action.source!r}", field="source"
        )
    hand = state.hands[seat]
    at = bisect.bisect(hand, card)
    fields = dict(state.__dict__)
    fields["hands"] = _replace_at(state.hands, seat, (*hand[:at], card, *hand[at:]))
    fields["stock"] = stock
    fields["piles"] = piles
    fields["upcard"] = upcard
    fields["phase"] = _DISCARD_PHASE
    fields["version"] = state.version + 1
    fields["records"] = _recorded(state.records, Record(seat, shared(action), card, state.deal))
    return _state_from(fields)


def _pile_index(state: GameState, seat: int, pile: int | None) -> int:
    if state.rules.discard_piles != "per_player":
        if pile is not None:
            raise OptionNotEnabled("discard_piles", field="pile")
        return 0
    if pile is None:
        return seat
    if not _is_int(pile) or not 0 <= pile < len(state.piles):
        raise IllegalAction(
            f"no discard pile {pile!r}: piles are 0 to {len(state.piles) - 1}", field="pile"
        )
    return pile


def _apply_discard(state: GameState, seat: int, action: Discard) -> GameState:
    if state.phase is not _DISCARD_PHASE:
        raise WrongPhase(state.phase.value, action)
    hand = state.hands[seat]
    card = action.card
    if not (type(card) is int or _is_int(card)) or card not in hand:
        raise CardNotInHand(card)
    card = int(card)  # a plain int, as in apply
    if not isinstance(action.go_out, bool):
        raise IllegalAction(f"go_out must be true or false, not {action.go_out!r}", field="go_out")
    rules = state.rules
    if not rules.discard_drawn_upcard and card == state.upcard and hand.count(card) == 1:
        raise IllegalAction(
            f"card {card} was just drawn from a discard pile: the rules do not allow "
            "discarding it again this turn",
            field="card",
        )
    rest = without(hand, card)
    penalties = state.penalties
    out_seat, last_turns = state.out_seat, state.last_turns
    table = state.table
    if action.go_out:
        refusal = _go_out_refusal(state)
        if refusal is not None:
            raise IllegalAction(refusal, field="go_out")
        wild = state.wild
        left = deadwood_points(rest, wild, rules)
        if left > 0:
            if rules.failed_go_out == "reject":
                raise CannotGoOut(left)
            penalties = _replace_at(penalties, seat, penalties[seat] + rules.failed_go_out_penalty)
        else:
            out_seat, last_turns = seat, len(state.active) - 1
    index = seat if rules.discard_piles == "per_player" else 0
    hands = _replace_at(state.hands, seat, rest)
    if out_seat is not None and out_seat != seat:
        last_turns -= 1
    if out_seat is not None and rules.redemption:
        # Whoever goes out lays its melds on the table, and so does each seat after its last
        # turn; deadwood stays in the hand, and later seats may lay off on the melds.
        melds, deadwood, _ = arrange(rest, state.wild, rules)
        table = _replace_at(table, seat, melds)
        hands = _replace_at(hands, seat, deadwood)
    # One new state per action: apply runs thousands of times a game.
    fields = dict(state.__dict__)
    fields["hands"] = hands
    fields["piles"] = _replace_at(state.piles, index, (*state.piles[index], card))
    fields["penalties"] = penalties
    fields["out_seat"] = out_seat
    fields["last_turns"] = last_turns
    fields["table"] = table
    fields["turns_done"] = state.turns_done + 1
    fields["upcard"] = None
    fields["phase"] = _DRAW_PHASE
    fields["turn"] = _next_seat(seat, state.active, len(state.players))
    fields["version"] = state.version + 1
    fields["records"] = _recorded(state.records, Record(seat, shared(action), card, state.deal))
    state = _state_from(fields)
    if out_seat is not None and last_turns == 0:
        return _end_round(state)
    if not state.stock:
        return _restock(state)
    return state


def _go_out_refusal(state: GameState) -> str | None:
    """Why nobody may declare a go-out now, or None if they may."""
    if state.out_seat is not None:
        return f"seat {state.out_seat} has already gone out this round"
    if not state.rules.first_lap_go_out and state.turns_done < len(state.active):
        return (
            "nobody may go out before every seat has had one full turn this round "
            "(first_lap_go_out is off)"
        )
    return None


def _lay_off_open(state: GameState, seat: int) -> bool:
    return (
        state.rules.redemption
        and state.out_seat is not None
        and state.out_seat != seat
        and state.phase is _DISCARD_PHASE
    )


def _keeps_a_discard(state: GameState, hand: tuple[Card, ...]) -> bool:
    """Whether ``hand`` still holds a card the seat on turn may discard to end its turn."""
    upcard = state.upcard
    if state.rules.discard_drawn_upcard or upcard is None:
        return bool(hand)
    return any(c != upcard for c in hand) or hand.count(upcard) > 1


def _apply_lay_off(state: GameState, seat: int, action: LayOff) -> GameState:
    rules = state.rules
    if not rules.redemption:
        raise OptionNotEnabled("redemption", field="type")
    if state.phase is not _DISCARD_PHASE:
        raise WrongPhase(state.phase.value, action)
    if not _lay_off_open(state, seat):
        raise IllegalAction("cards are laid off only on a last turn, after someone has gone out")
    hand = state.hands[seat]
    if not _is_int(action.card) or action.card not in hand:
        raise CardNotInHand(action.card)
    if not _keeps_a_discard(state, without(hand, action.card)):
        raise IllegalAction(
            f"laying off card {action.card} would leave no card this turn may discard: "
            "the turn ends with a discard",
            field="card",
        )
    owner = action.seat
    if owner == seat:
        raise IllegalAction(
            "cards are laid off on other seats' melds, not on your own", field="seat"
        )
    if not _is_int(owner) or not 0 <= owner < len(state.players):
        raise IllegalAction(f"no seat {owner!r} to lay off on", field="seat")
    melds = state.table[owner]
    if not _is_int(action.meld) or not 0 <= action.meld < len(melds):
        raise IllegalAction(f"seat {owner} has no meld {action.meld!r} on the table", field="meld")
    card = int(action.card)  # a plain int, as in apply
    extended = lay_out_meld((*melds[action.meld].cards, card), state.wild, rules)
    if extended is None:
        raise IllegalAction(
            f"card {card} does not extend seat {owner}'s meld {action.meld} into a meld",
            field="card",
        )
    table = _replace_at(state.table, owner, _replace_at(melds, action.meld, extended))
    return _evolve(
        state,
        hands=_replace_at(state.hands, seat, without(hand, card)),
        table=table,
        version=state.version + 1,
        records=_recorded(state.records, Record(seat, shared(action), card, state.deal)),
    )


# -- the end of a turn, of a round, of the game ---------------------------------------------------


def _restock(state: GameState) -> GameState:
    """The stock is empty at the start of a turn: reshuffle all discards but each pile's top card
    into a new stock, or (``stock_exhausted: end_round``, or nothing to reshuffle) end the round."""
    under = [c for pile in state.piles for c in pile[:-1]]
    if state.rules.stock_exhausted == "end_round" or not under:
        return _end_round(state)
    state, order = _shuffle(state, under)
    return _evolve(state, stock=order, piles=tuple(pile[-1:] for pile in state.piles))


def _end_round(state: GameState) -> GameState:
    rules = state.rules
    wild = state.wild
    n = len(state.players)
    tiebreak = state.round > rules.rounds
    results = []
    all_melded = True
    for seat in state.active:
        melds, deadwood, points = _lay_out_hand(state, seat, wild)
        all_melded = all_melded and points == 0
        score = seat_score(
            rules, wild, points, went_out=seat == state.out_seat, penalty=state.penalties[seat]
        )
        results.append(SeatResult(seat, melds, deadwood, score))
    replayed = rules.double_naughts and all_melded
    result = RoundResult(
        state.round, state.out_seat, tuple(results), replayed=replayed, tiebreak=tiebreak
    )
    state = _evolve(state, last_round=result)
    if replayed:
        return _deal(state, state.round, state.active)
    if not tiebreak:
        by_seat = {r.seat: r.points for r in results}
        state = _evolve(
            state,
            round_scores=tuple(
                (*scores, by_seat.get(seat, 0)) for seat, scores in enumerate(state.round_scores)
            ),
        )
    if state.round < rules.rounds:
        return _deal(state, state.round + 1, tuple(range(n)))
    if tiebreak:
        lowest = min(r.points for r in results)
        return _finish(state, tuple(r.seat for r in results if r.points == lowest))
    totals = state.totals
    tied = tuple(seat for seat in range(n) if totals[seat] == min(totals))
    if len(tied) > 1 and rules.tie == "tiebreak":
        return _deal(state, rules.rounds + 1, tied)
    return _finish(state, tied)


def _lay_out_hand(
    state: GameState, seat: int, wild: Rank
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """A seat's best arrangement at the end of a round. Under redemption a seat that has laid
    its melds on the table keeps only deadwood in its hand; its melds are the table's."""
    melds, deadwood, points = arrange(state.hands[seat], wild, state.rules)
    laid = state.table[seat]
    return (*laid, *melds), deadwood, points


def _finish(state: GameState, winners: tuple[int, ...]) -> GameState:
    # The last round's cards stay where they lie, so the pack can still be accounted for.
    return _evolve(state, status="finished", winners=winners)


def _is_int(value: object) -> bool:
    """An int and not a bool (True == 1 would pass for a card, a seat or a pile)."""
    return isinstance(value, int) and not isinstance(value, bool)


# -- bookkeeping ----------------------------------------------------------------------------------


def _recorded(
    records: tuple[tuple[Record, ...], ...], record: Record
) -> tuple[tuple[Record, ...], ...]:
    """``records`` with one more, in chunks (see ``GameState.records``)."""
    if records and len(records[-1]) < RECORD_CHUNK:
        # Concatenation: unpacking into a new tuple goes through a list.
        return records[:-1] + (records[-1] + (record,),)  # noqa: RUF005
    return (*records, (record,))


_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(GameState))


def _evolve(state: GameState, **changes: Any) -> GameState:
    """``dataclasses.replace`` without its per-call overhead. A draw and a discard, thousands
    a game, set their fields in ``dict(state.__dict__)`` and call ``_state_from`` themselves:
    passing them as keyword arguments took a seventh of a whole game's replay."""
    fields = dict(state.__dict__)
    fields.update(changes)
    return _state_from(fields)


def _state_from(fields: dict[str, Any]) -> GameState:
    """The state of these fields (the state has no __post_init__: its fields are all there is).

    Make ``fields`` with dict(), not .copy(): the first state's fields come out as a split dict
    (shared keys), a copy of one stays split, and CPython 3.11 reads the attributes of such an
    instance on a slow path, several times slower; the game reads dozens a turn.
    """
    assert len(fields) == len(_FIELDS), set(fields) ^ _FIELDS  # a misspelt field
    new = object.__new__(GameState)
    _set_fields(new, fields)
    return new


_set_fields: Final = GameState.__dict__["__dict__"].__set__
"""Sets an instance's ``__dict__`` past the frozen dataclass's ``__setattr__``."""


def _replace_at(items: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*items[:index], value, *items[index + 1 :])


# -- replay ---------------------------------------------------------------------------------------


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
        state = _start(rules_value, names, None, seed_or_deck.first_dealer, seed_or_deck.packs)
    else:
        if seed_or_deck is None:
            raise GameSetupError("replay needs the game's seed or its recorded shuffles")
        state = new_game(players, rules_value, seed_or_deck)
    for seat, action in actions:
        state = apply(state, seat, action)
    return state

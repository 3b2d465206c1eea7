"""The computer players' speed policy (engine.bots.speed): a legal choice in every call of whole
games under every option that applies, the pile card only when it lowers the hand's least
deadwood, a go-out whenever one is legal and leaves nothing unmelded; and what a seat knows of
the piles (engine.seen) under ``joker_discards: any_pile``."""

from __future__ import annotations

import pytest

from engine.bots import speed
from engine.cards import JOKER
from engine.errors import IllegalAction
from engine.game import Discard, Draw, GameState, apply, legal_actions, new_game, public_log, view
from engine.game.actions import CALLER, Action, Phase
from engine.game.melding import deadwood_points, without
from engine.game.speed import choosers
from engine.rules import Rules
from engine.seen import sight
from tests.engine.game_scenarios import stacked

SPEED_OPTIONS: list[dict[str, object]] = [
    {"preset": "classic", "turns": "speed"},
    {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"},
    {"preset": "online", "turns": "speed", "discard_drawn_upcard": False},
    {"preset": "classic", "turns": "speed", "failed_go_out": "penalty", "decks": 2},
    {"preset": "classic", "turns": "speed", "stock_exhausted": "end_round"},
]


def least_after_discard(hand: tuple[int, ...], state: GameState) -> int:
    return min(deadwood_points(without(hand, c), state.wild, state.rules) for c in set(hand))


def checked_choice(state: GameState, seat: int) -> Action:
    """The policy's choice for ``seat``, checked against the legal choices and the rules the
    module states."""
    legal = legal_actions(state, seat)
    choice = speed.choose(view(state, seat), seat, legal, state.rules)
    assert choice in legal
    hand = state.hands[seat]
    if state.phase is Phase.DRAW:
        piles = [a for a in legal if isinstance(a, Draw) and a.source == "discard"]
        if piles and piles[0].pile is not None:
            top = state.piles[piles[0].pile][-1]
            lowers = least_after_discard(tuple(sorted((*hand, top))), state) < deadwood_points(
                hand, state.wild, state.rules
            )
            assert choice == (piles[0] if lowers else Draw("stock"))
    else:
        assert isinstance(choice, Discard)
        goes_out = [
            a
            for a in legal
            if isinstance(a, Discard)
            and a.go_out
            and deadwood_points(without(hand, a.card), state.wild, state.rules) == 0
        ]
        assert choice.go_out == bool(goes_out)
    return choice


@pytest.mark.parametrize(
    "options", SPEED_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
@pytest.mark.parametrize("players", [2, 5])
def test_whole_speed_games_of_bots_choose_legally_to_the_end(
    options: dict[str, object], players: int
) -> None:
    rules = Rules.from_spec(options)
    for seed in range(2):
        game = new_game([f"p{n}" for n in range(players)], rules, seed)
        while game.status == "playing":
            for seat in choosers(game):
                if game.status != "playing" or game.choices[seat] is not None:
                    continue
                game = apply(game, seat, checked_choice(game, seat))
        assert game.winners


def test_the_choice_is_the_same_for_the_same_view() -> None:
    rules = Rules.from_spec(SPEED_OPTIONS[0])
    game = new_game(["a", "b", "c"], rules, 7)
    first = [speed.choose(view(game, s), s, legal_actions(game, s), rules) for s in range(3)]
    again = [speed.choose(view(game, s), s, legal_actions(game, s), rules) for s in range(3)]
    assert first == again


def test_a_seat_with_no_choice_to_make_is_refused() -> None:
    rules = Rules.from_spec({"preset": "classic"})  # in turns: no call
    game = new_game(["a", "b"], rules, 1)
    with pytest.raises(IllegalAction):
        speed.choose(view(game, 0), 0, legal_actions(game, 0), rules)
    speedy = new_game(["a", "b"], Rules.from_spec(SPEED_OPTIONS[0]), 1)
    with pytest.raises(IllegalAction):
        speed.choose(view(speedy, 0), 0, legal_actions(speedy, CALLER), speedy.rules)


def test_a_seat_sees_a_joker_on_the_pile_it_was_discarded_onto() -> None:
    """engine.seen puts a discard on the pile it went onto (under ``any_pile`` another seat's),
    so the pile tops a seat knows are the state's."""
    rules = {
        "preset": "classic",
        "jokers": 2,
        "discard_piles": "per_player",
        "joker_discards": "any_pile",
    }
    game = stacked(["5C 5D JK", "7C 7D 7H", "2C 9D KS"], "4C", stock="TC", rules=rules, dealer=2)
    game = apply(game, 0, Draw("stock"))
    game = apply(game, 0, Discard(JOKER, pile=1))
    for seat in range(3):
        known = sight(view(game, seat), public_log(game, seat), seat, game.rules)
        for pile, card in known.tops:
            assert pile is not None
            assert game.piles[pile][-1] == card
        assert (1, JOKER) in known.tops
    # Seat 1 takes the joker back off its pile: every seat knows it holds it, and the piles
    # each seat rebuilds hold what the state's do.
    game = apply(game, 1, Draw("discard", 1))
    for seat in range(3):
        known = sight(view(game, seat), public_log(game, seat), seat, game.rules)
        assert known.taken[1] == (JOKER,)
        unseen = sum(count for card, count in known.unseen if card == JOKER)
        assert unseen == 1  # the pack's other joker, wherever it is

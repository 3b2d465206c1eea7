"""Speed games (``turns: speed``) and jokers discarded onto any pile, on stacked deals: the
options and their errors, one whole round call by call, what each seat sees, and every bad
choice refused with nothing changed."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.cards import JOKER, parse_card
from engine.errors import (
    CannotGoOut,
    EngineError,
    IllegalAction,
    NotAJoker,
    NotNeighboursPile,
    OptionNotEnabled,
    RulesError,
    SeatHasGoneOut,
    SeatNotDealtIn,
    StateFormatError,
    WrongCall,
)
from engine.game import (
    Action,
    Discard,
    Draw,
    GameState,
    apply,
    dumps,
    legal_actions,
    loads,
    new_game,
    public_log,
    public_view,
    replay,
    view,
)
from engine.game.actions import CALL_TIMEOUT, CALLER, CHOSEN, CallEnd, Move, Phase
from engine.rules import PRESETS, Rules
from tests.engine.game_scenarios import choose, stacked

SPEED = {"preset": "classic", "turns": "speed"}


def speed_game(hands: list[str], piles: list[str], stock: str, **options: object) -> GameState:
    """A speed game, dealer seat 0, dealing ``hands``; ``piles`` are the upcards turned onto the
    seats' piles in play order (seat 1 first), ``stock`` the stock's first cards."""
    # The deal turns the upcards from the pack's end: the first seat's is the last one listed.
    return stacked(
        hands, " ".join(reversed(piles)), stock=stock, rules={**SPEED, **options}, dealer=0
    )


def c(code: str) -> int:
    return parse_card(code)


def refused(state: GameState, seat: int, action: Action, error: type[EngineError]) -> None:
    """``action`` raises ``error`` and the state is as it was (the engine applies nothing)."""
    before = dumps(state)
    with pytest.raises(error):
        apply(state, seat, action)
    assert dumps(state) == before


# -- the options ----------------------------------------------------------------------------------


def test_speed_gives_every_seat_a_pile_and_defaults_stay_off() -> None:
    assert Rules().turns == "in_turn"
    assert Rules().joker_discards == "own_pile"
    assert Rules.from_spec({"turns": "speed"}).discard_piles == "per_player"
    for preset in PRESETS.values():
        spec = preset.to_spec()
        assert (spec["turns"], spec["joker_discards"]) == ("in_turn", "own_pile")


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"turns": "speed", "discard_piles": "shared"}, "discard_piles"),
        ({"turns": "speed", "redemption": True}, "redemption"),
        ({"joker_discards": "any_pile"}, "joker_discards"),
        ({"turns": "fast"}, "turns"),
        ({"joker_discards": "anywhere"}, "joker_discards"),
    ],
)
def test_options_that_cannot_be_are_errors_naming_the_field(
    spec: dict[str, object], field: str
) -> None:
    with pytest.raises(RulesError) as raised:
        Rules.from_spec(spec)
    assert raised.value.field == field
    assert str(next(iter(spec.values()))) in str(raised.value) or field in str(raised.value)


@pytest.mark.parametrize(
    ("preset", "decks", "in_turn", "speed"),
    [
        ("classic", 1, 3, 3),
        ("classic", 2, 7, 6),
        ("classic", 4, 15, 13),
        ("online", 2, 8, 7),
        ("online", 3, 12, 10),
        ("five-crowns", 2, 8, 7),
        ("five-crowns", 3, 13, 11),
    ],
)
def test_the_seat_limit_of_each_preset_and_deck_count(
    preset: str, decks: int, in_turn: int, speed: int
) -> None:
    assert Rules.from_spec(preset).seat_limit(decks) == in_turn
    assert Rules.from_spec({"preset": preset, "turns": "speed"}).seat_limit(decks) == speed


def test_ten_players_play_speed_with_enough_decks_and_more_are_an_error() -> None:
    names = [f"p{i}" for i in range(10)]
    new_game(names, {**SPEED, "max_players": 10}, seed=1)  # classic: 5 decks for 10
    with pytest.raises(RulesError, match="at most 7") as raised:
        new_game(names, {"preset": "online", "turns": "speed", "max_players": 10}, seed=1)
    assert raised.value.field == "decks"
    new_game(names, {"preset": "online", "turns": "speed", "max_players": 10, "decks": 3}, seed=1)
    assert Rules.from_spec({**SPEED, "max_players": 16}).most_seats == 16


# -- one round, call by call ----------------------------------------------------------------------

HANDS = ["5C 5D 5H", "7C 7D 7H", "2C 9D KS"]


def test_a_round_of_calls_with_two_seats_going_out_on_one_call() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH")
    assert game.piles == ((c("JS"),), (c("4C"),), (c("8D"),))
    shown = view(game, 0)
    assert shown.turn is None
    assert shown.call is not None
    assert (shown.call.number, shown.call.phase, shown.call.chosen) == (1, Phase.DRAW, ())

    game = apply(game, 0, Draw("stock"))
    assert game.version == 1
    assert view(game, 0).call.choice == Draw("stock")  # type: ignore[union-attr]
    assert view(game, 1).call.choice is None  # type: ignore[union-attr]
    assert public_view(game).call.chosen == (0,)  # type: ignore[union-attr]
    assert public_log(game, 1)[-1].action == CHOSEN
    assert public_log(game, 0)[-1].action == Draw("stock")

    game = apply(game, 1, Draw("discard"))  # changes its mind below
    game = apply(game, 1, Draw("stock"))
    game = apply(game, 2, Draw("stock"))
    assert game.version == 5  # four choices and the call's end
    end = game.last_record_action
    assert isinstance(end, CallEnd)
    # Stock cards dealt from the dealer's left: seat 1, seat 2, then the dealer.
    assert [(m.seat, m.card) for m in end.moves] == [(1, c("TC")), (2, c("TD")), (0, c("TH"))]
    seen_by_0 = public_log(game, 0)[-1].action
    assert isinstance(seen_by_0, CallEnd)
    assert seen_by_0.moves == (
        Move(1, Draw("stock"), None),
        Move(2, Draw("stock"), None),
        Move(0, Draw("stock"), c("TH")),
    )
    assert game.phase is Phase.DISCARD

    game = apply(game, 0, Discard(c("TH"), go_out=True))
    game = apply(game, 2, Discard(c("KS")))
    game = apply(game, 1, Discard(c("TC"), go_out=True))
    assert game.out_seats == (1, 0)
    assert game.out_seat == 1
    assert game.phase is Phase.DRAW
    assert legal_actions(game, 0) == []
    refused(game, 0, Draw("stock"), SeatHasGoneOut)
    assert legal_actions(game, 2) == [Draw("stock"), Draw("discard", 1)]

    game = apply(game, 2, Draw("discard", 1))  # the last seat's last draw call ends at once
    assert game.hands[2] == tuple(sorted(map(c, ["2C", "9D", "TD", "TC"])))
    game = apply(game, 2, Discard(c("TC")))
    result = game.last_round
    assert result is not None
    assert result.out_seats == (1, 0)
    assert {r.seat: r.points for r in result.results} == {0: 0, 1: 0, 2: 21}
    assert game.round == 2


def test_a_timed_out_call_draws_from_the_stock_and_discards_the_card_drawn() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH")
    game = apply(game, 1, Draw("discard"))
    game = apply(game, CALLER, CALL_TIMEOUT)
    end = game.last_record_action
    assert isinstance(end, CallEnd)
    assert end.timed_out
    assert [m.action for m in end.moves] == [Draw("discard", 0), Draw("stock"), Draw("stock")]
    assert game.hands[1] == tuple(sorted(map(c, ["7C", "7D", "7H", "JS"])))
    assert game.hands[2] == tuple(sorted(map(c, ["2C", "9D", "KS", "TC"])))
    game = apply(game, CALLER, CALL_TIMEOUT)
    assert game.piles == ((c("TD"),), (c("4C"), c("JS")), (c("8D"), c("TC")))


def test_a_timed_out_discard_keeps_a_drawn_upcard_the_rules_forbid() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH", discard_drawn_upcard=False)
    game = apply(game, 1, Draw("discard"))
    game = apply(game, CALLER, CALL_TIMEOUT)
    refused(game, 1, Discard(c("JS")), IllegalAction)
    game = apply(game, CALLER, CALL_TIMEOUT)
    assert game.piles[1] == (c("4C"), c("7C"))  # the first card it may discard


# -- bad choices ----------------------------------------------------------------------------------


def test_bad_choices_are_refused_with_nothing_changed() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH")
    refused(game, 0, Discard(c("5C")), WrongCall)
    refused(game, 0, Draw("discard", 0), NotNeighboursPile)  # its own pile
    refused(game, 0, Draw("discard", 1), NotNeighboursPile)  # the seat on its left
    refused(game, 0, CALL_TIMEOUT, IllegalAction)  # only the caller times a call out
    refused(game, CALLER, Draw("stock"), IllegalAction)
    refused(game, 3, Draw("stock"), IllegalAction)
    for seat in range(3):
        game = apply(game, seat, Draw("stock"))
    refused(game, 0, Draw("stock"), WrongCall)
    refused(game, 0, Discard(c("5C"), pile=1), NotAJoker)
    refused(game, 0, Discard(c("5C"), pile=7), IllegalAction)
    refused(game, 2, Discard(c("KS"), go_out=True), CannotGoOut)


def test_a_seat_not_dealt_in_makes_no_choice() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH")
    tiebreak = dataclasses.replace(game, active=(0, 1))
    assert legal_actions(tiebreak, 2) == []
    refused(tiebreak, 2, Draw("stock"), SeatNotDealtIn)


def test_a_joker_goes_onto_another_pile_only_where_the_rules_allow() -> None:
    hands = ["5C 5D JK", "7C 7D 7H", "2C 9D KS"]
    piles = ["4C", "8D", "JS"]
    off = speed_game(hands, piles, "TC TD TH", jokers=2)
    on = speed_game(hands, piles, "TC TD TH", jokers=2, joker_discards="any_pile")
    for seat in range(3):
        off = apply(off, seat, Draw("stock"))
        on = apply(on, seat, Draw("stock"))
    refused(off, 0, Discard(JOKER, pile=2), OptionNotEnabled)
    assert Discard(JOKER, pile=2) not in legal_actions(off, 0)
    assert {Discard(JOKER, pile=1), Discard(JOKER, pile=2)} <= set(legal_actions(on, 0))
    on = apply(on, 0, Discard(JOKER, pile=2))
    on = apply(on, 1, Discard(c("TC")))
    on = apply(on, 2, Discard(c("KS")))
    # The cards land in play order: seat 2's own discard, then the dealer's joker.
    assert on.piles == ((c("JS"),), (c("4C"), c("TC")), (c("8D"), c("KS"), JOKER))


# -- jokers onto another pile in a game played in turns -------------------------------------------


def test_a_joker_onto_another_pile_in_a_game_played_in_turns() -> None:
    rules = {
        "preset": "classic",
        "jokers": 2,
        "discard_piles": "per_player",
        "joker_discards": "any_pile",
    }
    game = stacked(["5C 5D JK", "7C 7D 7H", "2C 9D KS"], "4C", stock="TC", rules=rules, dealer=2)
    game = apply(game, 0, Draw("stock"))
    assert Discard(JOKER, pile=1) in legal_actions(game, 0)
    refused(game, 0, Discard(c("5C"), pile=1), NotAJoker)
    game = apply(game, 0, Discard(JOKER, pile=1))
    assert game.piles[1] == (JOKER,)
    assert game.turn == 1
    shared = stacked(["5C 5D JK", "7C 7D 7H"], "4C", stock="TC", rules={"jokers": 2}, dealer=1)
    shared = apply(shared, 0, Draw("stock"))
    refused(shared, 0, Discard(JOKER, pile=1), OptionNotEnabled)
    refused(game, CALLER, CALL_TIMEOUT, OptionNotEnabled)


def test_whole_games_in_turns_with_jokers_onto_any_pile_replay_and_keep_the_pack() -> None:
    rules = Rules.from_spec(
        {"preset": "online", "discard_piles": "per_player", "joker_discards": "any_pile"}
    )
    elsewhere = 0
    for seed in range(4):
        rng = random.Random(seed)
        game = new_game(["a", "b", "c", "d"], rules, seed)
        while game.status == "playing":
            game = apply(game, game.turn, choose(game, rng))
        for record in game.history:
            action = record.action
            if isinstance(action, Discard) and action.pile not in (None, record.seat):
                assert action.card == JOKER
                elsewhere += 1
        assert replay(game.players, rules, seed, game.log) == game
        assert loads(dumps(game)) == game  # every card of the pack in one place
    assert elsewhere > 0


def test_a_seat_sees_the_card_it_took_from_a_pile_as_its_upcard() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH")
    game = apply(game, 1, Draw("discard"))
    game = apply(game, CALLER, CALL_TIMEOUT)
    assert view(game, 1).upcard == c("JS")
    assert view(game, 2).upcard is None
    assert public_view(game).upcard is None


def test_a_stored_speed_game_with_a_damaged_call_is_refused() -> None:
    game = speed_game(HANDS, ["4C", "8D", "JS"], "TC TD TH")
    game = apply(game, 2, Draw("stock"))
    assert loads(dumps(game)) == game
    damaged = dumps(game).replace(b'"choices":[null,null,', b'"choices":[null,')
    assert damaged != dumps(game)
    with pytest.raises(StateFormatError, match="per-seat"):
        loads(damaged)

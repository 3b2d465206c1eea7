"""The flow of a game as RULES.md describes it: the deal, turns, going out, the last turns,
scoring, the next deal, the end; every refused action's error; views, the log, replay, storage."""

from __future__ import annotations

import json
import random
import secrets

import pytest

from engine.cards import parse_card
from engine.errors import (
    CannotGoOut,
    CardNotInHand,
    EngineError,
    GameFinished,
    GameSetupError,
    IllegalAction,
    NotYourTurn,
    OptionNotEnabled,
    RulesError,
    StateFormatError,
    WrongPhase,
)
from engine.game import (
    Discard,
    Draw,
    EndLayOff,
    GameState,
    LayOff,
    Phase,
    apply,
    dumps,
    legal_actions,
    loads,
    new_game,
    public_log,
    public_view,
    replay,
    serialised,
    view,
)
from engine.game.actions import DISCARD_DRAW, DISCARDS, GO_OUTS, STOCK_DRAW, shared
from engine.game.state import RECORD_CHUNK
from tests.engine.game_scenarios import cards, choose, last_card, stacked

C = parse_card


def two_seats_about_to_go_out() -> GameState:
    """Dealer 0; seat 1 (first to play) holds a run and draws a king it can throw away."""
    return stacked(["9C KD QS", "4H 5H 6H"], upcard="2D", stock="KS 7C 8D 8S 2C 2H")


# -- the deal -------------------------------------------------------------------------------------


def test_the_first_deal_follows_the_rules() -> None:
    state = new_game(["ann", "bob", "cy", "di"], "classic", seed=7)
    v = public_view(state)
    assert (v.round, v.rounds, v.wild, v.version, v.status) == (1, 11, 3, 0, "playing")
    assert [p.hand_count for p in v.players] == [3, 3, 3, 3]
    # Two decks for four players: 104 cards, 12 dealt, one turned up.
    assert v.stock_count == 104 - 12 - 1
    assert v.discard_top is not None
    assert v.turn == (v.dealer + 1) % 4
    assert v.phase is Phase.DRAW
    assert [p.name for p in v.players] == ["ann", "bob", "cy", "di"]


def test_a_seed_gives_the_same_game_every_time_and_seeds_differ() -> None:
    players = ["a", "b", "c"]
    assert dumps(new_game(players, "classic", 42)) == dumps(new_game(players, "classic", 42))
    decks = {new_game(players, "classic", seed).shuffles[0] for seed in range(5)}
    assert len(decks) == 5


def test_without_a_seed_the_shuffle_comes_from_the_os_random_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    used = []

    class Recording(random.SystemRandom):
        def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
            used.append(len(x))
            super().shuffle(x)

    def no_seeded_generator(*args: object) -> None:
        raise AssertionError("a game without a seed must not use random.Random")

    monkeypatch.setattr(secrets, "SystemRandom", Recording)
    monkeypatch.setattr(random, "Random", no_seeded_generator)
    state = new_game(["a", "b"], "classic")
    assert used == [52]
    assert state.seed is None


@pytest.mark.parametrize(
    ("players", "rules", "error"),
    [
        (["solo"], "classic", RulesError),
        ([f"p{i}" for i in range(9)], "classic", RulesError),
        ([f"p{i}" for i in range(6)], "online", RulesError),
        ([f"p{i}" for i in range(8)], "five-crowns", RulesError),
        (["a", ""], "classic", GameSetupError),
        ("ab", "classic", GameSetupError),
    ],
)
def test_player_counts_and_names_are_checked(
    players: list[str], rules: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        new_game(players, rules, 1)


def test_classic_takes_up_to_eight_players_with_more_decks() -> None:
    state = new_game([f"p{i}" for i in range(8)], "classic", 3)
    # Four decks for eight players.
    assert len(state.shuffles[0]) == 4 * 52
    with pytest.raises(GameSetupError, match="seed"):
        new_game(["a", "b"], "classic", "12")  # type: ignore[arg-type]


# -- a turn ---------------------------------------------------------------------------------------


def test_drawing_from_the_stock_takes_its_top_card_and_leaves_the_old_state_alone() -> None:
    state = two_seats_about_to_go_out()
    after = apply(state, 1, Draw("stock"))
    assert after.hands[1] == tuple(sorted(cards("4H 5H 6H KS")))
    assert after.phase is Phase.DISCARD
    assert after.turn == 1
    assert public_view(after).stock_count == public_view(state).stock_count - 1
    assert state.hands[1] == tuple(sorted(cards("4H 5H 6H")))
    assert state.version == 0
    assert after.version == 1


def test_drawing_from_the_discard_pile_takes_the_upcard() -> None:
    state = apply(two_seats_about_to_go_out(), 1, Draw("discard"))
    assert C("2D") in state.hands[1]
    assert public_view(state).discard_top is None
    state = apply(state, 1, Discard(C("4H")))
    assert public_view(state).discard_top == C("4H")
    assert state.turn == 0
    assert state.phase is Phase.DRAW


def test_turns_go_clockwise_from_the_dealers_left() -> None:
    state = stacked(["2C 2D 2H", "5C 5D 9H", "7C 7D JH", "8C 8D QH"], upcard="KH", dealer=2)
    seen = []
    for _ in range(8):
        seen.append(state.turn)
        state = apply(state, state.turn, Draw("stock"))
        state = apply(state, state.turn, Discard(last_card(state)))
    assert seen == [3, 0, 1, 2, 3, 0, 1, 2]


# -- refused actions ------------------------------------------------------------------------------


def test_each_broken_rule_has_its_own_error_naming_the_bad_value() -> None:
    state = two_seats_about_to_go_out()
    with pytest.raises(NotYourTurn, match=r"seat 0 .* seat 1"):
        apply(state, 0, Draw("stock"))
    with pytest.raises(WrongPhase, match="a discard is not allowed in the 'draw' phase: "):
        apply(state, 1, Discard(C("4H")))
    with pytest.raises(IllegalAction, match="seat 5"):
        apply(state, 5, Draw("stock"))
    with pytest.raises(IllegalAction, match="source"):
        apply(state, 1, Draw("deck"))  # type: ignore[arg-type]
    with pytest.raises(OptionNotEnabled, match="discard_piles"):
        apply(state, 1, Draw("discard", pile=0))
    with pytest.raises(OptionNotEnabled, match="redemption"):
        apply(state, 1, LayOff(C("4H"), 0, 0))
    with pytest.raises(IllegalAction, match="EndLayOff"):
        apply(state, 1, EndLayOff())
    drawn = apply(state, 1, Draw("stock"))
    with pytest.raises(WrongPhase, match="a draw is not allowed in the 'discard' phase: "):
        apply(drawn, 1, Draw("stock"))
    with pytest.raises(CardNotInHand, match="AS"):
        apply(drawn, 1, Discard(C("AS")))
    with pytest.raises(CannotGoOut, match="21 points") as refused:
        apply(drawn, 1, Discard(C("4H"), go_out=True))
    assert refused.value.deadwood_points == 5 + 6 + 10  # 5H 6H KS: no meld left
    assert drawn.version == 1
    # Values of the wrong type are refused by name, never taken for cards or seats.
    with pytest.raises(CardNotInHand, match="True"):
        apply(drawn, 1, Discard(True))
    with pytest.raises(IllegalAction, match="go_out"):
        apply(drawn, 1, Discard(C("KS"), go_out="yes"))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="seat True"):
        apply(drawn, True, Discard(C("KS")))


def test_a_refused_action_applies_nothing() -> None:
    state = apply(two_seats_about_to_go_out(), 1, Draw("stock"))
    before = dumps(state)
    for action in (Discard(C("AS")), Discard(C("4H"), go_out=True), Draw("stock")):
        with pytest.raises(EngineError, match=r"\w"):
            apply(state, 1, action)
    assert dumps(state) == before


# -- going out, the last turns, scoring, the next deal --------------------------------------------


def test_going_out_gives_every_other_seat_one_last_turn_then_scores_and_deals_again() -> None:
    state = apply(two_seats_about_to_go_out(), 1, Draw("stock"))
    assert Discard(C("KS"), go_out=True) in legal_actions(state, 1)
    state = apply(state, 1, Discard(C("KS"), go_out=True))
    assert (state.out_seat, state.turn, state.last_turns) == (1, 0, 1)
    with pytest.raises(IllegalAction, match="already gone out"):
        apply(apply(state, 0, Draw("stock")), 0, Discard(C("9C"), go_out=True))
    state = apply(state, 0, Draw("stock"))  # 7C
    state = apply(state, 0, Discard(C("9C")))
    # The round is over: scored, and round 2 dealt by the next dealer.
    result = state.last_round
    assert result is not None
    assert (result.round, result.out_seat) == (1, 1)
    by_seat = {r.seat: r for r in result.results}
    assert by_seat[1].points == 0
    assert [m.cards for m in by_seat[1].melds] == [tuple(cards("4H 5H 6H"))]
    assert sorted(by_seat[0].deadwood) == sorted(cards("KD QS 7C"))
    assert by_seat[0].points == 10 + 10 + 7
    assert [p.round_scores for p in public_view(state).players] == [(27,), (0,)]
    assert (state.round, state.wild, state.dealer, state.turn) == (2, 4, 1, 0)
    assert [len(h) for h in state.hands] == [4, 4]
    assert state.out_seat is None


def test_a_seat_that_is_fully_melded_at_the_end_scores_zero_too() -> None:
    state = stacked(["8C 8D 8S", "4H 5H 6H", "9C JD QS"], upcard="2D", stock="KS 7C 9H KC")
    state = apply(apply(state, 1, Draw("stock")), 1, Discard(C("KS"), go_out=True))
    for seat in (2, 0):
        assert state.turn == seat
        state = apply(apply(state, seat, Draw("stock")), seat, Discard(state.stock[-1]))
    assert state.last_round is not None
    points = {r.seat: r.points for r in state.last_round.results}
    assert points[0] == 0
    assert points[1] == 0
    assert points[2] == 9 + 10 + 10


def test_every_other_seat_plays_exactly_one_last_turn() -> None:
    state = stacked(
        ["8C 9D TS", "4H 5H 6H", "9C JD QS", "2S 5S 9S"], upcard="2D", stock="KS 7C 9H KC AD"
    )
    state = apply(apply(state, 1, Draw("stock")), 1, Discard(C("KS"), go_out=True))
    played = []
    while state.round == 1:
        seat = state.turn
        played.append(seat)
        state = apply(apply(state, seat, Draw("stock")), seat, Discard(state.hands[seat][0]))
    assert played == [2, 3, 0]


def test_a_whole_game_ends_with_the_lowest_total_winning() -> None:
    rng = random.Random(5)
    state = new_game(["a", "b", "c"], "classic", 11)
    while state.status == "playing":
        state = apply(state, state.turn, choose(state, rng))
    totals = [p.score for p in public_view(state).players]
    assert public_view(state).winners == tuple(s for s in range(3) if totals[s] == min(totals))
    assert all(len(p.round_scores) == 11 for p in public_view(state).players)
    with pytest.raises(GameFinished):
        apply(state, 0, Draw("stock"))
    assert legal_actions(state, 0) == []
    finished = public_view(state)
    assert (finished.turn, finished.phase, finished.status) == (None, None, "finished")


# -- legal actions --------------------------------------------------------------------------------


def test_legal_actions_list_each_distinct_card_once_and_only_real_go_outs() -> None:
    rules = {"preset": "classic", "decks": 2}
    state = stacked(["9C 9C KD", "4H 5H 6H"], upcard="2D", stock="9D 7C", rules=rules)
    assert legal_actions(state, 0) == []
    assert legal_actions(state, 1) == [Draw("stock"), Draw("discard")]
    state = apply(apply(state, 1, Draw("discard")), 1, Discard(C("2D")))
    state = apply(state, 0, Draw("stock"))  # 9C 9C 9D KD
    actions = legal_actions(state, 0)
    assert actions == [
        Discard(C("9C")),
        Discard(C("9D")),
        Discard(C("KD")),
        Discard(C("KD"), go_out=True),
    ]
    for action in actions:
        apply(state, 0, action)


# -- views and the log ----------------------------------------------------------------------------


def test_views_show_a_seat_its_own_hand_and_nobody_anything_secret() -> None:
    state = new_game(["a", "b", "c"], "classic", 9)
    public = public_view(state)
    assert public.hand is None
    text = repr(public)
    assert "shuffle" not in text
    assert "seed=" not in text  # whether the game was seeded, never the seed
    assert "stock=" not in text
    for seat in range(3):
        mine = view(state, seat)
        assert mine.hand == state.hands[seat]
        assert [p.hand_count for p in mine.players] == [3, 3, 3]
    assert "9" not in repr(state).split("players")[0].replace("v0", "")  # no seed in repr
    with pytest.raises(IllegalAction, match="seat 3"):
        view(state, 3)


def test_the_log_hides_a_card_drawn_from_the_stock_from_everyone_but_the_drawer() -> None:
    state = two_seats_about_to_go_out()
    state = apply(apply(state, 1, Draw("stock")), 1, Discard(C("KS")))
    state = apply(apply(state, 0, Draw("discard")), 0, Discard(C("9C")))
    state = apply(state, 1, Draw("stock"))
    ks, c9, c7 = C("KS"), C("9C"), C("7C")
    assert [e.card for e in public_log(state, None)] == [None, ks, ks, c9, None]
    assert [e.card for e in public_log(state, 0)] == [None, ks, ks, c9, None]
    assert [e.card for e in public_log(state, 1)] == [ks, ks, ks, c9, c7]
    assert [e.version for e in public_log(state, None)] == [1, 2, 3, 4, 5]
    # Once the round is over, every card drawn in it is revealed.
    state = apply(state, 1, Discard(c7, go_out=True))
    state = apply(apply(state, 0, Draw("stock")), 0, Discard(C("KD")))
    assert state.round == 2
    assert [e.card for e in public_log(state, None)][:5] == [ks, ks, ks, c9, c7]


# -- replay and storage ---------------------------------------------------------------------------


def played(seed: int | None, actions: int) -> GameState:
    rng = random.Random(3)
    state = new_game(["a", "b", "c"], "classic", seed)
    for _ in range(actions):
        state = apply(state, state.turn, choose(state, rng))
    return state


def test_replay_from_the_seed_or_the_recorded_shuffles_rebuilds_the_same_state() -> None:
    seeded = played(21, 200)
    assert replay(seeded.players, seeded.rules, 21, seeded.log) == seeded
    unseeded = played(None, 200)
    rebuilt = replay(unseeded.players, unseeded.rules, unseeded.shuffle_record, unseeded.log)
    assert dumps(rebuilt) == dumps(unseeded)
    # Part of the log gives the game as it was at that version.
    part = replay(seeded.players, seeded.rules, 21, seeded.log[:50])
    assert part == played(21, 50)


def test_replay_refuses_a_log_with_an_illegal_action() -> None:
    state = played(4, 10)
    log = list(state.log)
    log[3] = (log[3][0], Discard(C("AS") if C("AS") not in state.hands[log[3][0]] else 0))
    with pytest.raises((CardNotInHand, WrongPhase)):
        replay(state.players, state.rules, 4, log)


def test_dumps_and_loads_round_trip_exactly_and_carry_a_format_version() -> None:
    state = played(8, 300)
    data = dumps(state)
    assert json.loads(data)["format"] == 1
    assert json.dumps(json.loads(data), separators=(",", ":")).encode() == data
    assert loads(data) == state
    assert dumps(loads(data)) == data
    for partial in (played(None, 0), played(None, 37)):
        assert loads(dumps(partial)) == partial


def test_records_keep_the_actions_made_once_however_the_caller_built_them() -> None:
    state = new_game(["a", "b"], "classic", 5)
    state = apply(state, state.turn, Draw("stock"))  # built here, not taken from legal_actions
    card = state.hands[state.turn][0]
    state = apply(state, state.turn, Discard(card))
    state = apply(state, state.turn, Draw("discard"))
    draw, discard, redraw = (record.action for record in state.history)
    assert draw is STOCK_DRAW
    assert discard is DISCARDS[card]
    assert redraw is DISCARD_DRAW


def test_shared_gives_the_action_made_once_or_the_action_itself() -> None:
    assert shared(Discard(5)) is DISCARDS[5]
    assert shared(Discard(5, go_out=True)) is GO_OUTS[5]
    assert shared(Draw("stock")) is STOCK_DRAW
    assert shared(Draw("discard")) is DISCARD_DRAW
    for action in (Draw("discard", pile=1), LayOff(3, 0, 0), EndLayOff(), Discard(99)):
        assert shared(action) is action


def test_dumps_writes_kept_chunks_and_packs_as_it_writes_them_anew() -> None:
    state = played(8, 300)  # four full chunks of records, and part of a fifth
    full = [chunk for chunk in state.records if len(chunk) == RECORD_CHUNK]
    assert len(full) == 4
    assert len(state.shuffles) > 1
    first = dumps(state)
    assert all(serialised._KEPT_JSON[id(kept)][0] is kept for kept in (*full, *state.shuffles))
    serialised._KEPT_JSON.clear()
    assert dumps(state) == first
    later = apply(state, state.turn, choose(state, random.Random(1)))  # shares those chunks
    data = dumps(later)
    assert json.dumps(json.loads(data), separators=(",", ":")).encode() == data
    assert loads(data) == later


def test_the_filling_chunk_is_written_from_its_earlier_text_as_it_is_written_anew() -> None:
    """Each action writes the chunk still filling from the text of the same chunk one record
    shorter, which the action before wrote: the same text as a state nobody wrote before, and
    a state built apart (a replay: other records) is not taken for it."""
    state = played(9, 100)  # a full chunk of records, and part of a second
    states = [state]
    for seed in range(RECORD_CHUNK + 3):  # the second chunk fills up and a third starts
        states.append(apply(states[-1], states[-1].turn, choose(states[-1], random.Random(seed))))
    written = [serialised.dumps_parts(s, serialised.Sealed(0, 0)).head for s in states]
    assert len(serialised._FILLING_JSON) > 1
    serialised._FILLING_JSON.clear()
    assert [serialised.dumps_parts(s, serialised.Sealed(0, 0)).head for s in states] == written
    replayed = loads(dumps(states[-1]))
    assert serialised.dumps_parts(replayed, serialised.Sealed(0, 0)).head == written[-1]


def test_the_state_keeps_plain_ints_whatever_ints_the_caller_passes() -> None:
    """A seat or card given as an int subclass is stored as a plain int, so dumps writes it as
    JSON however the subclass prints."""

    class Loud(int):
        def __str__(self) -> str:
            return "loud"

    state = new_game(["a", "b"], "classic", 3)
    state = apply(state, Loud(state.turn), Draw("stock"))
    state = apply(state, Loud(state.turn), Discard(Loud(state.hands[state.turn][0])))
    assert all(type(r.seat) is int and type(r.card) is int for r in state.history)
    data = dumps(state)
    assert json.dumps(json.loads(data), separators=(",", ":")).encode() == data


def test_loads_checks_the_rules_of_every_state_and_shares_equal_ones() -> None:
    data = json.loads(dumps(played(8, 20)))
    first, second = (loads(json.dumps(data).encode()) for _ in range(2))
    assert first.rules is second.rules
    # After the valid spec is kept: values that compare equal to valid ones are still refused.
    for rules in (
        {**data["rules"], "all_wild_melds": 1},
        {**data["rules"], "jokers": 4.0},
        "classic",
        None,
    ):
        with pytest.raises(StateFormatError, match="damaged"):
            loads(json.dumps({**data, "rules": rules}).encode())


def test_loads_refuses_other_formats_and_damaged_state() -> None:
    data = json.loads(dumps(played(8, 20)))
    with pytest.raises(StateFormatError, match="format 2"):
        loads(json.dumps({**data, "format": 2}).encode())
    with pytest.raises(StateFormatError, match="not JSON"):
        loads(b"\x80 not json")
    hands = [list(h) for h in data["hands"]]
    hands[0][0] = (hands[0][0] + 1) % 52
    with pytest.raises(StateFormatError, match="whole pack"):
        loads(json.dumps({**data, "hands": hands}).encode())
    without_stock = {k: v for k, v in data.items() if k != "stock"}
    with pytest.raises(StateFormatError, match="stock"):
        loads(json.dumps(without_stock).encode())
    with pytest.raises(StateFormatError, match="integer"):
        loads(json.dumps({**data, "version": "3"}).encode())
    seat, action, card, deal = data["history"][1]
    assert action[0] == "discard"
    for damaged, why in (
        ([True, action, card, deal], "integer"),
        ([seat, action, str(card), deal], "integer"),
        ([seat, action, card, 1.0], "integer"),
        ([seat, [*action[:2], 0], card, deal], "unknown action"),
        ([seat, ["discard", str(action[1]), False], card, deal], "integer"),
        ([seat, ["draw", "deck", None], card, deal], "unknown action"),
    ):
        history = [data["history"][0], damaged, *data["history"][2:]]
        with pytest.raises(StateFormatError, match=why):
            loads(json.dumps({**data, "history": history}).encode())

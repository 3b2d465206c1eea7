"""Games from given deals (``new_game(deals=...)``, ``engine.records.deals.deal_from``) and
seeds mixed with a deployment's secret (``engine.seeds``)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from engine.cards import Card, parse_cards
from engine.errors import DealError, GameSetupError
from engine.game import (
    Deal,
    Discard,
    Draw,
    GameState,
    apply,
    dumps,
    loads,
    new_game,
    public_view,
    replay,
    view,
)
from engine.records.deals import deal_from, rotated, shuffled_deals
from engine.records.record import record_of
from engine.rules import Rules
from engine.seeds import mixed_seed, new_secret
from tests.engine.game_scenarios import choose
from tests.engine.test_records_speed import SPEED, speed_played, speed_played_from


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text.split()))


def sorted_hands(deal: Deal) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(sorted(hand)) for hand in deal.hands)


def finish(state: GameState, policy: int = 0) -> GameState:
    rng = random.Random(policy)
    while state.status == "playing":
        state = apply(state, state.turn, choose(state, rng))
    return state


ROUND_ONE = Deal((cards("3C 4C 5C"), cards("KH KD KS")), cards("7D")[0], cards("8H 9H"))


def test_a_given_deal_is_dealt_exactly_and_the_rest_is_shuffled() -> None:
    state = new_game(["a", "b"], "classic", 5, deals={1: ROUND_ONE})
    assert state.hands == sorted_hands(ROUND_ONE)  # a hand is kept sorted
    assert state.piles == ((ROUND_ONE.upcard,),)
    assert state.stock[-2:] == cards("9H 8H")  # the top (last) is drawn first
    assert Counter(state.stock) + Counter(c for h in state.hands for c in h) + Counter(
        state.piles[0]
    ) == Counter(Rules.from_spec("classic").pack(2))
    assert view(state, 0).deal_known
    assert public_view(state).deal_known
    assert not public_view(new_game(["a", "b"], "classic", 5)).deal_known


def test_rounds_not_given_are_shuffled_and_a_given_round_later_is_dealt_as_given() -> None:
    third = Deal((cards("AC 2C 3C 4C 5C"), cards("AH 2H 3H 4H 5H")), cards("JS")[0])
    state = new_game(["a", "b"], "classic", 5, deals={3: third})
    plain = new_game(["a", "b"], "classic", 5)
    assert state.hands == plain.hands  # round 1 is the seed's, as without deals
    rng = random.Random(2)
    while state.round < 3:
        state = apply(state, state.turn, choose(state, rng))
    assert state.hands == sorted_hands(third)
    assert state.piles[0] == (third.upcard,)


ROUND_ONE_AT_4 = Deal((cards("3C 4C 5C 6C 7C 8C"), cards("KH KD KS QH QD QS")), cards("7D")[0], ())


def test_a_game_of_given_deals_is_stored_and_read_back_with_them() -> None:
    state = new_game(["a", "b"], "classic", 5, deals={1: ROUND_ONE, 4: ROUND_ONE_AT_4})
    copy = loads(dumps(state))
    assert copy == state
    assert copy.deals == state.deals
    assert finish(copy, 3) == finish(state, 3)


@pytest.mark.parametrize(
    ("deals", "field", "round_number", "reason"),
    [
        ({1: Deal((cards("3C 4C"), cards("KH KD KS")), 1)}, "hands", 1, "seat 0 holds 2 cards"),
        ({1: Deal((cards("3C 4C 5C"),), 1)}, "hands", 1, "1 hands for 2 seats"),
        (
            {1: Deal((cards("3C 4C 5C"), cards("KH KD KS"), cards("2C 2D 2H")), 1)},
            "hands",
            1,
            "3 hands for 2 seats",
        ),
        ({1: Deal((cards("3C 4C 5C"), cards("KH KD KS")), cards("3C")[0])}, "upcard", 1, "3C more"),
        ({1: Deal((cards("3C 4C 5C"), cards("KH KD 5C")), 1)}, "hands[1]", 1, "5C more times"),
        ({1: Deal((cards("3C 4C 5C"), cards("KH KD JK")), 1)}, "hands[1]", 1, "has no JK"),
        ({1: Deal((cards("3C 4C 5C"), cards("KH KD KS")), 1, cards("2S 4C"))}, "stock", 1, "4C"),
        ({12: ROUND_ONE}, "round", None, "round 12 is not in the schedule"),
    ],
)
def test_deals_that_do_not_fit_are_refused_naming_the_field(
    deals: dict[int, Deal], field: str, round_number: int | None, reason: str
) -> None:
    with pytest.raises(DealError) as raised:
        new_game(["a", "b"], "classic", 5, deals=deals)
    assert raised.value.field == field
    assert raised.value.round == round_number
    assert reason in str(raised.value)


def test_five_crowns_deals_allow_two_copies_but_not_three() -> None:
    """Five-crowns: two decks of five suits, no aces or twos."""
    fine = Deal((cards("3X 3X 4X"), cards("KH KD KS")), cards("7D")[0])
    new_game(["a", "b"], "five-crowns", 1, deals={1: fine})
    with pytest.raises(DealError, match="the pack has no AC"):
        new_game(
            ["a", "b"], "five-crowns", 1, deals={1: Deal((cards("AC 3X 4X"), fine.hands[1]), 1)}
        )
    thrice = Deal((cards("3X 3X 4X"), cards("3X KD KS")), cards("7D")[0])
    with pytest.raises(DealError, match="3X more times") as raised:
        new_game(["a", "b"], "five-crowns", 1, deals={1: thrice})
    assert raised.value.field == "hands[1]"


# -- deal_from: the same deals at another table ---------------------------------------------------


@pytest.mark.parametrize("rotate", [0, 1, 3])
def test_deal_from_deals_the_same_hands_with_the_seats_rotated(rotate: int) -> None:
    names = ["a", "b", "c", "d"]
    first = finish(new_game(names, "classic", 21), 1)
    given = deal_from(first, rotate_seats=rotate)
    assert sorted(given.deals) == list(range(1, 12))
    second = new_game(names, "classic", 99, first_dealer=given.first_dealer, deals=given.deals)
    original = record_of(first).rounds[0]
    assert original.dealt is not None
    assert second.hands == tuple(original.dealt.hands[(s - rotate) % 4] for s in range(4))
    assert second.stock[::-1] == original.dealt.stock
    assert second.dealer == (original.dealer + rotate) % 4
    # The hand dealt first to the dealer's left is still played first.
    assert second.turn == (original.dealer + rotate + 1) % 4
    assert_dealt_again(first, finish(second, 7), rotate)


def assert_dealt_again(first: GameState, second: GameState, rotate: int) -> None:
    """Every round both games reached by the same number of deals was dealt to ``second``
    as to ``first``, each hand (and a speed deal's upcard) ``rotate`` seats on."""
    n = len(first.players)
    for theirs, ours in zip(record_of(first).rounds, record_of(second).rounds, strict=False):
        if theirs.round == ours.round and ours.deal == ours.round:
            assert ours.dealt is not None
            assert theirs.dealt is not None
            assert ours.dealt.hands == tuple(theirs.dealt.hands[(s - rotate) % n] for s in range(n))
            assert ours.upcards == tuple(
                theirs.upcards[(s - rotate) % n] for s in range(n) if theirs.upcards
            )


@pytest.mark.parametrize("rules", ["classic", SPEED])
def test_shuffled_deals_deal_every_table_the_same_hands_each_rotated_its_own_seats(
    rules: str | dict[str, object],
) -> None:
    """What a duplicate tournament round plays: one seed's deals at every table, table ``t``
    with the hands (and a speed game's upcards) moved ``t`` seats on, played to the end."""
    names = ["a", "b", "c", "d"]
    ruled = Rules.from_spec(rules)
    given = shuffled_deals(ruled, 4, seed=31, first_dealer=2)
    assert sorted(given.deals) == list(range(1, ruled.rounds + 1))
    games = []
    for table in range(4):
        moved = rotated(given, table, 4)
        assert moved.first_dealer == (2 + table) % 4
        state = new_game(
            names, ruled, 50 + table, first_dealer=moved.first_dealer, deals=moved.deals
        )
        games.append(speed_played_from(state, table) if rules == SPEED else finish(state, table))
    for table, played in enumerate(games):
        assert_dealt_again(games[0], played, table)
        assert deal_from(played).deals == rotated(given, table, 4).deals


def test_shuffled_deals_are_the_seed_s() -> None:
    rules = Rules.from_spec("classic")
    assert shuffled_deals(rules, 3, 5, 0) == shuffled_deals(rules, 3, 5, 0)
    assert shuffled_deals(rules, 3, 5, 0).deals != shuffled_deals(rules, 3, 6, 0).deals


def test_deal_from_an_unfinished_game_is_refused() -> None:
    with pytest.raises(DealError) as raised:
        deal_from(new_game(["a", "b"], "classic", 1))
    assert raised.value.field == "deal_from"


# -- speed games: a card turned up on every seat's pile ------------------------------------------


SPEED_ONE = Deal(
    (cards("3C 4C 5C"), cards("KH KD KS"), cards("9S 9D 9C")), None, cards("8H"), cards("2D 7S JH")
)


def test_a_given_speed_deal_turns_up_each_seat_s_upcard_on_its_own_pile() -> None:
    state = new_game(["a", "b", "c"], SPEED, 5, first_dealer=1, deals={1: SPEED_ONE})
    assert state.hands == sorted_hands(SPEED_ONE)
    assert state.piles == tuple((c,) for c in SPEED_ONE.upcards)
    assert state.stock[-1] == cards("8H")[0]
    assert view(state, 2).deal_known


@pytest.mark.parametrize("rotate", [0, 1, 2])
def test_deal_from_a_speed_game_moves_the_upcards_with_the_hands(rotate: int) -> None:
    first = speed_played(SPEED, 3, 21, 4)
    given = deal_from(first, rotate_seats=rotate)
    assert sorted(given.deals) == list(range(1, 12))
    second = new_game(
        ["a", "b", "c"], SPEED, 99, first_dealer=given.first_dealer, deals=given.deals
    )
    assert public_view(second).deal_known
    original = record_of(first).rounds[0]
    assert original.dealt is not None
    assert second.hands == tuple(original.dealt.hands[(s - rotate) % 3] for s in range(3))
    assert second.piles == tuple((original.upcards[(s - rotate) % 3],) for s in range(3))
    assert second.stock[::-1] == original.dealt.stock
    assert second.dealer == (original.dealer + rotate) % 3
    assert_dealt_again(first, speed_played_from(second, 8), rotate)


@pytest.mark.parametrize(
    ("rules", "deal", "field", "reason"),
    [
        (SPEED, dataclasses.replace(SPEED_ONE, upcard=cards("QS")[0]), "upcard", "give upcards"),
        (SPEED, dataclasses.replace(SPEED_ONE, upcards=cards("2D 7S")), "upcards", "2 upcards"),
        (SPEED, dataclasses.replace(SPEED_ONE, upcards=cards("3C 3C 7S")), "upcards", "3C more"),
        (
            "classic",
            dataclasses.replace(SPEED_ONE, upcard=cards("QS")[0]),
            "upcards",
            "give upcard",
        ),
        ("classic", dataclasses.replace(SPEED_ONE, upcards=()), "upcard", "turns up one card"),
    ],
)
def test_upcards_must_fit_the_way_the_game_is_played(
    rules: str | dict[str, object], deal: Deal, field: str, reason: str
) -> None:
    with pytest.raises(DealError, match=reason) as raised:
        new_game(["a", "b", "c"], rules, 5, deals={1: deal})
    assert raised.value.field == field


# -- seeds mixed with a secret --------------------------------------------------------------------


def test_the_same_seed_and_secret_deal_the_same_game_and_another_secret_another() -> None:
    secret, other = new_secret(), new_secret()
    assert secret != other
    same = [new_game(["a", "b", "c"], "classic", mixed_seed(4242, secret)) for _ in range(2)]
    assert same[0].hands == same[1].hands
    assert same[0].stock == same[1].stock
    elsewhere = new_game(["a", "b", "c"], "classic", mixed_seed(4242, other))
    assert elsewhere.stock != same[0].stock
    plain = new_game(["a", "b", "c"], "classic", 4242)
    assert plain.stock != same[0].stock
    assert mixed_seed(4242, secret) != mixed_seed(4243, secret)
    assert mixed_seed(1, "k") == mixed_seed(1, b"k")


def test_a_seed_must_be_an_integer_and_a_secret_not_empty() -> None:
    with pytest.raises(GameSetupError):
        mixed_seed("4242", "k")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        mixed_seed(1, "")


def test_a_given_round_dealt_again_under_double_naughts_is_shuffled() -> None:
    """Both seats melded (threes wild in round 1): the round is dealt again, from a shuffle,
    not the given deal (the same play would deal it for ever)."""
    melded = Deal((cards("4C 4D 4H"), cards("5C 5D 5H")), cards("KS")[0], cards("KH QH"))
    state = new_game(
        ["a", "b"],
        {"preset": "classic", "double_naughts": True},
        5,
        first_dealer=0,
        deals={1: melded},
    )
    state = apply(state, 1, Draw("stock"))  # the KH
    state = apply(state, 1, Discard(cards("KH")[0], go_out=True))
    state = apply(state, 0, Draw("stock"))  # the QH
    state = apply(state, 0, Discard(cards("QH")[0]))
    assert state.last_round is not None
    assert state.last_round.replayed
    assert (state.round, state.deal) == (1, 2)
    assert state.hands != sorted_hands(melded)
    assert len(state.shuffles) == 2


def test_a_replay_from_the_recorded_packs_keeps_to_them_with_the_deals_set_back() -> None:
    """The service rebuilds a past version from the recorded packs, then sets the seed and the
    given deals back (for ``seeded`` and ``deal_known``): the packs dealt stay the recorded
    ones, in their order."""
    state = finish(new_game(["a", "b"], "classic", 5, deals={1: ROUND_ONE, 4: ROUND_ONE_AT_4}), 3)
    rebuilt = replay(state.players, state.rules, state.shuffle_record, ())
    rebuilt = dataclasses.replace(rebuilt, seed=state.seed, deals=state.deals)
    for seat, action in state.log:
        rebuilt = apply(rebuilt, seat, action)
    assert rebuilt == state
    assert public_view(rebuilt).deal_known

"""The hint (engine.advice) and what a seat has seen (engine.seen).

The hint's figures are checked against a brute force that analyses every unseen copy of every
card with the slow reference analyser, in the small rounds of games played under every preset
and the options that change what a draw or a discard may do.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from engine.advice import DiscardHint, DrawHint, advise, draw_hint, hint
from engine.cards import parse_cards
from engine.draw_values import (
    MEMO_RULES,
    MEMO_SIZE,
    clear_memo,
    memo_counts,
    stock_mean_below,
    stock_value,
)
from engine.errors import NothingUnseen, PackError
from engine.game import Discard, Draw, GameState, Phase, apply, new_game, public_log, view
from engine.rules import PRESET_NAMES, Rules
from engine.seen import Sight, sight
from tests.engine.game_scenarios import cards, choose, stacked
from tests.engine.reference import reference_min_deadwood

VARIANTS = [
    {},
    {"discard_piles": "per_player"},
    {"discard_drawn_upcard": False, "first_lap_go_out": False},
    {"redemption": True, "failed_go_out": "penalty"},
    {"stock_exhausted": "end_round", "aces": "high_or_low"},
]


def rules_of(preset: str, variant: dict[str, object]) -> Rules:
    if preset == "five-crowns" and "aces" in variant:
        variant = {k: v for k, v in variant.items() if k != "aces"}
    return Rules.from_spec({"preset": preset, **variant})


def positions(rules: Rules, seed: int, players: int, last_round: int) -> Iterator[GameState]:
    """Every state of a purposeful random game up to the end of round ``last_round``."""
    state = new_game([f"p{i}" for i in range(players)], rules, seed)
    rng = random.Random(seed)
    while state.status == "playing" and state.round <= last_round:
        yield state
        state = apply(state, state.turn, choose(state, rng))


def seat_sight(state: GameState) -> Sight:
    seat = state.turn
    return sight(view(state, seat), public_log(state, seat), seat, state.rules)


def hidden_from(state: GameState, seat: int) -> Counter[int]:
    """The cards truly out of the seat's sight: the stock and every other hand."""
    hidden = Counter(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    return hidden


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(v) or "plain")
def test_unseen_holds_the_stock_and_nothing_the_seat_has_seen(
    preset: str, variant: dict[str, object]
) -> None:
    """Every card of the stock is one the stock may hold; every unseen card is in the stock or
    another hand, the deal's upcard too once a discard has covered it (the seat saw it)."""
    rules = rules_of(preset, variant)
    checked = 0
    for state in positions(rules, seed=7, players=3, last_round=4):
        check_unseen_and_stock(state)
        checked += 1
    assert checked > 20


def check_unseen_and_stock(state: GameState) -> Sight:
    """The sight's unseen cards and stock against the state: exact before a reshuffle; after
    one, the unseen cards are in other hands and the stock is the reshuffled cards, less at
    most those other seats drew from it since."""
    seen = seat_sight(state)
    unseen, stock = Counter(dict(seen.unseen)), Counter(dict(seen.stock))
    hidden = hidden_from(state, state.turn)
    assert not Counter(state.stock) - stock
    assert not unseen - hidden
    if not seen.stock_known:
        assert stock == unseen
    else:
        assert not unseen - (hidden - Counter(state.stock))  # in other hands only
        assert not stock - hidden
    return seen


def test_the_covered_upcard_counts_as_seen() -> None:
    """The deal's upcard, covered by the first discard before anybody took it, is no longer
    named by any log entry; the view's ``turned`` keeps it, and it is not unseen."""
    state = stacked(["7S 8S KD", "4H 5H 9C"], "2C", stock="QC JD")
    state = apply(state, 1, Draw("stock"))
    state = apply(state, 1, Discard(cards("9C")[0]))
    seen = seat_sight(state)
    assert view(state, 0).turned == cards("2C")[0]
    assert cards("2C")[0] not in dict(seen.unseen)
    assert seen.unseen_count == 52 - 3 - 2  # the hand and the pile (2C under 9C)


@pytest.mark.parametrize("variant", [{}, {"discard_piles": "per_player"}], ids=["shared", "own"])
@pytest.mark.parametrize("preset", ["classic", "five-crowns"])
def test_after_a_reshuffle_the_stock_is_the_old_pile_and_the_hint_says_so(
    preset: str, variant: dict[str, object]
) -> None:
    """Two seats that never go out run the stock dry. From the reshuffle on, the stock holds
    only the old pile's cards: right after it (before the other seat's unseen draws) the sight's
    stock is exactly the state's, and the hint's stock figures are those of the true stock."""
    rules = rules_of(preset, variant)
    state = new_game(["a", "b"], rules, 3)
    rng = random.Random(3)
    exact = known = 0
    just_reshuffled = False
    while len(state.shuffles) < 4 and state.round == 1:
        seat = state.turn
        if state.phase is Phase.DRAW:
            seen = check_unseen_and_stock(state)
            advice = draw_hint(seen)
            check_draw(seen, advice)
            if seen.stock_known:
                known += 1
                assert "reshuffled" in advice.reason
            if just_reshuffled:  # nobody has drawn from the new stock yet
                assert seen.stock_known
                assert Counter(dict(seen.stock)) == Counter(state.stock)
                exact += 1
            state = apply(state, seat, Draw("stock"))
            just_reshuffled = False
        else:
            shuffles = len(state.shuffles)
            state = apply(state, seat, Discard(rng.choice(state.hands[seat])))
            just_reshuffled = len(state.shuffles) > shuffles
    assert known > 10
    assert exact == 2  # the first two of three reshuffles


def test_on_a_last_turn_the_chance_is_to_end_the_round_with_no_points() -> None:
    """Seat 1 goes out; on seat 0's last turn the stock's chance is the share of unseen cards
    that meld 7S 8S KD in full (6S, 9S and the four wild threes: 6 of 47), not 0."""
    state = stacked(["7S 8S KD", "4H 5H 6H"], "2C", stock="QC")
    state = apply(state, 1, Draw("stock"))
    state = apply(state, 1, Discard(cards("QC")[0], go_out=True))
    seen = seat_sight(state)
    advice = draw_hint(seen)
    check_draw(seen, advice)
    assert advice.options[0].go_out_chance == pytest.approx(6 / 47)
    assert "end the round with no points" in advice.reason


def test_advise_with_nothing_unseen_names_seen() -> None:
    """The hand, the upcard and the seen cards take the whole pack: no stock figure exists."""
    rules = Rules.from_spec("classic")
    pack = sorted(rules.pack(2))
    hand, upcard, seen = pack[:12], pack[12], pack[13:]
    with pytest.raises(NothingUnseen) as raised:
        advise(hand, 12, rules, upcard=upcard, seen=seen, players=2)
    assert raised.value.field == "seen"
    assert isinstance(raised.value, PackError)
    # After the draw no stock figure is given: the same cards are fine.
    assert isinstance(advise([*hand, upcard], 12, rules, seen=seen, players=2), DiscardHint)


# -- the hint against a brute force -----------------------------------------------------------


def brute_kept(hand: list[int], wild: int, rules: Rules, forbidden: int | None) -> int:
    """The least deadwood after the best discard, every discard tried with the reference."""
    return min(
        reference_min_deadwood(hand[:i] + hand[i + 1 :], wild, rules)
        for i, c in enumerate(hand)
        if c != forbidden or hand.count(c) > 1
    )


def check_draw(seen: Sight, advice: DrawHint) -> None:
    copies = [c for c, n in seen.stock for _ in range(n)]
    hand = list(seen.hand)
    kept = [brute_kept([*hand, c], seen.wild, seen.rules, None) for c in copies]
    stock = advice.options[0]
    assert stock.source == "stock"
    assert stock.expected_deadwood == pytest.approx(sum(kept) / len(kept))
    # Ends the round with no points: goes out, or on a last turn keeps a melded hand.
    ends_at_zero = seen.may_go_out or seen.out_seat not in (None, seen.seat)
    chance = sum(k == 0 for k in kept) / len(kept) if ends_at_zero else 0.0
    assert stock.go_out_chance == pytest.approx(chance)
    assert advice.stock_known == seen.stock_known
    assert [(o.pile, o.card) for o in advice.options[1:]] == list(seen.tops)
    for option in advice.options[1:]:
        assert option.card is not None
        forbidden = None if seen.rules.discard_drawn_upcard else option.card
        exact = brute_kept([*hand, option.card], seen.wild, seen.rules, forbidden)
        assert option.expected_deadwood == exact
        assert option.go_out_chance == (1.0 if exact == 0 and ends_at_zero else 0.0)
    assert advice.advised.expected_deadwood == min(o.expected_deadwood for o in advice.options)


def check_discard(seen: Sight, advice: DiscardHint) -> None:
    hand = list(seen.hand)
    forbidden = seen.forbidden_discard
    expected = {
        c: reference_min_deadwood(hand[:i] + hand[i + 1 :], seen.wild, seen.rules)
        for i, c in enumerate(hand)
        if c != forbidden
    }
    assert {d.card: d.deadwood_points for d in advice.discards} == expected
    points = [d.deadwood_points for d in advice.discards]
    assert points == sorted(points)
    assert advice.suggested == advice.discards[0].card
    for d in advice.discards:
        assert d.go_out == (d.deadwood_points == 0 and seen.may_go_out)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(v) or "plain")
def test_hint_matches_a_brute_force_over_the_unseen_cards(
    preset: str, variant: dict[str, object]
) -> None:
    """In rounds 1 and 2 (3 and 4 cards), at every turn of a game: each draw's mean deadwood
    and go-out chance, and every discard's deadwood, as the reference analyser finds them."""
    rules = rules_of(preset, variant)
    phases: Counter[Phase] = Counter()
    for state in positions(rules, seed=11, players=2, last_round=2):
        if state.version % 3:  # a third of the positions: the brute force is slow
            continue
        seen = seat_sight(state)
        advice = hint(seen)
        if isinstance(advice, DrawHint):
            check_draw(seen, advice)
        else:
            check_discard(seen, advice)
        assert seen.phase is not None
        phases[seen.phase] += 1
    assert phases[Phase.DRAW]
    assert phases[Phase.DISCARD]


# -- stateless advice -----------------------------------------------------------------------------


def test_advise_draw_phase_counts_the_seen_cards_out_of_the_stock() -> None:
    """The stock's mean leaves out the seen cards; the upcard 6H melds 4H 5H: take it."""
    rules = Rules.from_spec("classic")
    hand = parse_cards(["4H", "5H", "KS"])
    seen = parse_cards(["3H", "7H"])
    upcard = parse_cards(["6H"])[0]
    advice = advise(hand, 3, rules, upcard=upcard, seen=seen, players=2)
    assert isinstance(advice, DrawHint)
    unseen = [c for c in rules.pack(2) if c not in {*hand, *seen, upcard}]
    kept = [brute_kept([*hand, c], 3, rules, None) for c in unseen]
    assert advice.options[0].expected_deadwood == pytest.approx(sum(kept) / len(kept))
    assert advice.options[1].expected_deadwood == 0
    assert advice.options[1].go_out_chance == 1.0
    assert advice.advised == advice.options[1]
    assert advice.reason == "Take the 6H from the discard pile: it lets you go out."


def test_advise_discard_phase_suggests_going_out() -> None:
    advice = advise(parse_cards(["4H", "5H", "6H", "KS"]), 9, Rules.from_spec("classic"))
    assert isinstance(advice, DiscardHint)
    assert advice.suggested == parse_cards(["KS"])[0]
    assert advice.discards[0].go_out
    assert "go out" in advice.reason


@pytest.mark.parametrize(
    ("hand", "seen", "field"),
    [
        (["4H", "4H", "5S"], [], "hand"),  # one deck: one 4H
        (["4X", "5S", "6S"], [], "hand"),  # stars in a four-suit pack
        (["4H", "5S", "6S"], ["4H"], "seen"),
    ],
)
def test_advise_refuses_cards_the_pack_cannot_hold(
    hand: list[str], seen: list[str], field: str
) -> None:
    with pytest.raises(PackError) as raised:
        advise(parse_cards(hand), 3, Rules.from_spec("classic"), seen=parse_cards(seen))
    assert raised.value.field == field


def test_the_bounded_stock_mean_is_the_mean_or_none_at_the_bound() -> None:
    """``stock_mean_below`` answers ``stock_value``'s mean when it is at most the bound, None
    when it is over, on the hands of a game's positions (the look-ahead's branch and bound)."""
    rules = Rules.from_spec("online")
    checked = 0
    for state in positions(rules, seed=5, players=3, last_round=6):
        seen = seat_sight(state)
        if seen.phase is not Phase.DRAW:
            continue
        mean, _ = stock_value(seen.hand, seen.wild, rules, seen.unseen)
        for bound in (mean - 0.5, mean, mean + 0.5, 0.0):
            found = stock_mean_below(seen.hand, seen.wild, rules, seen.unseen, bound)
            assert found == (pytest.approx(mean) if mean <= bound else None)
        checked += 1
    assert checked > 10


# -- the memos ----------------------------------------------------------------------------------


def test_the_memos_are_bounded_in_rules_values_and_in_hands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``advise`` takes any rules value from anybody: forty of them keep ``MEMO_RULES`` memos
    (the least recently used dropped, and counted), and a memo that fills starts afresh."""
    clear_memo()
    before = memo_counts()
    hand, upcard = cards("4H 5H KS"), cards("9C")[0]
    for penalty in range(1, 41):
        rules = Rules.from_spec({"preset": "classic", "failed_go_out_penalty": penalty})
        advise(hand, 3, rules, upcard=upcard)
    counts = memo_counts()
    assert counts.memos == MEMO_RULES
    assert counts.memos_dropped - before.memos_dropped == 40 - MEMO_RULES
    assert 0 < counts.hands <= MEMO_RULES * MEMO_SIZE
    monkeypatch.setattr("engine.draw_values.MEMO_SIZE", 8)
    clear_memo()
    # Two wilds (threes): no drawn card is dead, each of 48 is analysed.
    advise(cards("3H 3S KS"), 3, Rules.from_spec("classic"), upcard=upcard)
    counts = memo_counts()
    assert counts.hands <= 8
    assert counts.memos_cleared > before.memos_cleared

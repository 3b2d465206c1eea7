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

from engine.advice import (
    MEMOS_KEPT,
    DiscardHint,
    DrawHint,
    PackError,
    advise,
    hint,
    kept_after,
    memos_held,
    stock_mean_below,
    stock_value,
)
from engine.cards import parse_cards
from engine.game import GameState, Phase, apply, new_game, public_log, view
from engine.rules import PRESET_NAMES, Rules
from engine.seen import Sight, sight
from tests.engine.game_scenarios import choose
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
    """Every card of the stock is unseen; every unseen card is in the stock or another hand,
    but for one: the deal's upcard, once covered before anybody took it."""
    rules = rules_of(preset, variant)
    checked = 0
    for state in positions(rules, seed=7, players=3, last_round=4):
        seen = seat_sight(state)
        unseen = Counter(dict(seen.unseen))
        hidden = hidden_from(state, state.turn)
        assert not Counter(state.stock) - unseen
        assert sum((unseen - hidden).values()) <= 1
        checked += 1
    assert checked > 20


# -- the hint against a brute force -----------------------------------------------------------


def brute_kept(hand: list[int], wild: int, rules: Rules, forbidden: int | None) -> int:
    """The least deadwood after the best discard, every discard tried with the reference."""
    return min(
        reference_min_deadwood(hand[:i] + hand[i + 1 :], wild, rules)
        for i, c in enumerate(hand)
        if c != forbidden or hand.count(c) > 1
    )


def check_draw(seen: Sight, advice: DrawHint) -> None:
    copies = [c for c, n in seen.unseen for _ in range(n)]
    hand = list(seen.hand)
    kept = [brute_kept([*hand, c], seen.wild, seen.rules, None) for c in copies]
    stock = advice.options[0]
    assert stock.source == "stock"
    assert stock.expected_deadwood == pytest.approx(sum(kept) / len(kept))
    chance = sum(k == 0 for k in kept) / len(kept) if seen.may_go_out else 0.0
    assert stock.go_out_chance == pytest.approx(chance)
    assert [(o.pile, o.card) for o in advice.options[1:]] == list(seen.tops)
    for option in advice.options[1:]:
        assert option.card is not None
        forbidden = None if seen.rules.discard_drawn_upcard else option.card
        exact = brute_kept([*hand, option.card], seen.wild, seen.rules, forbidden)
        assert option.expected_deadwood == exact
        assert option.go_out_chance == (1.0 if exact == 0 and seen.may_go_out else 0.0)
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


def test_the_memos_of_many_rules_values_are_bounded() -> None:
    """Issue 32, finding 7: one memo was kept for every rules value ever asked about, so a
    client sending a new one with each request grew the process without bound."""
    hand = tuple(sorted(parse_cards(["4H", "5H", "7C", "KS"])))
    for bonus in (0, -5, -10):
        for wild in range(1, 14):
            kept_after(hand, wild, Rules.from_spec({"preset": "classic", "going_out_bonus": bonus}))
    assert memos_held() == MEMOS_KEPT  # 39 asked about


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

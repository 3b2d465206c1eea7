"""The analyser on hands written as card codes: each rule of RULES.md that changes melds, points."""

from __future__ import annotations

import pytest

from engine import HandError, Rules, analyse, min_deadwood
from engine.cards import format_card, parse_cards
from engine.errors import CardCodeError


def codes(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [format_card(c) for c in cards]


def melds_of(
    hand: str, wild: str | None, rules: Rules | str = "classic"
) -> list[tuple[str, list[str]]]:
    return [(m.kind, codes(m.cards)) for m in analyse(hand.split(), wild, rules).melds]


def test_eights_wild_make_4h_8s_6h_a_run() -> None:
    result = analyse(["4H", "8S", "6H"], "8")
    assert result.melded
    (meld,) = result.melds
    assert meld.kind == "run"
    assert codes(meld.cards) == ["4H", "8S", "6H"]
    assert codes([s for s in meld.stands_for if s is not None]) == ["5H"]


def test_the_api_example() -> None:
    result = analyse(["4H", "8S", "6H", "KD"], "8")
    assert codes(result.deadwood) == ["KD"]
    assert result.deadwood_points == 10
    assert not result.melded
    assert format_card(result.suggested_discard or -1) == "KD"
    assert result.discards[0].deadwood_points == 0
    assert result.can_go_out


def test_q_k_a_is_a_run_only_when_aces_may_play_high() -> None:
    assert min_deadwood(["QH", "KH", "AH"], None, "classic") == 21
    assert min_deadwood(["QH", "KH", "AH"], None, {"preset": "classic", "aces": "high_or_low"}) == 0
    assert min_deadwood(["QH", "KH", "AH"], None, "online") == 0


def test_k_a_2_never_wraps() -> None:
    for rules in ("classic", "online"):
        assert analyse(["KH", "AH", "2H"], None, rules).melds == ()


def test_an_ace_plays_low_or_high_never_both() -> None:
    # Q K A 2 3 of hearts: one ace cannot close both Q-K-A and A-2-3.
    assert min_deadwood(["QH", "KH", "AH", "2H", "3H"], None, "online") == 5  # 2+3 left, or Q+K
    # With a second ace (two decks) both runs stand.
    assert min_deadwood(["QH", "KH", "AH", "AH", "2H", "3H"], None, "online") == 0


def test_identical_cards_from_several_decks_make_a_set() -> None:
    assert melds_of("9C 9C 9H", None) == [("set", ["9C", "9C", "9H"])]


def test_identical_cards_cannot_share_a_run() -> None:
    assert min_deadwood(["5H", "5H", "6H"], None) == 16


def test_a_card_belongs_to_one_meld_only() -> None:
    # 6S could finish the run or the set, not both: two cards stay out either way.
    result = analyse(["5S", "6S", "7S", "6H", "6C"], None)
    assert len(result.deadwood) == 2
    assert result.deadwood_points == 12


def test_last_rounds_wild_rank_is_ordinary_again() -> None:
    # Round 2 (fours wild): the threes of round 1 are plain threes.
    assert min_deadwood(["3H", "3S", "9C"], "4") == 15
    assert min_deadwood(["3H", "3S", "9C"], "3") == 0


def test_a_meld_of_wilds_only_follows_the_rules() -> None:
    jokers = {"preset": "classic", "jokers": 4}
    hand = ["JK", "JK", "JK"]
    assert min_deadwood(hand, "8", jokers) == 0
    assert min_deadwood(hand, "8", {**jokers, "all_wild_melds": False}) == 60
    # A joker and two eights playing as themselves are a set of eights, not an all-wild meld.
    assert min_deadwood(["JK", "8S", "8H"], "8", {**jokers, "all_wild_melds": False}) == 0


def test_at_most_one_wild_per_meld() -> None:
    one = {"preset": "classic", "max_wilds_per_meld": 1}
    assert min_deadwood(["4H", "8S", "6H"], "8", one) == 0
    assert min_deadwood(["4H", "8S", "8C"], "8", "classic") == 0
    assert min_deadwood(["4H", "8S", "8C"], "8", one) == 4 + 8 + 8  # 4H and one wild: no meld
    assert min_deadwood(["4H", "5H", "8S", "8C"], "8", one) == 8  # 4H 5H 8=6H, one eight left over
    assert min_deadwood(["4H", "5H", "8S", "8C", "9D", "9S"], "8", one) == 0


def test_spare_wilds_join_a_meld_or_make_their_own() -> None:
    assert min_deadwood(["5H", "6H", "7H", "JK", "JK"], None, "online") == 0
    assert min_deadwood(["JK", "JK", "JK", "JK"], None, "online") == 0
    # One wild per meld: the run takes one joker, the other stays out.
    one = {"preset": "online", "max_wilds_per_meld": 1}
    assert min_deadwood(["5H", "6H", "JK", "JK"], None, one) == 50
    # A run holds one wild however long it is; splitting it leaves a two-card stub.
    assert min_deadwood(["5H", "6H", "7H", "JK", "JK"], None, one) == 50
    assert min_deadwood(["5H", "6H", "7H", "8H", "JK", "JK"], None, one) == 0  # 5 6 JK, 7 8 JK


def test_a_full_length_run_has_no_room_for_another_wild_but_can_be_split() -> None:
    hearts = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
    # Low aces: A..K is 13 long; a wild can only help by splitting off the top: A..T, W J Q K.
    assert min_deadwood(f"{hearts} JK".split(), None, {"preset": "classic", "jokers": 2}) == 0


def test_unmatched_wilds_and_jokers_cost_what_the_rules_say() -> None:
    assert analyse(["KS", "2C"], "K", "classic").deadwood_points == 12
    assert analyse(["KS", "2C"], "K", "online").deadwood_points == 52
    assert analyse(["KX", "4C"], "K", "five-crowns").deadwood_points == 24
    assert analyse(["JK", "4C"], "K", "five-crowns").deadwood_points == 54
    assert (
        analyse(
            ["JK", "4C"], "K", {"preset": "classic", "jokers": 2, "joker_points": 20}
        ).deadwood_points
        == 24
    )


def test_ace_and_face_points_are_options() -> None:
    hand = ["AS", "JD", "QC", "KH"]
    assert min_deadwood(hand, None, "classic") == 31
    assert (
        min_deadwood(
            hand, None, {"preset": "classic", "ace_points": 15, "face_points": [11, 12, 13]}
        )
        == 51
    )


def test_the_cheapest_wilds_are_left_over() -> None:
    # One meld needs one wild; the 50-point joker plays and the 20-point wild rank stays out
    # when both cannot be placed (one wild per meld).
    one = {"preset": "five-crowns", "max_wilds_per_meld": 1}
    result = analyse(["5X", "6X", "JK", "KX"], "K", one)
    assert codes(result.deadwood) == ["KX"]
    assert result.deadwood_points == 20


def test_five_crowns_runs_use_stars_and_stop_at_three() -> None:
    assert min_deadwood(["9X", "TX", "JX"], None, "five-crowns") == 0
    # No aces or twos: 3-4 plus a wild is 3-4-5, never 2-3-4, and runs are at most 11 long.
    assert min_deadwood(["3X", "4X", "7C"], "7", "five-crowns") == 0
    whole = "3X 4X 5X 6X 7X 8X 9X TX JX QX KX"
    assert min_deadwood(f"{whole} JK".split(), None, "five-crowns") == 0
    result = analyse(f"{whole} JK".split(), None, "five-crowns")
    assert all(len(m.cards) <= 11 for m in result.melds)


def test_a_long_run_with_gaps_filled_by_wilds() -> None:
    result = analyse(["3S", "5S", "7S", "9S", "JK", "JK", "JK"], None, "online")
    assert result.melded


def test_gin_style_hands_with_no_wild_rank() -> None:
    hand = ["AS", "2S", "3S", "7H", "7D", "7C", "9C", "TC", "JC", "KD"]
    result = analyse(hand, None)
    assert result.deadwood_points == 10
    assert codes(result.deadwood) == ["KD"]


def test_a_one_card_hand_has_no_discards() -> None:
    result = analyse(["7C"], None)
    assert result.discards == ()
    assert result.suggested_discard is None
    assert not result.can_go_out
    assert result.deadwood_points == 7


def test_discards_are_ranked_best_first_with_one_entry_per_distinct_card() -> None:
    result = analyse(["9C", "9C", "9H", "2D"], None)
    assert [(format_card(d.card), d.deadwood_points) for d in result.discards] == [
        ("2D", 0),
        ("9C", 20),
        ("9H", 20),
    ]


def test_cards_may_be_given_as_ints() -> None:
    assert min_deadwood(parse_cards(["4H", "8S", "6H"]), 8, "classic") == 0


@pytest.mark.parametrize(
    ("hand", "wild", "rules", "error", "message"),
    [
        ([], None, "classic", HandError, "1 to 30"),
        (["2C"] * 31, None, "classic", HandError, "not 31"),
        (["ZZ"], None, "classic", CardCodeError, "'ZZ'"),
        (["7X"], None, "classic", HandError, "7X is not in the classic pack"),
        (["AS"], None, "five-crowns", HandError, "AS is not in the five-crowns pack"),
        (["JK"], None, "classic", HandError, "JK is not in the classic pack"),
        (["4C"], "2", "five-crowns", HandError, "wild rank 2"),
        (["4C"], "Z", "classic", CardCodeError, "'Z'"),
    ],
)
def test_bad_hands_are_refused_with_what_was_wrong(
    hand: list[str], wild: str | None, rules: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        analyse(hand, wild, rules)


def test_thirty_cards_is_the_limit_and_is_exact() -> None:
    hand = ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH " * 2 + "2C 2D 2S JK").split()
    assert len(hand) == 30
    assert min_deadwood(hand, None, {"preset": "classic", "jokers": 1}) == 0


def test_dear_penalties_keep_exact_discard_values() -> None:
    """Penalties of up to 1,000 a card: a large hand's deadwood runs into thousands, and every
    discard's value (ranked with the memo the hand's search shares) matches a search of the hand
    without that card on its own."""
    rules = {"preset": "online", "face_points": [1000, 1000, 1000], "ace_points": 1000}
    # Two cards of every rank, in suits two ranks apart: no meld without the joker.
    naturals = [format_card(s * 13 + r - 1) for r in range(1, 14) for s in (r % 4, (r + 2) % 4)]
    hand = [*naturals, "JK"]
    analysis = analyse(hand, None, rules)
    # Every card is deadwood but J, K and A of diamonds, which the joker (as the queen) melds.
    total = 2 * (4 * 1000 + sum(range(2, 11)))
    assert analysis.deadwood_points == total - 3000
    assert [format_card(c) for c in analysis.melds[0].cards] == ["JD", "JK", "KD", "AD"]
    assert len(analysis.discards) == len(set(hand))
    for discard in analysis.discards:
        rest = list(hand)
        rest.remove(format_card(discard.card))
        assert discard.deadwood_points == min_deadwood(rest, None, rules), discard


# -- a card of the wild rank may stand for itself (RULES.md, "Wild cards") -----------------------

ONE_WILD = {"preset": "classic", "max_wilds_per_meld": 1}
NO_ALL_WILD = {"preset": "classic", "all_wild_melds": False}


def test_a_wild_rank_card_standing_for_itself_fills_a_run_with_no_wild() -> None:
    for rules in ("classic", ONE_WILD, NO_ALL_WILD):
        (meld,) = analyse(["7S", "8S", "9S"], "8", rules).melds
        assert meld.kind == "run"
        assert codes(meld.cards) == ["7S", "8S", "9S"]
        assert meld.stands_for == (None, None, None), rules


def test_three_eights_are_a_set_of_eights_whatever_the_limits() -> None:
    for rules in ("classic", ONE_WILD, NO_ALL_WILD):
        result = analyse(["8S", "8D", "8C"], "8", rules)
        assert result.melded, rules
        (meld,) = result.melds
        assert meld.kind == "set"
        assert meld.stands_for == (None, None, None)


def test_two_eights_and_a_joker_are_a_set_of_eights_with_one_wild() -> None:
    rules = {**ONE_WILD, "jokers": 2}
    result = analyse(["8S", "8D", "JK"], "8", rules)
    (meld,) = result.melds
    assert sorted(codes(meld.cards)) == ["8D", "8S", "JK"]
    stands = dict(zip(codes(meld.cards), meld.stands_for, strict=True))
    assert stands["8S"] is None
    assert stands["8D"] is None
    assert stands["JK"] in parse_cards(["8C", "8H"])  # an eight the set lacks


def test_five_jacks_under_one_wild_a_meld_leave_31_not_91() -> None:
    hand = ["QC", "5S", "JH", "JC", "8S", "TH", "JD", "JH", "JS", "AD", "7C"]
    assert min_deadwood(hand, "J", ONE_WILD) == 31
    result = analyse(hand, "J", ONE_WILD)
    assert result.deadwood_points == 31
    for meld in result.melds:
        assert len([s for s in meld.stands_for if s is not None]) <= 1


def test_a_three_in_its_own_run_under_one_wild_a_meld_leaves_10_not_20() -> None:
    # 3C 4C and the other three as the wild make a run; the ten is left.
    hand = ["TD", "3C", "3D", "4C"]
    assert min_deadwood(hand, "3", ONE_WILD) == 10
    result = analyse(hand, "3", ONE_WILD)
    assert codes(result.deadwood) == ["TD"]
    (meld,) = result.melds
    assert meld.kind == "run"
    stands = dict(zip(codes(meld.cards), meld.stands_for, strict=True))
    assert stands["3C"] is None
    assert stands["4C"] is None
    assert stands["3D"] in parse_cards(["2C", "5C"])


def test_an_unmatched_wild_rank_card_costs_the_wild_penalty_either_way() -> None:
    rules = {"preset": "online", "max_wilds_per_meld": 1}
    # 8H plays as itself nowhere here; left over it costs 50 as any wild.
    assert min_deadwood(["8H", "KS", "2C"], "8", rules) == 50 + 13 + 2

"""Random games, checked after every action against what RULES.md says must hold.

A referee follows each game: every card of the pack in exactly one place, the turn order, the
dealer and the wild rank of each round, hand sizes, exactly one last turn for every other seat
after a go-out, each round's scores against the analyser's optimum and the options that change
them, totals, winners, and views that show nothing a seat may not see. Every game is then
replayed from its log and round-tripped through ``dumps``/``loads``.

``GAME_EXAMPLES`` (environment, default 10) sets the number of whole games; sixteen times as
many partial games of uniformly random actions are played. The default keeps the module under a
minute on one core; ``GAME_EXAMPLES=1000`` is the thorough run (about 17 000 games).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from engine.analysis import min_deadwood
from engine.cards import Card
from engine.errors import EngineError
from engine.game import (
    Action,
    Discard,
    Draw,
    GameState,
    GameView,
    LayOff,
    Phase,
    RoundResult,
    Sealed,
    apply,
    chunk_in,
    dumps,
    dumps_parts,
    legal_actions,
    loads,
    loads_parts,
    new_game,
    pack_in,
    public_log,
    public_view,
    replay,
    result_in,
    sealed_of,
    view,
)
from engine.rules import Rules
from tests.engine.game_scenarios import choose
from tests.engine.reference import is_valid_meld

EXAMPLES = int(os.environ.get("GAME_EXAMPLES", "10"))
# Shrinking a whole game takes minutes and rarely gets shorter: report the example as drawn.
NO_SHRINK = (Stage.explicit, Stage.reuse, Stage.generate)

VIEW_FIELDS = {
    "version",
    "status",
    "round",
    "rounds",
    "wild",
    "dealer",
    "turn",
    "phase",
    "out_seat",
    "stock_count",
    "discard_top",
    "discard_tops",
    "players",
    "last_round",
    "winners",
    "hand",
    "active",
    "tiebreak",
    "last_turns",
    "upcard",
    "table",
    "seeded",
    "deal",
    "call",
    "out_seats",
    "turned",
    "turned_up",
    "deal_known",
}


# -- game configurations --------------------------------------------------------------------------


@st.composite
def configurations(draw: st.DrawFn) -> tuple[Rules, int, int | None]:
    preset = draw(st.sampled_from(["classic", "classic", "online", "five-crowns"]))
    base = Rules.from_spec(preset)
    spec: dict[str, Any] = {"preset": preset}
    spec["going_out_bonus"] = draw(st.sampled_from([0, -5, -10, "minus_wild"]))
    spec["failed_go_out"] = draw(st.sampled_from(["reject", "penalty"]))
    spec["first_lap_go_out"] = draw(st.booleans())
    spec["doubled_late_rounds"] = draw(st.booleans())
    schedules = ["up", "down", "up_down"] + (["extended"] if base.low_rank == 1 else [])
    spec["schedule"] = draw(st.sampled_from(schedules))
    spec["double_naughts"] = draw(st.booleans())
    spec["discard_piles"] = draw(st.sampled_from(["shared", "per_player"]))
    if spec["discard_piles"] == "per_player":
        spec["joker_discards"] = draw(st.sampled_from(["own_pile", "any_pile"]))
    spec["redemption"] = draw(st.booleans())
    spec["stock_exhausted"] = draw(st.sampled_from(["reshuffle", "end_round"]))
    spec["tie"] = draw(st.sampled_from(["shared", "tiebreak"]))
    spec["discard_drawn_upcard"] = draw(st.booleans())
    if base.low_rank == 1:
        spec["aces"] = draw(st.sampled_from(["low", "high_or_low"]))
    if draw(st.integers(0, 4)) == 0:
        spec["max_wilds_per_meld"] = 1
    elif preset == "classic" and draw(st.booleans()):
        spec["jokers"] = 2
    rules = Rules.from_spec(spec)
    players = draw(st.integers(rules.min_players, rules.max_players))
    seed = draw(st.one_of(st.none(), st.integers(0, 2**64)))
    return rules, players, seed


# -- the referee ----------------------------------------------------------------------------------


def placed_cards(state: GameState) -> Counter[Card]:
    placed: Counter[Card] = Counter(state.stock)
    for cards in (*state.hands, *state.piles):
        placed.update(cards)
    for melds in state.table:
        for meld in melds:
            placed.update(meld.cards)
    return placed


def seats_after(seat: int, active: tuple[int, ...], n: int) -> list[int]:
    return [s for s in ((seat + k) % n for k in range(1, n + 1)) if s in active]


class Referee:
    """Follows one game and checks it after every action."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.rules = state.rules
        self.n = len(state.players)
        self.pack = Counter(self.rules.pack(self.n))
        self.last_turns_due: list[int] | None = None
        self.rounds_scored = 0
        self.go_outs = 0
        self.round_ends = 0
        self.check_state(state)
        self.check_new_round(state)

    # -- one action ------------------------------------------------------------------------------

    def play(self, seat: int, action: Action, *, check_unchanged: bool = False) -> GameState:
        old = self.state
        before = dumps(old) if check_unchanged else b""
        new = apply(old, seat, action)
        if check_unchanged:
            assert dumps(old) == before, "apply changed the state it was given"
        assert new.version == old.version + 1
        assert new.last_record is not None
        assert (new.last_record.seat, new.last_record.action) == (seat, action)
        self.check_state(new)
        round_over = new.deal != old.deal or new.status == "finished"
        match action:
            case Draw():
                self.check_draw(old, seat, action, new)
            case Discard():
                self.check_discard(old, seat, action, new, round_over)
            case LayOff():
                assert new.turn == seat
                assert new.phase is Phase.DISCARD
        if round_over:
            self.check_round_end(old, seat, action, new)
            if new.status == "playing":
                self.check_new_round(new)
        self.state = new
        return new

    def check_draw(self, old: GameState, seat: int, action: Draw, new: GameState) -> None:
        assert old.phase is Phase.DRAW
        assert new.turn == seat
        assert new.phase is Phase.DISCARD
        if action.source == "stock":
            taken = old.stock[-1]
            assert new.stock == old.stock[:-1]
        else:
            pile = 0 if action.pile is None else action.pile
            if old.rules.discard_piles == "per_player" and action.pile is None:
                pile = seat
            taken = old.piles[pile][-1]
            assert new.piles[pile] == old.piles[pile][:-1]
            assert new.upcard == taken
        assert Counter(new.hands[seat]) == Counter(old.hands[seat]) + Counter([taken])
        if new.version % 11 == 0:
            self.check_listed_go_outs(new, seat)

    def check_listed_go_outs(self, state: GameState, seat: int) -> None:
        """legal_actions lists a go-out for exactly the cards whose discard leaves no deadwood."""
        rules = self.rules
        listed = {a.card for a in legal_actions(state, seat) if isinstance(a, Discard) and a.go_out}
        allowed = state.out_seat is None and (
            rules.first_lap_go_out or state.turns_done >= len(state.active)
        )
        hand = list(state.hands[seat])
        expected = set()
        if allowed:
            for c in set(hand):
                rest = list(hand)
                rest.remove(c)
                if rules.failed_go_out == "penalty" or min_deadwood(rest, state.wild, rules) == 0:
                    expected.add(c)
        upcard = state.upcard
        if not rules.discard_drawn_upcard and upcard is not None and hand.count(upcard) == 1:
            expected.discard(upcard)
        assert listed == expected

    def check_discard(
        self, old: GameState, seat: int, action: Discard, new: GameState, round_over: bool
    ) -> None:
        assert old.phase is Phase.DISCARD
        if not self.rules.discard_drawn_upcard and action.card == old.upcard:
            assert old.hands[seat].count(action.card) > 1, "discarded the upcard just drawn"
        went_out = (
            action.go_out
            and old.out_seat is None
            and (
                new.out_seat == seat
                or (round_over and new.last_round is not None and new.last_round.out_seat == seat)
            )
        )
        if action.go_out and not went_out:
            assert self.rules.failed_go_out == "penalty", "a failed go-out was not rejected"
        if went_out:
            self.go_outs += 1
            rest = list(old.hands[seat])
            rest.remove(action.card)
            wild = self.rules.wild_rank(min(old.round, self.rules.rounds))
            assert min_deadwood(rest, wild, self.rules) == 0 if rest else True
            if not self.rules.first_lap_go_out:
                assert old.turns_done >= len(old.active), "went out before a full lap"
            self.last_turns_due = seats_after(seat, old.active, self.n)[:-1]
        elif self.last_turns_due is not None:
            assert self.last_turns_due, "a turn after every last turn was played"
            assert seat == self.last_turns_due.pop(0), "last turns out of order"
        if round_over:
            return
        expected = seats_after(seat, old.active, self.n)[0]
        assert new.turn == expected
        assert new.phase is Phase.DRAW
        if self.last_turns_due is not None:
            assert new.last_turns == len(self.last_turns_due)

    # -- rounds ----------------------------------------------------------------------------------

    def check_new_round(self, state: GameState) -> None:
        rules = self.rules
        self.last_turns_due = None
        assert state.dealer == (state.first_dealer + state.round - 1) % self.n
        assert state.turn == seats_after(state.dealer, state.active, self.n)[0]
        assert state.phase is Phase.DRAW
        assert state.out_seat is None
        size = rules.hand_size(min(state.round, rules.rounds))
        for seat in range(self.n):
            assert len(state.hands[seat]) == (size if seat in state.active else 0)
        assert sum(len(p) for p in state.piles) == 1

    def check_round_end(self, old: GameState, seat: int, action: Action, new: GameState) -> None:
        rules = self.rules
        result = new.last_round
        assert result is not None
        assert result.round == old.round
        self.round_ends += 1
        if self.last_turns_due:
            # Only an empty stock may cut the last turns short.
            assert rules.stock_exhausted == "end_round" or not any(p[:-1] for p in new.piles), (
                "the round ended before every last turn"
            )
        elif self.last_turns_due is None:
            assert result.out_seat is None, "a round with a go-out ended early"
        wild = rules.wild_rank(min(old.round, rules.rounds))
        final_hands = list(old.hands)
        if isinstance(action, Discard):
            rest = list(old.hands[seat])
            rest.remove(action.card)
            final_hands[seat] = tuple(rest)
        failed = isinstance(action, Discard) and action.go_out and result.out_seat != seat
        assert [r.seat for r in result.results] == list(old.active)
        all_melded = True
        for r in result.results:
            laid = [c for meld in r.melds for c in meld.cards]
            for meld in r.melds:
                assert is_valid_meld(meld.cards, wild, rules), f"invalid meld {meld}"
            deadwood_points = sum(rules.points(c, wild) for c in r.deadwood)
            if rules.redemption:
                # Cards move between seats' melds; a seat's leftover deadwood holds no meld.
                assert (
                    min_deadwood(r.deadwood, wild, rules) == deadwood_points if r.deadwood else True
                )
            else:
                assert Counter(laid) + Counter(r.deadwood) == Counter(final_hands[r.seat])
                best = min_deadwood(final_hands[r.seat], wild, rules) if final_hands[r.seat] else 0
                assert deadwood_points == best, "a round's score must be the analyser's optimum"
            all_melded = all_melded and deadwood_points == 0
            score = deadwood_points
            if r.seat == result.out_seat:
                assert deadwood_points == 0
                bonus = rules.going_out_bonus
                score = -rules.rank_value(wild) if bonus == "minus_wild" else bonus
            if rules.doubled_late_rounds and 11 <= wild <= 13:
                score *= 2
            penalty = old.penalties[r.seat]
            if failed and r.seat == seat:
                penalty += rules.failed_go_out_penalty
            assert r.points == score + penalty, (r, score, penalty)
        assert result.replayed == (rules.double_naughts and all_melded)
        assert result.tiebreak == (old.round > rules.rounds)
        if result.replayed:
            assert new.round == old.round
            assert new.round_scores == old.round_scores
        elif result.tiebreak:
            assert new.round_scores == old.round_scores
        else:
            self.rounds_scored += 1
            by_seat = {r.seat: r.points for r in result.results}
            for s in range(self.n):
                assert new.round_scores[s] == (*old.round_scores[s], by_seat.get(s, 0))
            if new.status == "playing" and not new.round > rules.rounds:
                assert new.round == old.round + 1

    # -- every state -----------------------------------------------------------------------------

    def check_state(self, state: GameState) -> None:
        rules = self.rules
        assert placed_cards(state) == self.pack, "every card of the pack in exactly one place"
        assert state.version == sum(len(chunk) for chunk in state.records)
        assert all(len(scores) == len(state.round_scores[0]) for scores in state.round_scores)
        if state.status == "playing":
            size = rules.hand_size(min(state.round, rules.rounds))
            for seat in range(self.n):
                held = len(state.hands[seat])
                expected = size if seat in state.active else 0
                if seat == state.turn and state.phase is Phase.DISCARD:
                    expected += 1
                if rules.redemption and state.out_seat is not None:
                    assert held <= expected
                else:
                    assert held == expected, (seat, held, expected)
        else:
            assert len(state.round_scores[0]) == rules.rounds
            totals = [sum(s) for s in state.round_scores]
            lowest = [s for s in range(self.n) if totals[s] == min(totals)]
            assert state.winners is not None
            if rules.tie == "tiebreak" and len(lowest) > 1:
                assert set(state.winners) <= set(lowest)
                assert state.last_round is not None
                assert state.last_round.tiebreak
            else:
                assert state.winners == tuple(lowest)
        self.check_views(state)

    def check_views(self, state: GameState) -> None:
        public = public_view(state)
        assert {f.name for f in dataclasses.fields(GameView)} == VIEW_FIELDS
        assert public.hand is None
        assert public.seeded == (state.seed is not None)
        assert public.wild == self.rules.wild_rank(min(state.round, self.rules.rounds))
        assert public.stock_count == len(state.stock)
        assert public.deal == state.deal
        assert public.turned_up == ()  # a speed game's, one upcard per pile
        tops = tuple(p[-1] if p else None for p in state.piles)
        last = state.last_record
        if state.status == "playing" and (last is None or last.deal != state.deal):
            assert [t for t in tops if t is not None] == [public.turned]  # only the upcard
        if self.rules.discard_piles == "per_player":
            assert public.discard_tops == tops
            assert public.discard_top is None
        else:
            assert public.discard_top == tops[0]
            assert public.discard_tops is None
        for p in public.players:
            assert p.hand_count == len(state.hands[p.seat])
            assert p.score == sum(p.round_scores) == sum(state.round_scores[p.seat])
        # Every seat's view now and then, the seat on turn's always (8 seats make it costly).
        for seat in range(self.n) if state.version % 7 == 0 else (state.turn,):
            mine = view(state, seat)
            assert mine.hand == state.hands[seat]
            # A seat's view is the public view plus its own hand: nothing else differs.
            assert dataclasses.replace(mine, hand=None) == public
            # Every card a view shows is one the seat can see.
            visible = Counter(state.hands[seat]) + Counter(c for c in tops if c is not None)
            for melds in state.table:
                for meld in melds:
                    visible.update(meld.cards)
            shown = Counter(cards_in_view(mine))
            assert not shown - visible, f"seat {seat} sees {shown - visible}"
        # The log grows with the game: checking all of it after every action would be quadratic.
        if state.version % 61 == 0 or state.status == "finished":
            self.check_log(state)

    def check_log(self, state: GameState) -> None:
        for seat in (None, *range(self.n)):
            entries = public_log(state, seat)
            assert len(entries) == len(state.history)
            for entry, record in zip(entries, state.history, strict=True):
                assert (entry.seat, entry.action) == (record.seat, record.action)
                secret = (
                    isinstance(record.action, Draw)
                    and record.action.source == "stock"
                    and record.seat != seat
                    and record.deal == state.deal
                    and state.status == "playing"
                )
                assert entry.card == (None if secret else record.card)
        since = state.version // 3
        assert public_log(state, None, since=since) == public_log(state, None)[since:]


def cards_in_view(v: GameView) -> list[Card]:
    """The physical cards a view shows outside the last round's result (which is revealed)."""
    shown: list[Card] = list(v.hand or ())
    if v.discard_top is not None:
        shown.append(v.discard_top)
    shown += [c for c in v.discard_tops or () if c is not None]
    for melds in v.table or ():
        for meld in melds:
            shown += meld.cards
    return shown


def play_out(state: GameState, rng: random.Random, max_actions: int) -> Referee:
    referee = Referee(state)
    # The game as a store keeps it in parts: each action's head, and the parts it sealed
    # appended to those of the actions before.
    sealed = sealed_of(state)
    chunks, packs = [], [pack_in(p.encode()) for p in dumps_parts(state, Sealed(0, 0)).packs]
    results: list[RoundResult] = []
    for count in range(max_actions):
        if referee.state.status != "playing":
            break
        seat = referee.state.turn
        action = choose(referee.state, rng)
        referee.play(seat, action, check_unchanged=count % 41 == 0)
        parts = dumps_parts(referee.state, sealed)
        chunks += [chunk_in(c.encode()) for c in parts.chunks]
        packs += [pack_in(p.encode()) for p in parts.packs]
        results += [result_in(r.encode()) for r in parts.results]
        sealed = sealed_of(referee.state)
        if parts.results:
            assert results[-1] == referee.state.last_round
        if count % 97 == 0 or parts.results:
            assert loads(dumps(referee.state)) == referee.state
            assert loads_parts(parts.head, chunks, packs, results) == referee.state
    return referee


def check_round_trips(state: GameState) -> None:
    data = dumps(state)
    assert json.dumps(json.loads(data), separators=(",", ":")).encode() == data
    copy = loads(data)
    assert copy == state
    assert copy.pending == state.pending
    assert dumps(copy) == dumps(state)
    source: Any = state.seed if state.seed is not None else state.shuffle_record
    rebuilt = replay(state.players, state.rules, source, state.log)
    assert rebuilt == state
    assert dumps(rebuilt) == dumps(state)


# -- the properties -------------------------------------------------------------------------------


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configurations(), st.integers(0, 2**32))
def test_whole_random_games_keep_every_invariant(
    configuration: tuple[Rules, int, int | None], policy_seed: int
) -> None:
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()!r} players={players} seed={seed}")
    state = new_game([f"p{i}" for i in range(players)], rules, seed)
    referee = play_out(state, random.Random(policy_seed), max_actions=20_000)
    assert referee.state.status == "finished"
    assert referee.rounds_scored == rules.rounds
    check_round_trips(referee.state)


@settings(
    max_examples=EXAMPLES * 16,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configurations(), st.integers(0, 2**32), st.integers(1, 150))
def test_uniformly_random_actions_keep_every_invariant(
    configuration: tuple[Rules, int, int | None], policy_seed: int, length: int
) -> None:
    """Any legal action, chosen uniformly: the moves a purposeful player never makes."""
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()!r} players={players} seed={seed}")
    rng = random.Random(policy_seed)
    referee = Referee(new_game([f"p{i}" for i in range(players)], rules, seed))
    for count in range(length):
        state = referee.state
        if state.status != "playing":
            break
        for seat in range(players):
            if seat != state.turn:
                assert legal_actions(state, seat) == []
        legal = legal_actions(state, state.turn)
        if count % 3 == 0:
            check_unlisted_actions_are_refused(state, legal, rng)
        referee.play(state.turn, rng.choice(legal), check_unchanged=count % 5 == 0)
    check_round_trips(referee.state)


def check_unlisted_actions_are_refused(
    state: GameState, legal: list[Action], rng: random.Random
) -> None:
    """Actions legal_actions does not list raise an EngineError and change nothing."""
    n = len(state.players)
    pack = sorted(set(state.rules.pack(n)))
    others = [p for p in range(-1, n + 1) if p != state.turn]
    candidates: list[tuple[int, Action]] = [
        ((state.turn + 1) % n, rng.choice(legal)),
        (state.turn, Draw("stock", pile=0)),
        (state.turn, Draw("discard", pile=rng.randrange(-1, n + 1))),
        (state.turn, Discard(rng.choice(pack), go_out=rng.random() < 0.5)),
        # Onto another pile (its own is the pile named by None, listed as such).
        (state.turn, Discard(rng.choice(pack), pile=rng.choice(others))),
        (state.turn, LayOff(rng.choice(pack), rng.randrange(n), rng.randrange(3))),
    ]
    before = dumps(state)
    for seat, action in candidates:
        if seat == state.turn and action in legal:
            continue
        with pytest.raises(EngineError):
            apply(state, seat, action)
    assert dumps(state) == before

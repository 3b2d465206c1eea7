"""Whole random speed games (``turns: speed``), checked call by call against the plain reference
of the call rules in speed_reference.py.

An umpire follows each game. When a call opens it asks the reference what each seat may choose
and compares ``legal_actions``; seats then choose (some change their minds, some calls time out);
when the call ends it plays the same choices on the reference's table and compares every card's
place, who went out, the penalties, the stock's reshuffle or the round's end and its scores.
After every version it scans what each seat and the public may see: a seat's pending choice is
in its own view alone, another seat's choice shows in a log only as ``Chosen``, a card another
seat drew from the stock is never named while its deal is played, and choosing otherwise changes
nothing any other seat sees. Each game is replayed from its log, record by record and whole,
and round-tripped through ``dumps``/``loads`` and the stored parts.

``SPEED_EXAMPLES`` (environment, default 6) sets the number of whole games; ``SPEED_EXAMPLES=80``
is the thorough run (about two minutes on one core).
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from engine.analysis import analyse, min_deadwood
from engine.game import (
    Action,
    Discard,
    Draw,
    GameState,
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
    view,
)
from engine.game.actions import CALL_TIMEOUT, CALLER, CHOSEN, CallEnd, Phase
from engine.rules import Rules
from tests.engine.speed_reference import Table

EXAMPLES = int(os.environ.get("SPEED_EXAMPLES", "6"))
NO_SHRINK = (Stage.explicit, Stage.reuse, Stage.generate)


@st.composite
def speed_configurations(draw: st.DrawFn) -> tuple[Rules, int, int | None]:
    """Every option that applies to a speed game (redemption does not: it needs turns)."""
    preset = draw(st.sampled_from(["classic", "classic", "online", "five-crowns"]))
    base = Rules.from_spec(preset)
    spec: dict[str, Any] = {"preset": preset, "turns": "speed", "max_players": 16}
    spec["going_out_bonus"] = draw(st.sampled_from([0, -5, -10, "minus_wild"]))
    spec["failed_go_out"] = draw(st.sampled_from(["reject", "penalty"]))
    spec["first_lap_go_out"] = draw(st.booleans())
    spec["doubled_late_rounds"] = draw(st.booleans())
    schedules = ["up", "down"] + (["extended"] if base.low_rank == 1 else [])
    spec["schedule"] = draw(st.sampled_from(schedules))
    spec["double_naughts"] = draw(st.booleans())
    spec["stock_exhausted"] = draw(st.sampled_from(["reshuffle", "end_round"]))
    spec["tie"] = draw(st.sampled_from(["shared", "tiebreak"]))
    spec["discard_drawn_upcard"] = draw(st.booleans())
    spec["joker_discards"] = draw(st.sampled_from(["own_pile", "any_pile"]))
    if base.low_rank == 1:
        spec["aces"] = draw(st.sampled_from(["low", "high_or_low"]))
    if draw(st.integers(0, 4)) == 0:
        spec["max_wilds_per_meld"] = 1
    elif preset == "classic" and draw(st.booleans()):
        spec["jokers"] = 2
    players = draw(st.sampled_from([2, 3, 4, 5, 10]))
    rules = Rules.from_spec(spec)
    decks = rules.decks_for(players)
    while rules.seat_limit(decks) < players:
        decks += 1
    if decks != rules.decks_for(players):
        rules = Rules.from_spec({**spec, "decks": decks})
    return rules, players, draw(st.one_of(st.none(), st.integers(0, 2**32)))


# -- the umpire ---------------------------------------------------------------------------------


class Umpire:
    """Plays one speed game and checks every call against the reference."""

    def __init__(self, state: GameState, rng: random.Random) -> None:
        self.state = state
        self.rng = rng
        self.discard_calls = 0
        self.open_call()

    def open_call(self) -> None:
        state = self.state
        if state.calls == 0 and state.phase is Phase.DRAW:
            self.discard_calls = 0  # a new deal
        self.table = Table.of(state, self.discard_calls)
        self.choices: dict[int, Action] = {}
        for seat in self.rng.sample(range(len(state.players)), k=min(3, len(state.players))):
            self.check_legal(seat)

    def check_legal(self, seat: int) -> None:
        state, table = self.state, self.table
        got = legal_actions(state, seat)
        assert len(got) == len(set(got)), got
        if seat not in table.choosing():
            assert got == []
            return
        expected = table.draws(seat) if state.phase is Phase.DRAW else table.discards(seat)
        assert set(got) == expected, (seat, sorted(map(repr, set(got) ^ expected)))

    def waiting(self) -> list[int]:
        return [s for s in self.table.choosing() if s not in self.choices]

    def pick(self, seat: int) -> Action:
        """A purposeful choice most of the time (so rounds end), a random one otherwise."""
        state = self.state
        actions = legal_actions(state, seat)
        if self.rng.random() < 0.25:
            return self.rng.choice(actions)
        hand = state.hands[seat]
        if state.phase is Phase.DRAW:
            piles = [a for a in actions if isinstance(a, Draw) and a.source == "discard"]
            for draw in piles:
                assert draw.pile is not None
                top = state.piles[draw.pile][-1]
                if min_deadwood([*hand, top], state.wild, state.rules) < min_deadwood(
                    hand, state.wild, state.rules
                ):
                    return draw
            return actions[0]
        discards = [a for a in actions if isinstance(a, Discard)]
        outs = [
            a
            for a in discards
            if a.go_out and min_deadwood(_without(hand, a.card), state.wild, state.rules) == 0
        ]
        if outs:
            return self.rng.choice(outs)
        best = analyse(hand, state.wild, state.rules).discards[0].card
        plain = [a for a in discards if not a.go_out]
        return next((a for a in plain if a.card == best and a.pile is None), plain[0])

    def step(self) -> None:
        state = self.state
        waiting = self.waiting()
        roll = self.rng.random()
        action: Action
        if roll < 0.06:
            seat, action = CALLER, CALL_TIMEOUT
        elif roll < 0.12 and self.choices:
            seat = self.rng.choice(sorted(self.choices))
            action = self.pick(seat)  # a seat changes its mind
        else:
            seat = self.rng.choice(waiting)
            action = self.pick(seat)
        new = apply(state, seat, action)
        if seat != CALLER:
            self.choices[seat] = action
        ended = new.version == state.version + 2 or seat == CALLER
        if not ended:
            assert new.version == state.version + 1
            self.check_secret_choice(state, new, seat, action)
        self.state = new
        self.scan(
            state.version, whole=new.deal != state.deal or new.version // 64 != state.version // 64
        )
        if ended:
            self.check_call(state, new, timed_out=seat == CALLER)
            if new.status == "playing":
                self.open_call()

    # -- the call against the reference -----------------------------------------------------

    def check_call(self, before: GameState, after: GameState, *, timed_out: bool) -> None:
        table = self.table
        phase = before.phase.value
        for seat in table.choosing():
            if seat not in self.choices:
                assert timed_out
                self.choices[seat] = table.default(seat, phase)
        end = _call_end_of(after, before.version)
        assert end.timed_out == timed_out
        assert end.phase is before.phase
        assert [m.seat for m in end.moves] == table.choosing()
        assert {m.seat: m.action for m in end.moves} == self.choices
        if phase == "draw":
            table.draw_call(self.choices)
            self.check_cards(after, table)
            assert after.phase is Phase.DISCARD
            assert after.drawn == tuple(table.drawn)
            assert after.upcards == tuple(table.from_pile)
            return
        over = table.discard_call(self.choices)
        self.discard_calls = table.discard_calls
        plan = "end" if over else table.stock_for_the_next_draw_call()
        if plan == "end":
            self.check_round_end(before, after, table)
            return
        assert after.deal == before.deal
        assert after.phase is Phase.DRAW
        assert after.out_seats == tuple(table.out)
        assert after.penalties == tuple(table.penalties)
        if plan == "reshuffle":
            under = table.under_the_tops()
            assert Counter(after.stock) == Counter(table.stock) + under
            assert after.stock[len(after.stock) - len(table.stock) :] == tuple(table.stock)
            table.stock = list(after.stock)
            table.piles = [pile[-1:] for pile in table.piles]
        self.check_cards(after, table)

    def check_cards(self, after: GameState, table: Table) -> None:
        assert after.hands == tuple(tuple(sorted(h)) for h in table.hands)
        assert after.piles == tuple(tuple(p) for p in table.piles)
        assert after.stock == tuple(table.stock)

    def check_round_end(self, before: GameState, after: GameState, table: Table) -> None:
        result = after.last_round
        assert result is not None
        assert after.deal == before.deal + 1 or after.status == "finished"
        assert result.out_seats == tuple(table.out)
        assert {r.seat: r.points for r in result.results} == table.scores()
        assert result.replayed == (table.rules.double_naughts and table.all_melded())
        if not result.replayed and not result.tiebreak:
            scores = table.scores()
            assert tuple(s[-1] for s in after.round_scores) == tuple(
                scores.get(seat, 0) for seat in range(len(after.players))
            )

    # -- secrecy ----------------------------------------------------------------------------

    def check_secret_choice(
        self, before: GameState, after: GameState, seat: int, action: Action
    ) -> None:
        """Another choice by ``seat`` leaves every other viewer's view and log as they are."""
        others = [a for a in legal_actions(before, seat) if a != action]
        if not others:
            return
        alternative = apply(before, seat, self.rng.choice(others))
        if alternative.version != after.version:
            return  # it would have ended the call (the seat had chosen already)
        assert public_view(alternative) == public_view(after)
        for viewer in (None, *range(len(after.players))):
            if viewer == seat:
                continue
            if viewer is not None:
                assert view(alternative, viewer) == view(after, viewer)
            assert public_log(alternative, viewer, since=before.version) == public_log(
                after, viewer, since=before.version
            )

    def scan(self, since: int, *, whole: bool) -> None:
        """What every viewer sees of the versions after ``since`` (or ``whole``: of them all)."""
        state = self.state
        since = 0 if whole else since
        playing = state.status == "playing"
        for viewer in (None, *range(len(state.players))):
            shown = public_view(state) if viewer is None else view(state, viewer)
            if shown.call is not None:
                assert shown.turn is None
                assert shown.call.number == state.calls + 1
                assert shown.call.phase is state.phase
                assert set(shown.call.chosen) == {
                    s for s, c in enumerate(state.choices) if c is not None
                }
                own = None if viewer is None else state.choices[viewer]
                assert shown.call.choice == own
            for entry, record in zip(
                public_log(state, viewer, since=since), state.history[since:], strict=True
            ):
                secret = playing and record.deal == state.deal and record.seat != viewer
                if record.seat == CALLER:
                    assert isinstance(entry.action, CallEnd)
                    assert isinstance(record.action, CallEnd)
                    for shown_move, move in zip(
                        entry.action.moves, record.action.moves, strict=True
                    ):
                        hidden = (
                            secret
                            and move.seat != viewer
                            and isinstance(move.action, Draw)
                            and move.action.source == "stock"
                        )
                        assert shown_move.card == (None if hidden else move.card)
                        assert shown_move.action == move.action
                elif secret:
                    assert (entry.action, entry.card) == (CHOSEN, None)
                else:
                    assert (entry.action, entry.card) == (record.action, record.card)


def _without(hand: tuple[int, ...], card: int) -> list[int]:
    rest = list(hand)
    rest.remove(card)
    return rest


def _call_end_of(state: GameState, since: int) -> CallEnd:
    ends = [r.action for r in state.history[since:] if r.seat == CALLER]
    assert len(ends) == 1, ends
    assert isinstance(ends[0], CallEnd)
    return ends[0]


def play_out(rules: Rules, players: int, seed: int | None, rng: random.Random) -> GameState:
    state = new_game([f"P{i}" for i in range(players)], rules, seed)
    umpire = Umpire(state, rng)
    for count in range(20_000):
        if umpire.state.status != "playing":
            break
        umpire.step()
        if count % 97 == 0:
            assert loads(dumps(umpire.state)) == umpire.state
    assert umpire.state.status == "finished"
    return umpire.state


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configuration=speed_configurations(), policy_seed=st.integers(0, 2**32))
def test_whole_random_speed_games_follow_the_reference(
    configuration: tuple[Rules, int, int | None], policy_seed: int
) -> None:
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()} players={players} seed={seed}")
    final = play_out(rules, players, seed, random.Random(policy_seed))
    assert final.winners
    totals = final.totals
    if rules.tie == "shared":
        assert set(final.winners) == {s for s in range(players) if totals[s] == min(totals)}
    # Replayed whole from the log, from the seed; and record by record from the recorded
    # shuffles, as a store rebuilds a version (the calls' ends read back as they are).
    if seed is not None:
        assert replay(final.players, rules, seed, final.log) == final
    state = replay(final.players, rules, final.shuffle_record, ())
    for seat, action in final.log:
        state = apply(state, seat, action)
    assert dataclasses.replace(state, seed=final.seed) == final
    assert loads(dumps(final)) == final
    parts = dumps_parts(final, Sealed(0, 0))
    chunks = [chunk_in(c.encode()) for c in parts.chunks]
    packs = [pack_in(p.encode()) for p in parts.packs]
    results = [result_in(r.encode()) for r in parts.results]
    assert len(results) == final.deal
    assert loads_parts(parts.head, chunks, packs, results) == final

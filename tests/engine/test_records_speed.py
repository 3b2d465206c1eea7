"""Speed games (``turns: speed``) in records: one line per call that ended, every seat's choice
in it; the text and JSON forms read back equal; a whole record imports to itself (choices made
again within a call included, through the versions); a record that cheats is refused at its
line; the public record of a game being played shows no pending choice and no card another
seat drew from the stock."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine.cards import format_card, parse_card
from engine.errors import NotationError, RecordNotLegal
from engine.game import Discard, Draw, GameState, apply, legal_actions, new_game, public_log
from engine.game.actions import CALL_TIMEOUT, CALLER, CallEnd
from engine.game.speed import choosers
from engine.records.importing import import_record
from engine.records.json_form import record_from_json, record_json
from engine.records.notation import print_record
from engine.records.parsing import parse_located, parse_record
from engine.records.record import GameRecord, record_of
from engine.rules import Rules
from tests.engine.test_game_properties import NO_SHRINK
from tests.engine.test_speed_properties import speed_configurations

SPEED = {"preset": "classic", "turns": "speed", "jokers": 2, "joker_discards": "any_pile"}


def speed_played(
    rules: Rules | dict[str, object],
    players: int,
    seed: int | None,
    policy: int,
    *,
    until: Callable[[GameState], bool] | None = None,
) -> GameState:
    """A speed game of random choices: seats choose in random order, some choose again, some
    calls time out; played to its end, or until ``until`` says so."""
    state = new_game([f"p{i}" for i in range(players)], rules, seed)
    return speed_played_from(state, policy, until=until)


def speed_played_from(
    state: GameState, policy: int, *, until: Callable[[GameState], bool] | None = None
) -> GameState:
    """``state`` played on by random choices, as ``speed_played`` plays."""
    rng = random.Random(policy)
    while state.status == "playing" and (until is None or not until(state)):
        if rng.random() < 0.05:
            state = apply(state, CALLER, CALL_TIMEOUT)
            continue
        seat = rng.choice(choosers(state))
        actions = legal_actions(state, seat)
        outs = [a for a in actions if isinstance(a, Discard) and a.go_out]
        state = apply(state, seat, rng.choice(outs if outs and rng.random() < 0.8 else actions))
    return state


def round_trips(record: GameRecord) -> None:
    text = print_record(record)
    assert parse_record(text) == record
    assert print_record(parse_record(text)) == text
    assert record_from_json(json.loads(json.dumps(record_json(record)))) == record


@settings(
    max_examples=3, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow]
)
@given(speed_configurations(), st.integers(0, 2**32), st.integers(0, 300))
def test_speed_records_round_trip_and_replay_under_every_option(
    configuration: tuple[Rules, int, int | None], policy: int, cut: int
) -> None:
    """parse(print(record)) == record in text and JSON for a speed game being played and the
    same game finished, under every option a speed game takes (``joker_discards: any_pile``
    among them); the whole record imports to a game whose record is the same."""
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()!r} players={players} seed={seed} policy={policy}")
    partial = speed_played(rules, players, seed, policy, until=lambda s: s.version >= cut)
    if partial.status == "playing":
        public = record_of(partial, created="2026-12-02T06:00:00+00:00")
        assert public.headers.visibility == "public"
        round_trips(public)
    finished = speed_played(rules, players, seed, policy)
    times = {"created": "2026-12-02T06:00:00+00:00", "finished": "2026-12-02T06:31:07+00:00"}
    whole = record_of(finished, **times)
    round_trips(whole)
    assert record_of(import_record(whole), **times) == whole
    text = print_record(whole)
    assert record_of(import_record(*parse_located(text)), **times) == whole


def test_a_call_line_holds_every_choice_and_the_deal_every_upcard() -> None:
    state = speed_played(SPEED, 3, 7, 7)
    record = record_of(state)
    first = record.rounds[0]
    assert first.dealt is not None
    assert len(first.upcards) == len(first.active) == 3
    assert first.upcard == first.upcards[0]
    replayed = new_game(state.players, state.rules, 7)
    assert first.upcards == tuple(replayed.piles[seat][-1] for seat in first.active)
    calls = [e for r in record.rounds for e in r.actions]
    assert all(e.seat == CALLER and isinstance(e.action, CallEnd) for e in calls)
    assert [e.version for e in calls] == [
        e.version for e in public_log(state, None) if e.seat == CALLER
    ]
    text = print_record(record)
    assert f"upcard {' '.join(format_card(c) for c in first.upcards)}\n" in text
    assert "call 1 draw | " in text
    assert " | 0 discard " in text


def test_a_speed_record_while_played_shows_no_pending_choice_nor_hidden_stock_cards() -> None:
    state = speed_played(SPEED, 3, 5, 1, until=lambda s: s.version >= 45)
    while (
        state.choices[choosers(state)[0]] is None
        or len([s for s in choosers(state) if state.choices[s] is None]) == 0
    ):  # a call with one choice made and others pending
        seat = choosers(state)[0]
        state = apply(state, seat, legal_actions(state, seat)[0])
    assert state.status == "playing"
    record = record_of(state)
    assert record.headers.visibility == "public"
    assert all(r.dealt is None for r in record.rounds)
    last = record.rounds[-1].actions
    assert all(e.version < state.version for e in last)  # the pending choice is not there
    current = [m for e in last for m in e.action.moves]  # type: ignore[union-attr]
    draws = [m for m in current if isinstance(m.action, Draw) and m.action.source == "stock"]
    assert draws
    assert all(m.card is None for m in draws)
    text = print_record(record)
    assert "draw stock ?" in text
    assert not any(line.startswith(("hand ", "stock", "restock")) for line in text.split("\n"))
    round_trips(record)


# -- records that cheat ---------------------------------------------------------------------------


def speed_text() -> str:
    return print_record(record_of(speed_played(SPEED, 3, 11, 11)))


def first_line(text: str, contains: str) -> int:
    return next(i + 1 for i, line in enumerate(text.split("\n")) if contains in line)


def refused(text: str) -> RecordNotLegal:
    with pytest.raises(RecordNotLegal) as raised:
        import_record(*parse_located(text))
    return raised.value


def edited(text: str, number: int, line: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


def test_import_refuses_a_speed_draw_that_takes_another_card() -> None:
    text = speed_text()
    number = first_line(text, "| 0 draw stock ")
    line = text.split("\n")[number - 1]
    head, move, rest = line.partition("| 0 draw stock ")
    card = parse_card(rest[:2])
    other = format_card((card + 1) % 52)
    error = refused(edited(text, number, head + move + other + rest[2:]))
    assert error.line == number
    assert f"takes {format_card(card)} in the replay, not {other}" in str(error)


def test_import_refuses_a_speed_discard_of_a_card_not_in_hand() -> None:
    text = speed_text()
    number = first_line(text, "call 2 discard")
    line = text.split("\n")[number - 1]
    hand2 = text.split("\n")[first_line(text, "hand 2") - 1].split()[2:]
    head, _, rest = line.partition("| 0 discard ")
    error = refused(edited(text, number, f"{head}| 0 discard {hand2[0]}{rest[2:]}"))
    assert error.line == number
    assert f"card {hand2[0]} is not in the hand" in str(error)


def test_import_refuses_a_call_with_a_seat_left_out_or_a_version_too_low() -> None:
    text = speed_text()
    number = first_line(text, "call 1 draw")
    line = text.split("\n")[number - 1]
    error = refused(edited(text, number, line.rsplit(" | ", 1)[0]))
    assert error.line == number
    assert "the call's choices are seats " in str(error)
    version = line.split(".", 1)[0]
    error = refused(edited(text, number, line.replace(f"{version}.", "1.", 1)))
    assert error.line == number
    assert "version 1: this call's choices end it at version" in str(error)


def test_import_refuses_a_doctored_speed_score() -> None:
    text = speed_text()
    number = first_line(text, "score 1 ")
    words = text.split("\n")[number - 1].split(" ")
    words[2] = str(int(words[2]) + 3)
    error = refused(edited(text, number, " ".join(words)))
    assert error.line == number
    assert "in the replay, not" in str(error)


def test_a_bad_call_line_is_a_notation_error_naming_it() -> None:
    text = speed_text()
    number = first_line(text, "call 1 draw")
    with pytest.raises(NotationError) as raised:
        parse_record(edited(text, number, "3. call 1 draw | 0 discard 5C"))
    assert raised.value.line == number
    assert "not a choice in a draw call" in str(raised.value)


def test_the_speed_example_in_the_docs_is_that_game_s_first_round() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "records.md").read_text()
    example = docs.split("## Speed games", 1)[1].split("```\n", 2)[1]
    text = print_record(record_of(speed_played(SPEED, 3, 19, 19)))
    first = text.split("\n\n")[1]
    assert example == first + "\n"

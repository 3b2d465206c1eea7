"""Game records (engine.records): what they show, their text and JSON forms, and import.

Random games of every preset and the options that change a record's shape (per-player piles,
redemption's lay-offs, double naughts' deals again, tie-break rounds, reshuffled stocks, failed
go-outs) are recorded, printed, parsed back and imported; hand-edited records that cheat are
refused at the line that cheats.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine.cards import format_card, parse_card
from engine.errors import NotationError, RecordNotLegal
from engine.game import Draw, GameState, apply, new_game, public_log
from engine.records.importing import import_json, import_record, import_text
from engine.records.json_form import record_from_json, record_json
from engine.records.notation import MAX_RECORD_BYTES, print_record
from engine.records.parsing import parse_located, parse_record
from engine.records.record import GameRecord, record_of
from engine.rules import Rules
from tests.engine.game_scenarios import choose
from tests.engine.records_example import example_record
from tests.engine.test_game_properties import NO_SHRINK, configurations
from tests.engine.test_records_speed import SPEED, speed_played

PLAYERS = ("ann", 'bob "the dealer"', "cy; not a comment", "di")


def played(
    rules: Rules | str | Mapping[str, object],
    players: int,
    seed: int | None,
    policy: int,
    *,
    until: int | None = None,
) -> GameState:
    """A game of purposeful random play, to its end or to version ``until``."""
    names = [*PLAYERS, *(f"p{i}" for i in range(4, players))][:players]
    state = new_game(names, rules, seed)
    rng = random.Random(policy)
    while state.status == "playing" and (until is None or state.version < until):
        state = apply(state, state.turn, choose(state, rng))
    return state


def round_trips(record: GameRecord) -> None:
    text = print_record(record)
    assert parse_record(text) == record
    assert print_record(parse_record(text)) == text
    wire = json.loads(json.dumps(record_json(record)))
    assert record_from_json(wire) == record


@settings(
    max_examples=15,
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configurations(), st.integers(0, 2**32), st.integers(0, 400))
def test_records_round_trip_and_replay_under_every_preset_and_option(
    configuration: tuple[Rules, int, int | None], policy: int, cut: int
) -> None:
    """parse(print(record)) == record, in text and JSON, for a game being played (the public
    record) and the same game finished (the whole record), which imports to itself."""
    rules, players, seed = configuration
    note(f"rules={rules.to_spec()!r} players={players} seed={seed} policy={policy}")
    partial = played(rules, players, seed, policy, until=cut)
    if partial.status == "playing":
        public = record_of(partial, created="2026-12-02T06:00:00Z")
        assert public.headers.visibility == "public"
        round_trips(public)
    finished = played(rules, players, seed, policy)
    assert finished.status == "finished"
    bots = [None, "hard", *(["easy"] * (players - 2))]
    whole = record_of(finished, bots=bots, created="2026-12-02T06:00:00Z", finished="later")
    round_trips(whole)
    assert (
        record_of(import_record(whole), bots=bots, created=whole.headers.created, finished="later")
        == whole
    )
    text = print_record(whole)
    assert (
        record_of(
            import_record(*parse_located(text)),
            bots=bots,
            created=whole.headers.created,
            finished="later",
        )
        == whole
    )


# -- what a record shows --------------------------------------------------------------------------


def test_a_record_while_played_shows_what_the_public_log_shows() -> None:
    state = played("classic", 3, 5, 1, until=60)
    record = record_of(state)
    assert record.headers.visibility == "public"
    assert all(r.dealt is None for r in record.rounds)
    entries = [e for r in record.rounds for e in r.actions]
    assert tuple(entries) == public_log(state, None)
    current = record.rounds[-1]
    assert current.result is None
    stock_draws = [
        e for e in current.actions if isinstance(e.action, Draw) and e.action.source == "stock"
    ]
    assert stock_draws
    assert all(e.card is None for e in stock_draws)
    assert all(r.result is not None for r in record.rounds[:-1])
    text = print_record(record)
    assert not any(line.startswith(("hand ", "stock", "restock")) for line in text.split("\n"))
    assert "draw stock ?" in text


def test_a_finished_record_holds_every_deal_as_dealt() -> None:
    state = played("classic", 2, 9, 3)
    record = record_of(state)
    assert record.whole
    first = record.rounds[0]
    assert first.dealt is not None
    replayed = new_game(state.players, state.rules, 9)
    assert first.dealt.hands == replayed.hands
    assert first.dealt.stock == replayed.stock[::-1]
    assert first.upcard == replayed.piles[0][-1]
    assert record.headers.totals == state.totals
    assert record.headers.winners == state.winners
    assert sum(len(r.actions) for r in record.rounds) == state.version


def test_reshuffled_stocks_are_recorded_in_the_order_used() -> None:
    """A long round under end_round off reshuffles the discards; the record keeps each new
    stock, and import takes them back."""
    for policy in range(40):
        state = played({"preset": "classic", "stock_exhausted": "reshuffle"}, 2, policy, policy)
        record = record_of(state)
        if any(r.dealt and r.dealt.restocks for r in record.rounds):
            break
    else:
        pytest.fail("no game reshuffled its stock")
    assert "\nrestock " in print_record(record)
    assert record_of(import_record(record)) == record


# -- the text notation's errors -------------------------------------------------------------------


def whole_text(seed: int = 4) -> str:
    return print_record(record_of(played("classic", 2, seed, seed)))


def line_of(text: str, start: str, after: int = 0) -> int:
    """The 1-based number of the first line past line ``after`` that starts with ``start``."""
    lines = text.split("\n")
    return next(i + 1 for i, line in enumerate(lines) if i >= after and line.startswith(start))


def edited(text: str, number: int, line: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("start", "replacement", "reason"),
    [
        ("[Status", '[Status "paused"]', "Status must be"),
        ("[Rules.aces", '[Rules.aces "sideways"]', "aces must be one of"),
        ("[Player1", "[Player1 unquoted]", 'expected a header [Key "value"]'),
        ("upcard", "upcard 1Z", "invalid card code"),
        ("1. ", "1. 0 juggle 3C", "not an action"),
        ("1. ", "1. 7 draw stock 3C", "no seat 7"),
        ("score 0", "score 0 x deadwood", "the points must be a whole number"),
        ("round 2", "round 2 deal", "expected 'round N deal N dealer S seats S"),
    ],
)
def test_the_parser_names_the_first_bad_line(start: str, replacement: str, reason: str) -> None:
    text = whole_text()
    number = line_of(text, start)
    with pytest.raises(NotationError) as raised:
        parse_record(edited(text, number, replacement))
    assert raised.value.line == number
    assert reason in str(raised.value)
    assert str(raised.value).startswith(f"line {number}: ")


def test_comments_and_blank_lines_are_ignored() -> None:
    text = whole_text()
    number = line_of(text, "1. ")
    lines = text.split("\n")
    lines.insert(number - 1, "; the first turn")
    lines[number] += "  ; a comment after an action"
    assert parse_record("\n".join(lines)) == parse_record(text)


def test_json_errors_name_the_path() -> None:
    wire = record_json(record_of(played("classic", 2, 4, 4)))
    wire["rounds"][1]["actions"][2]["card"] = "ZZ"
    with pytest.raises(NotationError) as raised:
        record_from_json(wire)
    assert raised.value.path == "rounds[1].actions[2].card"


# -- import refuses records that cheat ------------------------------------------------------------


def cheat(text: str, start: str, change: str, *, after: int = 0) -> tuple[str, int]:
    number = line_of(text, start, after)
    return edited(text, number, change), number


def refused(text: str) -> RecordNotLegal:
    with pytest.raises(RecordNotLegal) as raised:
        import_record(*parse_located(text))
    return raised.value


def test_import_refuses_a_discard_of_a_card_not_in_hand() -> None:
    """Round 2's first discard changed to a card of the other seat's hand (one deck)."""
    text = whole_text()
    lines = text.split("\n")
    round_two = line_of(text, "round 2")
    number = next(
        i + 1
        for i in range(round_two, len(lines))
        if " discard " in lines[i] and "draw" not in lines[i]
    )
    version, seat = lines[number - 1].split()[:2]
    other_hand = lines[line_of(text, f"hand {1 - int(seat)}", round_two) - 1].split()[2:]
    error = refused(edited(text, number, f"{version} {seat} discard {other_hand[0]}"))
    assert error.line == number
    assert f"card {other_hand[0]} is not in the hand" in str(error)


def test_import_refuses_a_doctored_score() -> None:
    text = whole_text()
    number = line_of(text, "score 1", line_of(text, "round 3"))
    words = text.split("\n")[number - 1].split(" ")
    words[2] = str(int(words[2]) - 5)
    error = refused(edited(text, number, " ".join(words)))
    assert error.line == number
    assert "scores" in str(error)
    assert "in the replay, not" in str(error)


def test_import_refuses_an_action_out_of_turn() -> None:
    text = whole_text()
    number = line_of(text, "1. ")
    version, seat, *rest = text.split("\n")[number - 1].split(" ")
    other = str(1 - int(seat))
    error = refused(edited(text, number, " ".join([version, other, *rest])))
    assert error.line == number
    assert f"seat {other} cannot act" in str(error)


def test_import_refuses_a_draw_that_takes_another_card() -> None:
    text = whole_text()
    number = line_of(text, "1. ")
    while "draw stock" not in text.split("\n")[number - 1]:
        number += 1
    line = text.split("\n")[number - 1]
    card = parse_card(line.split()[-1])
    other = format_card((card + 1) % 52)
    error = refused(edited(text, number, line.rsplit(" ", 1)[0] + " " + other))
    assert error.line == number
    assert f"takes {format_card(card)} in the replay, not {other}" in str(error)


def test_import_refuses_doctored_totals_and_a_public_record() -> None:
    text = whole_text()
    number = line_of(text, "[Totals")
    error = refused(edited(text, number, '[Totals "0 0"]'))
    assert error.line == number
    public = print_record(record_of(played("classic", 2, 4, 4, until=30)))
    assert refused(public).line == line_of(public, "[Record")


def test_import_refuses_a_deal_with_a_card_twice() -> None:
    text = whole_text()
    number = line_of(text, "hand 0")
    words = text.split("\n")[number - 1].split(" ")
    hand1 = text.split("\n")[number].split(" ")
    words[-1] = hand1[-1]  # seat 1's card, twice in a one-deck pack
    error = refused(edited(text, number, " ".join(words)))
    assert error.line in (number, number + 1)
    assert "more times than the pack has" in str(error)


def test_json_import_names_the_action_path() -> None:
    wire = record_json(record_of(played("classic", 2, 4, 4)))
    actions = wire["rounds"][2]["actions"]
    index = next(i for i, a in enumerate(actions) if a["action"]["type"] == "discard")
    actions[index]["card"] = "JK"  # a joker: not in the classic pack
    with pytest.raises(RecordNotLegal) as raised:
        import_record(record_from_json(wire))
    assert raised.value.path == f"rounds[2].actions[{index}]"
    assert raised.value.line is None


def test_a_record_over_the_size_limit_is_refused_before_it_is_read() -> None:
    text = whole_text()
    padding = "; " + "x" * MAX_RECORD_BYTES + "\n"
    with pytest.raises(NotationError, match="at most") as raised:
        parse_record(padding + text)
    assert raised.value.line is None


def test_the_worked_example_in_the_docs_is_the_example_game_s_record() -> None:
    """docs/records.md shows the record of tests/engine/records_example.py cut after round 2."""
    docs = (Path(__file__).parents[2] / "docs" / "records.md").read_text()
    example = docs.split("### A worked example", 1)[1].split("```\n", 2)[1]
    whole = example_record()
    assert parse_record(example) == GameRecord(whole.headers, whole.rounds[:2])


# -- mangled records ------------------------------------------------------------------------------

TOKENS = ["", "?", "-1", "99", "JK", "ZZ", "out", "round", "(", ")", "set(", "=", '"', "[", "]"]
TOKENS += ["|", "call", "timeout", "draw", "discard", "pile", "0"]
JSON_VALUES: list[object] = [None, True, 0, -1, 10**30, "x", "JK", [], {}, [1], ["AC"], 1.5]


def mangled_text(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.3:
            del lines[k]
        elif roll < 0.5:
            lines.insert(k, lines[rng.randrange(len(lines))])
        else:
            words = lines[k].split(" ")
            words[rng.randrange(len(words))] = rng.choice(TOKENS + words)
            lines[k] = " ".join(words)
    return "\n".join(lines)


def mangle_json(value: object, rng: random.Random) -> None:
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        if rng.random() < 0.3:
            del value[key]
        elif isinstance(value[key], dict | list) and value[key] and rng.random() < 0.6:
            mangle_json(value[key], rng)
        else:
            value[key] = rng.choice(JSON_VALUES)
    elif isinstance(value, list) and value:
        index = rng.randrange(len(value))
        if isinstance(value[index], dict | list) and value[index] and rng.random() < 0.6:
            mangle_json(value[index], rng)
        else:
            value[index] = rng.choice(JSON_VALUES)


def test_a_mangled_record_is_refused_with_an_engine_error_and_nothing_else() -> None:
    """Lines dropped, repeated or with a word changed; JSON values dropped or of the wrong
    type: each is imported or refused by a NotationError or RecordNotLegal (the service's 4xx),
    never another exception."""
    speed = record_of(speed_played(SPEED, 3, 11, 11))
    records = [
        record_of(played("classic", 2, 4, 4)),
        record_of(
            played({"preset": "online", "discard_piles": "per_player", "redemption": True}, 3, 1, 1)
        ),
        GameRecord(speed.headers, speed.rounds[:2]),  # a speed game's first rounds: call lines
    ]
    rng = random.Random(29)
    outcomes: Counter[str] = Counter()
    for record in records:
        text = print_record(record)
        for _ in range(150):
            try:
                import_text(mangled_text(text, rng))
                outcomes["imported"] += 1
            except (NotationError, RecordNotLegal) as error:
                outcomes[type(error).__name__] += 1
        wire = record_json(record)
        for _ in range(150):
            copy = json.loads(json.dumps(wire))
            mangle_json(copy, rng)
            try:
                import_json(copy)
                outcomes["imported"] += 1
            except (NotationError, RecordNotLegal) as error:
                outcomes[type(error).__name__] += 1
    assert outcomes["NotationError"] > 50
    assert outcomes["RecordNotLegal"] > 50

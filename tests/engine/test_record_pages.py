"""A record built without replaying the game (``record_of``, ``record_page_of``): each deal's
layout from its pack, its result as the state kept it, a page's actions from the history where
the page starts. It is the record the replay builds (``replayed_record``, the way every record
was built before), page by page, for games being played and finished, under every preset and
option, in turns and in speed; and a page costs its size: nothing is applied to build it."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine.game import (
    GameState,
    Sealed,
    apply,
    chunk_in,
    dumps,
    dumps_parts,
    loads,
    loads_parts,
    pack_in,
    sealed_of,
)
from engine.records import holds_results, record_of, record_page, record_page_of
from engine.records import record as record_module
from engine.records.record import replayed_record
from engine.rules import Rules
from tests.engine.test_game_properties import NO_SHRINK, configurations
from tests.engine.test_records import played
from tests.engine.test_records_speed import speed_played
from tests.engine.test_speed_properties import speed_configurations

Pages = list[tuple[int, int | None]]
PAGES = st.lists(
    st.tuples(st.integers(0, 1_000), st.none() | st.integers(1, 60)), min_size=1, max_size=4
)
"""Pages asked of a game: ``since`` as a share (in thousandths) of its versions, and ``limit``."""
Game = tuple[Rules, int, int | None, int, int]
"""The rules, the players, the seed, the random player's seed and the version the game is cut
at while in play."""
Play = Callable[[Rules, int, int | None, int, int | None], GameState]


@st.composite
def games(
    draw: st.DrawFn, configurations: st.SearchStrategy[tuple[Rules, int, int | None]], cut: int
) -> Game:
    rules, players, seed = draw(configurations)
    return rules, players, seed, draw(st.integers(0, 2**32)), draw(st.integers(0, cut))


def check_game(game: Game, pages: Pages, play: Play) -> None:
    """The game cut while in play, and played out: every page is the replayed record's."""
    rules, players, seed, policy, cut = game
    note(f"rules={rules.to_spec()!r} players={players} seed={seed} policy={policy} cut={cut}")
    for until in (cut, None):
        check_pages(play(rules, players, seed, policy, until), pages)


def check_pages(state: GameState, pages: Pages) -> None:
    """Every page asked of ``state`` is the replayed record's page, and so is the whole
    record."""
    assert holds_results(state)
    headers = {"bots": None, "created": "2026-12-02T06:00:00Z", "finished": "later"}
    replayed = replayed_record(state, **headers)
    assert record_of(state, **headers) == replayed
    for share, limit in pages:
        since = state.version * share // 1_000
        note(f"since={since} limit={limit}")
        assert record_page_of(state, since, limit, **headers) == record_page(replayed, since, limit)


def in_turns(
    rules: Rules, players: int, seed: int | None, policy: int, cut: int | None
) -> GameState:
    return played(rules, players, seed, policy, until=cut)


def in_speed(
    rules: Rules, players: int, seed: int | None, policy: int, cut: int | None
) -> GameState:
    until = None if cut is None else (lambda state: state.version >= cut)
    return speed_played(rules, players, seed, policy, until=until)


@settings(
    max_examples=12, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow]
)
@given(games(configurations(), 400), PAGES)
def test_a_page_is_the_replayed_record_s_under_every_preset_and_option(
    game: Game, pages: Pages
) -> None:
    check_game(game, pages, in_turns)


@settings(
    max_examples=4, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow]
)
@given(games(speed_configurations(), 600), PAGES)
def test_a_speed_game_s_page_is_the_replayed_record_s(game: Game, pages: Pages) -> None:
    """A page counts the calls that ended, however many choices lie between them."""
    check_game(game, pages, in_speed)


def test_the_state_keeps_every_deal_s_result_and_storage_keeps_them() -> None:
    state = played({"preset": "classic", "double_naughts": True}, 3, 7, 7)
    assert state.status == "finished"
    assert len(state.results) == state.deal
    assert state.results[-1] is state.last_round
    assert [r.round for r in state.results] == [r.round for r in record_of(state).rounds]
    assert loads(dumps(state)).results == state.results


def test_a_page_applies_no_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page of a long game, played or finished, reads the page's actions from the history:
    the game is not replayed, however long."""
    playing = played("classic", 2, 3, 3, until=400)
    finished = played("classic", 2, 3, 3)
    replays: list[GameState] = []

    def counted(state: GameState, *rest: Any) -> GameState:
        replays.append(state)
        return apply(state, *rest)

    monkeypatch.setattr(record_module, "apply", counted)
    for state in (playing, finished):
        page, next_since = record_page_of(state, 200, 10)
        assert sum(len(r.actions) for r in page.rounds) == 10
        assert next_since == 210
    assert replays == []
    record_page_of(dataclasses.replace(playing, results=()), 200, 10)
    assert replays  # a state without its results (stored before they were kept) replays


def test_a_state_stored_before_results_were_kept_is_replayed_to_the_same_record() -> None:
    """A game stored before its state kept results, and played on since, holds only those of
    the deals ended since: its record is the replay's."""
    state = played("classic", 3, 11, 11)
    ended = state.results
    old = dataclasses.replace(state, results=ended[3:])  # as if stored during deal 4
    assert not holds_results(old)
    assert record_of(old) == record_of(state) == replayed_record(state)
    rng = random.Random(11)
    for _ in range(5):
        since, limit = rng.randrange(state.version), rng.randrange(1, 40)
        assert record_page_of(old, since, limit) == record_page_of(state, since, limit)


def test_a_head_written_before_results_were_sealed_loads_without_them() -> None:
    """A stored head that seals chunks and packs only (written before results were kept)
    loads as it was: a state with no results of its past deals, whose record is replayed."""
    state = played("classic", 2, 5, 5, until=200)
    assert state.deal > 1
    before = dataclasses.replace(state, results=())
    parts = dumps_parts(before, Sealed(0, 0, 0))
    sealed = sealed_of(before)
    head = parts.head.replace(
        f',"sealed":[{sealed.chunks},{sealed.packs},0]'.encode(),
        f',"sealed":[{sealed.chunks},{sealed.packs}]'.encode(),
    )
    assert head != parts.head
    chunks = [chunk_in(c.encode()) for c in parts.chunks]
    packs = [pack_in(p.encode()) for p in parts.packs]
    loaded = loads_parts(head, chunks, packs)
    assert loaded == before
    assert not holds_results(loaded)
    assert record_of(loaded) == record_of(state)

"""The soak's command line: what ``make soak`` runs by default, and what it refuses.

The soak itself is not a test (it runs for minutes and needs Locust, which `make test` does not
install); its modules that need neither are imported here, so a change that breaks them shows.
"""

from __future__ import annotations

import argparse

import pytest

from tests.soak import audit, report
from tests.soak.options import SoakOptions, parse, seconds, think_range
from tests.soak.records import ActionTried, GameCreated


def test_the_default_is_the_issues_run() -> None:
    """1,000 games at once for 10 minutes, on two instances, one killed every 60 s, on Redis."""
    options = parse([])
    assert (options.games, options.duration, options.instances) == (1000, 600.0, 2)
    assert (options.chaos_seconds, options.cluster) == (60.0, False)


def test_a_short_run_on_a_cluster() -> None:
    options = parse(["--games", "50", "--duration", "2m", "--cluster", "--instances", "3"])
    assert (options.games, options.duration, options.cluster, options.instances) == (
        50,
        120.0,
        True,
        3,
    )


@pytest.mark.parametrize(
    ("text", "expected"), [("90", 90.0), ("90s", 90.0), ("2m", 120.0), ("1m30s", 90.0)]
)
def test_durations(text: str, expected: float) -> None:
    assert seconds(text) == expected


@pytest.mark.parametrize("text", ["", "soon", "0", "2x"])
def test_a_duration_that_is_none_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        seconds(text)


def test_think_times() -> None:
    assert think_range("2-6") == (2.0, 6.0)
    assert think_range("3") == (3.0, 3.0)
    with pytest.raises(argparse.ArgumentTypeError):
        think_range("6-2")


@pytest.mark.parametrize(
    "argv",
    [
        ["--instances", "1"],  # nothing to fail over to while one is killed
        ["--turn-seconds", "2"],  # the service takes 3 to 86400
        ["--bots", "expertish"],
        ["--invite-share", "1.5"],
    ],
)
def test_bad_options_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse(argv)


def test_one_instance_without_chaos_is_allowed() -> None:
    assert parse(["--instances", "1", "--no-chaos"]).chaos_seconds == 0.0


def test_the_people_planned_fill_the_games() -> None:
    """Each invite table seats two people (a host and a guest), every other game one."""
    options = SoakOptions(games=50, invite_share=0.2)
    roles = [options.role_of(number) for number in range(options.people)]
    assert roles.count("host") == roles.count("guest") == 10
    assert roles.count("solo") == 40
    assert options.people == 60


def test_options_travel_to_the_locust_process_unchanged() -> None:
    options = parse(["--games", "7", "--think", "0.5-1", "--bots", "hard"])
    assert SoakOptions.from_json(options.to_json()) == options


def test_an_answered_action_missing_from_its_log_is_lost() -> None:
    created = GameCreated(
        game_id="g", role="solo", number=0, seat=0, clock=None, seats=2, at=0, statuses=[201]
    )
    draw = ActionTried(
        game_id="g", seat=0, key="k", expected_version=0, body={"type": "draw", "source": "stock"},
        at=0, statuses=[200], status=200, version=1,
    )  # fmt: skip
    empty = {"game_id": "g", "version": 0, "entries": []}
    found = audit.audit([created, draw], {"g": empty})
    assert len(found.lost) == 1
    entry = {"version": 1, "seat": 0, "action": {"type": "draw", "source": "stock"}, "card": None}
    kept = audit.audit([created, draw], {"g": {"game_id": "g", "version": 1, "entries": [entry]}})
    assert (kept.matched, kept.faults) == (1, 0)


def test_an_entry_no_request_explains_is_unexplained_without_a_clock() -> None:
    entry = {"version": 1, "seat": 0, "action": {"type": "draw", "source": "stock"}, "card": None}
    log = {"game_id": "g", "version": 1, "entries": [entry]}
    for clock, unexplained, clock_moves in ((None, 1, 0), (15, 0, 1)):
        created = GameCreated(
            game_id="g", role="solo", number=0, seat=0, clock=clock, seats=2, at=0, statuses=[]
        )
        found = audit.audit([created], {"g": log})
        assert (len(found.unexplained), found.clock_moves) == (unexplained, clock_moves)


def test_percentiles() -> None:
    assert report.percentile([float(n) for n in range(1, 101)], 0.99) == 99.0
    assert report.percentile([5.0], 0.5) == 5.0

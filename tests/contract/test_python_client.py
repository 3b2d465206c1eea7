"""A Python client generated from the committed document, as a team integrating would make it
(openapi-python-client, with one setting: NDJSON as bytes, python/openapi_python_client.yaml),
driven against the app: the document validates, the
generator warns about nothing, and the generated calls and models play a game."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from litestar import Litestar
from openapi_spec_validator import validate

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import live_server_for  # noqa: F401  # the fixture, shared
from tests.waiting import eventually

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = pytest.mark.xdist_group("test_python_client")

COMMITTED = Path(__file__).parents[2] / "openapi" / "openapi.json"
BIN = Path(sys.executable).parent
PACKAGE = "three_thirteen_client"
TYPED_CALLS = Path(__file__).parent / "python" / "typed_calls.py"


def test_the_committed_document_is_valid_openapi() -> None:
    validate(json.loads(COMMITTED.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package openapi-python-client generates, imported. Its post-hooks format the code
    with ruff, from this environment (as on a developer's machine)."""
    folder = tmp_path_factory.mktemp("generated")
    command = ["generate", "--path", str(COMMITTED), "--output-path", str(folder / PACKAGE)]
    command += ["--config", str(Path(__file__).parent / "python" / "openapi_python_client.yaml")]
    generated = subprocess.run(
        [str(BIN / "openapi-python-client"), *command, "--meta", "none"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
        check=False,
        timeout=300,
    )
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "warning" not in output.lower(), output
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))


def test_typed_calls_need_no_cast(client_package: ModuleType) -> None:
    """python/typed_calls.py passes a view's rules to the analyser and posts a `legal` entry:
    ``mypy --strict`` finds no error against the generated package."""
    folder = Path(client_package.__file__ or "").parents[1]
    checked = subprocess.run(
        [str(BIN / "mypy"), "--strict", "--follow-imports=silent", str(TYPED_CALLS)],
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(folder)},
        check=False,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _module(package: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


def _messages(stream: Iterator[str]) -> Iterator[dict[str, str]]:
    """Server-sent events as dicts of their fields (a reader's work: the generated client reads
    a response whole, so a stream is read through its httpx client)."""
    message: dict[str, str] = {}
    for line in stream:
        if not line:
            if "data" in message:
                yield message
            message = {}
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            message[field] = value.removeprefix(" ")


@pytest.fixture
def app() -> Litestar:
    return create_app(Settings())


def test_a_generated_client_plays(
    client_package: ModuleType,
    app: Litestar,
    live_server_for: Any,  # noqa: F811
) -> None:
    url = live_server_for(app)
    models = _module(client_package, "models")
    anonymous = client_package.Client(base_url=url, raise_on_unexpected_status=True)

    # A stateless analysis, the rules left to their default.
    analyse = _module(client_package, "api.analysis.analyse_hand")
    analysed = analyse.sync(
        client=anonymous, body=models.AnalyseRequest(hand=["4H", "8S", "6H", "KD"], wild="8")
    )
    assert isinstance(analysed, models.AnalyseResponse)
    assert (analysed.suggested_discard, analysed.deadwood_points) == ("KD", 10)

    # A game of a preset, and one of a preset with options changed (an int and a string enum).
    create = _module(client_package, "api.games.create_game")
    game = create.sync(
        client=anonymous,
        body=models.CreateGameRequest(
            players=[models.PlayerIn(name="Ann"), models.PlayerIn(name="Bob")],
            rules=models.CreateGameRequestRulesType0.CLASSIC,
            seed=7,
        ),
    )
    assert isinstance(game, models.GameCreated)
    overridden = create.sync(
        client=anonymous,
        body=models.CreateGameRequest(
            players=[models.PlayerIn(name="Ann"), models.PlayerIn(open_=True)],
            rules=models.RulesOverrides(
                preset=models.RulesOverridesPreset.ONLINE,
                going_out_bonus=models.RulesOverridesGoingOutBonusType1.MINUS_WILD,
                wild_points=25,
            ),
        ),
    )
    assert isinstance(overridden, models.GameCreated)
    assert overridden.view.rules.going_out_bonus == "minus_wild"

    # Join the open seat by the invite code; the claimed seat's view, through its token.
    claim = _module(client_package, "api.tables.claim_invite")
    claimed = claim.sync(
        overridden.invite_code, client=anonymous, body=models.ClaimRequest(name="Bob")
    )
    assert isinstance(claimed, models.SeatClaimed)
    get_game = _module(client_package, "api.games.get_game")
    bob = client_package.AuthenticatedClient(base_url=url, token=claimed.token)
    assert get_game.sync(claimed.game_id, client=bob).seat == 1

    # The seat on turn draws and discards, each seat by its own token (the seatToken scheme).
    seats = {seat.seat: seat.token for seat in game.seats}
    on_turn = client_package.AuthenticatedClient(base_url=url, token=seats[game.view.turn])
    view = get_game.sync(game.game_id, client=on_turn)
    assert view.hand
    act = _module(client_package, "api.games.apply_action")
    drawn = act.sync(
        game.game_id,
        client=on_turn,
        body=models.DrawAction(
            type_=models.DrawActionType.DRAW, source=models.DrawActionSource.STOCK
        ),
        idempotency_key="draw-1",
    )
    assert isinstance(drawn, models.GameView)
    assert len(drawn.hand) == len(view.hand) + 1
    discarded = act.sync(
        game.game_id,
        client=on_turn,
        body=models.DiscardAction(
            type_=models.DiscardActionType.DISCARD, card=drawn.hand[0], expected_version=1
        ),
    )
    assert isinstance(discarded, models.GameView)
    assert discarded.version == 2
    refused = act.sync_detailed(
        game.game_id,
        client=client_package.AuthenticatedClient(base_url=url, token="not-a-seat"),
        body=models.DrawAction(
            type_=models.DrawActionType.DRAW, source=models.DrawActionSource.STOCK
        ),
    )
    assert refused.status_code == 401
    assert isinstance(refused.parsed, models.Problem)

    # Follow the events: the snapshot, then (resuming after version 0) the two actions, each
    # message and its data read with the generated models.
    events = f"/v1/games/{game.game_id}/events"
    http: httpx.Client = on_turn.get_httpx_client()
    with http.stream("GET", events, params={"idle_timeout": 0}) as stream:
        (snapshot,) = list(_messages(stream.iter_lines()))
    message = models.SnapshotMessage.from_dict(snapshot)
    assert models.GameView.from_dict(json.loads(message.data)).version == 2
    with http.stream(
        "GET", events, params={"idle_timeout": 0}, headers={"Last-Event-ID": "0"}
    ) as stream:
        actions = [models.ActionMessage.from_dict(m) for m in _messages(stream.iter_lines())]
    assert [m.event.value for m in actions] == ["action", "action"]
    steps = [models.GameEvent.from_dict(json.loads(m.data)) for m in actions]
    assert [(s.version, s.entry.action.type_.value) for s in steps] == [(1, "draw"), (2, "discard")]
    assert steps[1].view.hand == discarded.hand


def test_a_generated_client_needs_no_conversion(
    client_package: ModuleType,
    app: Litestar,
    live_server_for: Any,  # noqa: F811
) -> None:
    """A view's rules go to the analyser as they are, an entry of `legal` is posted as it is,
    and the public reads take a plain Client (the events read whole, as text)."""
    url = live_server_for(app)
    models = _module(client_package, "models")
    anonymous = client_package.Client(base_url=url, raise_on_unexpected_status=True)
    game = _module(client_package, "api.games.create_game").sync(
        client=anonymous,
        body=models.CreateGameRequest(
            players=[models.PlayerIn(name="Ann"), models.PlayerIn(name="Bob")], seed=3
        ),
    )
    seats = {seat.seat: seat.token for seat in game.seats}
    get_game = _module(client_package, "api.games.get_game")
    on_turn = client_package.AuthenticatedClient(base_url=url, token=seats[game.view.turn])
    view = get_game.sync(game.game_id, client=on_turn)

    analysed = _module(client_package, "api.analysis.analyse_hand").sync(
        client=anonymous,
        body=models.AnalyseRequest(hand=["4H", "8S", "6H", "KD"], round_=1, rules=view.rules),
    )
    assert isinstance(analysed, models.AnalyseResponse)

    act = _module(client_package, "api.games.apply_action")
    assert [entry.type_.value for entry in view.legal] == ["draw", "draw"]
    drawn = act.sync(game.game_id, client=on_turn, body=view.legal[0])
    assert isinstance(drawn, models.GameView)
    assert drawn.version == 1
    assert all(isinstance(entry, models.DiscardAction) for entry in drawn.legal)
    discarded = act.sync(game.game_id, client=on_turn, body=drawn.legal[0])
    assert discarded.version == 2

    public = get_game.sync(game.game_id, client=anonymous)
    assert isinstance(public, models.GameView)
    assert (public.hand, public.version) == (None, 2)
    log = _module(client_package, "api.games.get_game_log").sync(game.game_id, client=anonymous)
    assert [entry.version for entry in log.entries] == [1, 2]
    events = _module(client_package, "api.games.get_game_events").sync_detailed(
        game.game_id, client=anonymous, idle_timeout=0
    )
    assert events.status_code == 200
    assert isinstance(events.parsed, str)
    assert "event: snapshot" in events.parsed


def _typed_calls(package: ModuleType) -> Any:
    """python/typed_calls.py imported, against the generated package (``package`` is on the
    path while its fixture lasts)."""
    spec = importlib.util.spec_from_file_location("typed_calls", TYPED_CALLS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_fetched_record_is_posted_back_as_it_is(
    client_package: ModuleType,
    app: Litestar,
    live_server_for: Any,  # noqa: F811
) -> None:
    """A finished bot game's record, fetched with the generated client, imports as it is (the
    calls of python/typed_calls.py, which mypy --strict checks); its text notation too."""
    url = live_server_for(app)
    models = _module(client_package, "models")
    anonymous = client_package.Client(base_url=url, raise_on_unexpected_status=True)
    game = _module(client_package, "api.games.create_game").sync(
        client=anonymous,
        body=models.CreateGameRequest(
            players=[
                models.PlayerIn(bot=models.PlayerInBot.EASY),
                models.PlayerIn(bot=models.PlayerInBot.EASY),
            ],
            seed=11,
        ),
    )
    get_game = _module(client_package, "api.games.get_game")
    finished = eventually(
        lambda: get_game.sync(game.game_id, client=anonymous),
        "the bots to finish the game",
        until=lambda view: view.status.value == "finished",
    )
    calls = _typed_calls(client_package)
    for imported in (
        calls.import_a_fetched_record(url, game.game_id),
        calls.import_a_record_s_text(url, game.game_id),
    ):
        assert isinstance(imported, models.RecordImported)
        assert imported.status.value == "finished"
        assert imported.winners == finished.winners

"""Clients from three TypeScript generators play a whole game against a bot on a live service:
openapi-typescript with openapi-fetch (following the event stream), @hey-api/openapi-ts and
orval (each polling the seat's view). Each program (typescript/play_*.ts) creates a game
against an `easy` bot, posts the first entry of its view's `legal` whenever it is on turn until
the game is finished, then fetches the game's record and imports it back as it is (201).

The clients are generated from the committed document into typescript/generated (git-ignored),
the programs compiled together by `tsc --strict` (typescript/tsconfig.play.json: no cast, no
`any` in them) and run with the machine's node, all three at once against one
`python -m service`. The tools come from npm_tools.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract.npm_tools import DOCUMENT, MARKS, NODE, TOOLS, npm_tools, run_tool  # noqa: F401
from tests.redis_servers import ServiceInstance

pytestmark = MARKS

GENERATED = TOOLS / "generated"
BUILD = GENERATED / "build"
PLAY_SECONDS = 120
"""A bound for a failing run only: a game takes a few seconds."""

# Each generator's command (from node_modules/.bin), as its documentation gives it.
GENERATORS: dict[str, tuple[str | Path, ...]] = {
    "openapi_fetch": ("openapi-typescript", DOCUMENT, "-o", GENERATED / "api.d.ts"),
    "hey_api": ("openapi-ts", "-i", DOCUMENT, "-o", GENERATED / "hey-api", "--no-log-file"),
    "orval": ("orval", "--config", "orval.config.mjs", "--fail-on-warnings"),
}


def _start(*command: str | Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(part) for part in command],
        cwd=TOOLS,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


@pytest.fixture(scope="module")
def generated(npm_tools: Path) -> dict[str, str | None]:  # noqa: F811
    """The three clients generated at once: for each generator, its output if it failed."""
    running = {name: _start(npm_tools / tool, *args) for name, (tool, *args) in GENERATORS.items()}
    failures: dict[str, str | None] = {}
    for name, process in running.items():
        output, _ = process.communicate(timeout=300)
        failures[name] = output if process.returncode else None
    return failures


@pytest.fixture(scope="module")
def compiled(npm_tools: Path, generated: dict[str, str | None]) -> str:  # noqa: F811
    """The programs compiled by `tsc --strict` into typescript/generated/build: its output
    (tsc writes the JavaScript even of a program with type errors, so each still runs)."""
    shutil.rmtree(BUILD, ignore_errors=True)
    done = subprocess.run(
        [str(npm_tools / "tsc"), "-p", "tsconfig.play.json"],
        cwd=TOOLS,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceInstance]:
    """A live service; the polling programs ask for the view many times a second."""
    log = tmp_path_factory.mktemp("service") / "service.log"
    server = ServiceInstance(log, env={"RATE_LIMIT_PER_MINUTE": "0"}).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def games(compiled: str, service: ServiceInstance) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """The three programs, started at once against the service."""
    assert NODE is not None
    env = {**os.environ, "THREE_THIRTEEN_URL": service.url}
    running = {name: _start(NODE, BUILD / f"play_{name}.js", env=env) for name in GENERATORS}
    yield running
    for process in running.values():
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_programs_compile_with_tsc_strict(compiled: str) -> None:
    assert "error" not in compiled, compiled


@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_program_has_no_cast_and_no_any(name: str) -> None:
    """tsc --strict refuses an implicit `any`; the written ones, and casts, are refused here."""
    source = (TOOLS / f"play_{name}.ts").read_text(encoding="utf-8")
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.DOTALL)
    assert not re.search(r"\bas\b|\bany\b|<[A-Z]\w*>\s*[\w(]", code), name


@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_generated_client_plays_a_game_and_imports_its_record(
    name: str,
    generated: dict[str, str | None],
    games: dict[str, subprocess.Popen[str]],
) -> None:
    assert generated[name] is None, generated[name]
    output, _ = games[name].communicate(timeout=PLAY_SECONDS)
    assert games[name].returncode == 0, output
    assert re.fullmatch(r"record [A-Za-z0-9_-]+ finished\n", output), output

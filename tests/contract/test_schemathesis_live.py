"""schemathesis as a team would run it against a deployment: the command docs/contract.md shows
(with fewer cases per operation: ``MAX_EXAMPLES``), no hooks and the committed schemathesis.toml,
against a real `python -m service` on a free port. Every check but ``ignored_auth`` (why:
schemathesis.toml), every phase: it must find no failure and print no warning."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.contract.schemathesis_hooks import CONTRACT_APP_KEY
from tests.redis_servers import LIMITS_OFF, STARTUP_SECONDS
from tests.waiting import WAIT_SECONDS, eventually

ROOT = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
DOCUMENTED_OPTIONS = [
    *("--checks", "all", "--exclude-checks", "ignored_auth,use_after_free"),  # why: the .toml
    *("--phases", "examples,coverage,fuzzing,stateful"),
]
MAX_EXAMPLES = 5
"""Fuzzed cases per operation, a twentieth of schemathesis's default: every phase and check still
runs over every operation, the in-process run (tests/contract/test_schemathesis.py) fuzzes
each operation besides, and the default's minutes of requests would be a third of the suite's
time budget."""


"""A fuzzer is one client sending thousands of requests a minute: the limits (tested in
tests/service/http/test_client_limits.py) would answer most of them 429."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    # The server's log (an access log line per request: thousands here) goes to a file: a pipe
    # nobody reads fills up, and the server then blocks writing to it and never stops.
    log = (tmp_path / "server.log").open("w+b")
    server = subprocess.Popen(
        [sys.executable, "-m", "service"],
        cwd=ROOT,
        env={
            **os.environ,
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "REDIS_URL": "",
            "APP_KEYS": f"contract={CONTRACT_APP_KEY}",  # the app key the hooks send
            **LIMITS_OFF,
        },
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> bool:
            assert server.poll() is None, (tmp_path / "server.log").read_text(errors="replace")
            return httpx.get(f"{url}/healthz", timeout=1).status_code == 200

        eventually(
            healthy,
            "python -m service to start",
            seconds=STARTUP_SECONDS,
            ignoring=(httpx.TransportError,),
        )
        yield url
    finally:
        server.terminate()
        server.wait(timeout=STARTUP_SECONDS)
        log.close()


def test_schemathesis_finds_no_failure_against_a_live_server(served: str) -> None:
    run = subprocess.run(
        [
            *(str(BIN / "schemathesis"), "run", f"{served}/schema/openapi.json"),
            *DOCUMENTED_OPTIONS,
            *("--max-examples", str(MAX_EXAMPLES)),
            # Each request's bound (schemathesis's default is 10 s, which a costly analysis
            # exceeded on a loaded machine): a hung request still fails the run. The response
            # time check (on with `--checks all`, at 10 s unless told) gets the same bound: a
            # loaded machine's slow answer is no contract failure.
            *("--request-timeout", str(WAIT_SECONDS)),
            *("--max-response-time", str(WAIT_SECONDS)),
        ],
        cwd=ROOT,  # where it reads schemathesis.toml
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    report = run.stdout + run.stderr
    assert "schemathesis.toml" in report, report  # the committed configuration was read
    assert run.returncode == 0, report
    assert " passed" in report, report
    # Nor a warning: each operation reached with data it accepts, every link with usable data
    # (schemathesis.toml and the hooks say how; one warning is off for one operation, and why).
    assert "WARNINGS" not in report, report
    assert "Failed to extract data" not in report, report

"""The npm tools of the TypeScript contract tests (test_typescript_client.py,
test_typescript_games.py): their versions are locked in typescript/package-lock.json and
installed by `npm ci` with the machine's node and npm into typescript/node_modules (git-ignored),
again only when the lock file changes. Without node and npm the tests are skipped, saying so.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TOOLS = Path(__file__).parent / "typescript"
DOCUMENT = ROOT / "openapi" / "openapi.json"
NPM = shutil.which("npm")
NODE = shutil.which("node")

# The modules that use the tools run on one worker (make test runs xdist): two `npm ci` at once
# in one folder would break each other, and the fixture below is shared.
MARKS = [
    pytest.mark.xdist_group("npm_tools"),
    pytest.mark.skipif(
        NPM is None or NODE is None,
        reason="node and npm are not installed: the TypeScript clients and redocly lint need them",
    ),
]


def run_tool(*command: str | Path, timeout: float = 300) -> str:
    """Run a command in typescript/, assert it succeeds, and answer its output."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=TOOLS,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


@pytest.fixture(scope="module")
def npm_tools() -> Path:
    """``node_modules/.bin``, installed by ``npm ci`` from the lock file (unless the install of
    this very lock file is there already)."""
    assert NPM is not None
    lock = hashlib.sha256((TOOLS / "package-lock.json").read_bytes()).hexdigest()
    stamp = TOOLS / "node_modules" / ".installed-lock"
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != lock:
        run_tool(NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error")
        stamp.write_text(lock, encoding="utf-8")
    return TOOLS / "node_modules" / ".bin"

"""The committed document through the npm tools a TypeScript team would use: openapi-typescript
generates its types, `tsc --strict` checks the README's calls made with openapi-fetch
(typescript/readme_calls.ts), and `redocly lint` finds no error (its warnings are each
justified in typescript/.redocly.lint-ignore.yaml).

The tools' versions are locked in typescript/package-lock.json and installed by `npm ci` with
the machine's node and npm, into typescript/node_modules (git-ignored), again only when the lock
file changes. Without node and npm these tests are skipped, saying so.
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

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = [
    pytest.mark.xdist_group("test_typescript_client"),
    pytest.mark.skipif(
        NPM is None or NODE is None,
        reason="node and npm are not installed: the TypeScript client and redocly lint need them",
    ),
]


def _run(*command: str | Path, timeout: float = 300) -> str:
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
        _run(NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error")
        stamp.write_text(lock, encoding="utf-8")
    return TOOLS / "node_modules" / ".bin"


def test_the_readme_calls_compile_against_the_generated_types(npm_tools: Path) -> None:
    generated = TOOLS / "generated"
    generated.mkdir(exist_ok=True)
    _run(npm_tools / "openapi-typescript", DOCUMENT, "-o", generated / "api.d.ts")
    _run(npm_tools / "tsc", "-p", "tsconfig.json")


def test_redocly_lint_finds_no_error(npm_tools: Path) -> None:
    output = _run(npm_tools / "redocly", "lint", DOCUMENT, "--format", "summary")
    print(output)
    assert "error" not in output.lower(), output

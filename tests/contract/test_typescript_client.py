"""The committed document through the npm tools a TypeScript team would use: openapi-typescript
generates its types, `tsc --strict` checks the README's calls made with openapi-fetch
(typescript/readme_calls.ts), and `redocly lint` finds no error (its warnings are each
justified in typescript/.redocly.lint-ignore.yaml). The tools come from npm_tools.py.
"""

from __future__ import annotations

from pathlib import Path

from tests.contract.npm_tools import DOCUMENT, MARKS, TOOLS, npm_tools, run_tool  # noqa: F401

pytestmark = MARKS


def test_the_readme_calls_compile_against_the_generated_types(npm_tools: Path) -> None:  # noqa: F811
    generated = TOOLS / "generated"
    generated.mkdir(exist_ok=True)
    run_tool(npm_tools / "openapi-typescript", DOCUMENT, "-o", generated / "api.d.ts")
    run_tool(npm_tools / "tsc", "-p", "tsconfig.json")


def test_redocly_lint_finds_no_error(npm_tools: Path) -> None:  # noqa: F811
    output = run_tool(npm_tools / "redocly", "lint", DOCUMENT, "--format", "summary")
    print(output)
    assert "error" not in output.lower(), output

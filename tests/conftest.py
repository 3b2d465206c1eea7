"""Shared pytest plugins (fixtures that more than one test directory uses), and a guard against
testing a compiled analyser older than its source."""

from pathlib import Path

import pytest

import engine.analysis

pytest_plugins = ["tests.service.conftest_redis"]

ANALYSER = Path(engine.analysis.__file__)
COMPILED = ANALYSER.suffix != ".py"
# What `make native` compiles the extension from (the Makefile rule lists the same files).
SOURCES = ("analysis.py", "cards.py", "rules.py", "errors.py")


def pytest_report_header() -> str:
    return f"engine.analysis: {'compiled by mypyc' if COMPILED else 'pure Python'} ({ANALYSER})"


def pytest_configure(config: pytest.Config) -> None:
    if not COMPILED:
        return
    built = ANALYSER.stat().st_mtime
    newer = [name for name in SOURCES if (ANALYSER.parent / name).stat().st_mtime > built]
    if newer:
        raise pytest.UsageError(
            f"{ANALYSER.name} is older than {', '.join(newer)}: run `make native` (or `make test`)"
            " to rebuild it, or delete engine/*.so to test the pure module"
        )

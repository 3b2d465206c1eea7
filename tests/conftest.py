"""Shared pytest plugins (fixtures that more than one test directory uses), and a guard against
testing engine modules compiled from older sources."""

import importlib.machinery
from pathlib import Path

import pytest

pytest_plugins = ["tests.service.conftest_redis"]

ENGINE = Path(__file__).parent.parent / "engine"


def compiled_modules() -> list[Path]:
    """The engine's sources that have a compiled extension beside them (`make native`)."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return [
        source
        for source in sorted(ENGINE.rglob("*.py"))
        if source.with_name(source.stem + suffix).exists()
    ]


def pytest_report_header() -> str:
    names = [str(path.relative_to(ENGINE.parent)) for path in compiled_modules()]
    return f"compiled by mypyc: {', '.join(names) or 'nothing (pure Python)'}"


def pytest_configure(config: pytest.Config) -> None:
    # The Makefile rebuilds every extension when any engine source changes; so must a test run.
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    newest = max(ENGINE.rglob("*.py"), key=lambda path: path.stat().st_mtime)
    for source in compiled_modules():
        built = source.with_name(source.stem + suffix)
        if newest.stat().st_mtime > built.stat().st_mtime:
            raise pytest.UsageError(
                f"{built.name} is older than {newest.relative_to(ENGINE.parent)}: run `make native`"
                " (or `make test`) to rebuild it, or `make clean` to test the pure modules"
            )

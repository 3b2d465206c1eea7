"""Shared pytest plugins (fixtures that more than one test directory uses), and a guard against
testing modules compiled from older sources."""

import importlib
import importlib.machinery
import importlib.util
import itertools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

pytest_plugins = ["tests.service.conftest_redis"]

ROOT = Path(__file__).parent.parent
ENGINE = ROOT / "engine"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def compiled_modules() -> list[Path]:
    """The sources that have a compiled extension beside them (`make native`)."""
    return [
        source
        for source in sorted(ENGINE.rglob("*.py"))
        if source.with_name(source.stem + SUFFIX).exists()
    ]


def built_from() -> list[Path]:
    """The sources whose change rebuilds an extension, as the Makefile has it: every engine
    module."""
    return list(ENGINE.rglob("*.py"))


def pytest_report_header() -> str:
    names = [str(path.relative_to(ROOT)) for path in compiled_modules()]
    return f"compiled by mypyc: {', '.join(names) or 'nothing (pure Python)'}"


def pytest_configure(config: pytest.Config) -> None:
    # The Makefile rebuilds an extension when any source it is built from changes; so must a
    # test run.
    for source in compiled_modules():
        built = source.with_name(source.stem + SUFFIX)
        newest = max(built_from(), key=lambda path: path.stat().st_mtime)
        if newest.stat().st_mtime > built.stat().st_mtime:
            raise pytest.UsageError(
                f"{built.name} is older than {newest.relative_to(ROOT)}: run `make native`"
                " (or `make test`) to rebuild it, or `make clean` to test the pure modules"
            )


@contextmanager
def interpreted(source: Path, name: str) -> Iterator[ModuleType]:
    """The module of ``source`` run from that Python source, not from its extension, as module
    ``name`` (registered while in use: dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(name, source)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]


@pytest.fixture(autouse=True)
def _seeded_games_deal_alike_in_every_run(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deployment without ``SEED_SECRET`` makes one at random on first need, and mixes every
    game's seed with it and with a seed key made at random for each create that brings none;
    under test that secret is the same in every app and the seed keys come in the same order in
    every run of a test (each create still its own), so a seeded game deals alike in every run
    (``test_records_api`` sets secrets of its own where it compares them)."""
    parts = request.node.path.relative_to(ROOT).parts
    if parts[:2] in (("tests", "service"), ("tests", "contract")):
        monkeypatch.setattr("service.records.given.new_secret", lambda: "the tests' seed secret")
        numbers = itertools.count()
        monkeypatch.setattr(
            "service.records.given.new_seed_key", lambda: f"tests-seed-key-{next(numbers):07d}"
        )

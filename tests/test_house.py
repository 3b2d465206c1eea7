"""The house's own limits, kept by the build (``make test`` runs them, not only ``make lint``):
the floors of ``service/`` and ``engine/`` (import-linter's contracts in pyproject.toml), a
function's complexity, a module's length, and the caches table of docs/architecture.md."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(sys.executable).parent
MAX_MODULE_LINES = 400
PACKAGES = ("engine", "service")


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts over the packages in ``tree`` (first on the path)."""
    return subprocess.run(
        [str(TOOLS / "lint-imports"), "--no-cache", "--no-logo"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_floor_imports_only_the_floors_below_it() -> None:
    linted = _lint_imports(ROOT)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "0 broken" in linted.stdout


def test_a_back_edge_between_features_breaks_the_floors(tmp_path: Path) -> None:
    """The contract is not vacuous: the games importing the tables (a floor above them) fails."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.so", "static"),
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    records = tmp_path / "service" / "games" / "records.py"
    records.write_text(records.read_text() + "\nimport service.tables.routes  # a back edge\n")
    linted = _lint_imports(tmp_path)
    assert linted.returncode != 0
    assert "service.games.records -> service.tables.routes" in linted.stdout


def test_no_function_is_more_complex_than_its_package_allows() -> None:
    """ruff's C901 at the limits in pyproject.toml (service, tests) and engine/ruff.toml."""
    checked = subprocess.run(
        [str(TOOLS / "ruff"), "check", "--select", "C901", "--output-format", "concise", *PACKAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_no_module_is_longer_than_400_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _modules()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


_CACHE_DECORATORS = re.compile(r"\b(lru_cache|cache)\b")
_EMPTY_AT_IMPORT = re.compile(r"^(\{\}|\[\]|set\(\)|dict\(\)|OrderedDict\(\)|weakref\.\w+\(\))$")


def _keeps_something(node: ast.stmt) -> bool:
    """A function memoised by ``functools``, or a container that starts empty at import and is
    filled as the process runs: a cache (or a memo) whatever its name."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        decorated = [node, *(n for n in node.body if isinstance(n, ast.FunctionDef))]
        return any(
            _CACHE_DECORATORS.search(ast.unparse(d)) for f in decorated for d in f.decorator_list
        )
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        value = node.value
        memoised = isinstance(value, ast.Call) and _CACHE_DECORATORS.search(ast.unparse(value.func))
        return bool(memoised or _EMPTY_AT_IMPORT.match(ast.unparse(value)))
    return False


def _modules_with_caches() -> set[str]:
    # Parsed in a process of its own: CPython 3.11.7 keeps the AST converter's recursion count
    # in one state for the whole process (gh-106905, fixed in 3.11.8), so a parse while another
    # thread converts an AST (an earlier test's server thread, say) fails with a spurious
    # "AST constructor recursion depth mismatch"; seen twice in full runs.
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as child:
        return child.submit(_found_with_caches).result()


def _found_with_caches() -> set[str]:
    return {
        str(path.relative_to(ROOT))
        for path in _modules()
        if any(_keeps_something(node) for node in ast.parse(path.read_text()).body)
    }


def _caches_table() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("## Caches, each bounded", 1)[1].split("\n## ", 1)[0]
    assert table.count("\n|") > 2, "docs/architecture.md has no caches table"
    return table


def test_the_caches_table_lists_every_module_that_keeps_a_cache() -> None:
    table = _caches_table()
    unlisted = {module for module in _modules_with_caches() if f"`{module}`" not in table}
    assert unlisted == set(), "add these to docs/architecture.md's caches table, with bounds"


def test_the_caches_table_names_only_modules_that_exist() -> None:
    named = set(re.findall(r"`((?:engine|service)/[\w/]+\.py)`", _caches_table()))
    assert named, "the caches table names its modules by path"
    assert {module for module in named if not (ROOT / module).exists()} == set()

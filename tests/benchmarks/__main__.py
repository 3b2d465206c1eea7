"""``python -m tests.benchmarks [name ...]``: run every ``bench_*.py`` module's ``main()``."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> None:
    wanted = set(sys.argv[1:])
    here = Path(__file__).parent
    for module in sorted(m.name for m in pkgutil.iter_modules([str(here)])):
        if module.startswith("bench_") and (not wanted or module.removeprefix("bench_") in wanted):
            print(f"\n== {module} ==", flush=True)
            importlib.import_module(f"tests.benchmarks.{module}").main()


if __name__ == "__main__":
    main()

"""``python -m service.rebuild [--write]``: compare the ratings kept with those recomputed
from the rated games' journal, or (``--write``) store the recomputed ones
(``service.ratings.rebuild``)."""

from __future__ import annotations

import asyncio
import sys

from service.app.backends import build_backends
from service.ratings.rebuild import run
from service.settings import Settings


def main(argv: list[str]) -> int:
    backends = build_backends(Settings.from_env())
    return asyncio.run(run(backends.ratings, store="--write" in argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Compiles Python modules with mypyc as one group:
``python deploy/build_native.py GROUP [mypy options] MODULE.py ...``.

The modules of one group share one runtime library, so calls between them bind natively. The
mypyc command line names the library of a group of several modules by a hash, at the top level,
outside every package; here it is GROUP, a dotted name inside the project's package (such as
``engine.native``), so it ships as that package's data beside the modules. The extensions are
built in place, beside their sources, as ``mypyc`` itself builds them.
"""

from __future__ import annotations

import sys

from mypyc.build import mypycify
from setuptools import setup


def main() -> None:
    group, *paths = sys.argv[1:]
    setup(
        name="mypyc-group",
        ext_modules=mypycify(paths, opt_level="3", debug_level="1", group_name=group),
        script_args=["build_ext", "--inplace"],
    )


if __name__ == "__main__":
    main()

"""The build: ``hive/`` and the hot modules of ``ai/`` compiled with mypyc, else pure Python.

Everything else about the package is in ``pyproject.toml``; this file only adds the compiled
extensions. The sources stay plain typed Python: without a C compiler (or the Python headers),
with ``HIVE_PURE_BUILD=1`` in the environment, or when compiling fails, the install goes on with
the pure build and says so in one line starting ``hive-arena:`` (``pip install -v`` shows it;
``make`` prints it). An editable install (``pip install -e .``) leaves the compiled ``.so``
files beside the sources (ignored by git); ``tests/pure`` runs the sources without them.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    "hive/board.py",
    "hive/errors.py",
    "hive/game.py",
    "hive/hashing.py",
    "hive/hexes.py",
    "hive/layout.py",
    "hive/movegen.py",
    "hive/notation.py",
    "hive/pieces.py",
    "ai/book.py",
    "ai/bots.py",
    "ai/evaluation.py",
    "ai/proof.py",
    "ai/search.py",
    "ai/symmetry.py",
    "ai/table.py",
    "ai/trace.py",
]
"""The modules compiled: the rules, the search with everything it calls per node, and the
puzzles' proof. The packages' ``__init__`` modules, the IO (``ai/uhp.py``, ``ai/cli.py``,
``ai/arena.py``) and ``server/`` stay Python."""

PURE = "hive-arena: {}: installing the pure Python build (the same rules, slower bots)"


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def why_pure() -> str | None:
    """Why this install cannot be compiled, or None when it can."""
    if os.environ.get("HIVE_PURE_BUILD", "") not in ("", "0"):
        return "HIVE_PURE_BUILD is set"
    if sys.implementation.name != "cpython":
        return f"mypyc needs CPython, not {sys.implementation.name}"
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if not shutil.which(compiler):
        return f"no C compiler ({compiler}) found"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "no Python headers (Python.h) found"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc (from mypy) is not installed"
    return None


def remove_compiled() -> None:
    """Delete the ``.so`` files an earlier compiled editable install left beside the sources:
    Python would import them before the sources."""
    here = Path(__file__).resolve().parent
    for path in COMPILED:
        source = here / path
        for stale in source.parent.glob(f"{source.stem}.*.so"):
            stale.unlink()
    for shared in here.glob("*__mypyc.*.so"):
        shared.unlink()


class BuildExt(build_ext):
    """``build_ext`` that falls back to the pure build when the C compiler fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # a compiler error: the sources still run as they are
            why = f"compiling failed ({type(error).__name__}; pip install -v shows the compiler)"
            say(PURE.format(why))
            self.extensions = []
            remove_compiled()
            return
        if self.extensions:
            say("hive-arena: compiled hive/ and ai/'s search with mypyc")

    def get_outputs(self) -> list[str]:
        return super().get_outputs() if self.extensions else []


def ext_modules() -> list[Any]:
    if {"dist_info", "egg_info"} & set(sys.argv[1:]):  # metadata only: nothing to compile
        return []
    reason = why_pure()
    if reason is not None:
        say(PURE.format(reason))
        remove_compiled()
        return []
    from mypyc.build import mypycify

    return mypycify(COMPILED, opt_level="3", debug_level="0")


setup(ext_modules=ext_modules(), cmdclass={"build_ext": BuildExt})

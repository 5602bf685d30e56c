"""Which build of ``hive`` and ``ai`` this process imports: compiled by mypyc, or pure."""

from __future__ import annotations

import importlib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

COMPILED_MODULES = (
    "hive.board",
    "hive.errors",
    "hive.game",
    "hive.hashing",
    "hive.hexes",
    "hive.layout",
    "hive.movegen",
    "hive.notation",
    "hive.pieces",
    "ai.book",
    "ai.bots",
    "ai.evaluation",
    "ai.proof",
    "ai.search",
    "ai.symmetry",
    "ai.table",
    "ai.trace",
)
"""The modules ``setup.py`` compiles."""


def is_compiled(name: str) -> bool:
    return str(importlib.import_module(name).__file__).endswith(tuple(EXTENSION_SUFFIXES))


def build_name() -> str:
    compiled = [name for name in COMPILED_MODULES if is_compiled(name)]
    if not compiled:
        return "pure (the .py sources)"
    if len(compiled) == len(COMPILED_MODULES):
        return "compiled (mypyc)"
    return f"mixed: only {', '.join(compiled)} compiled"


def stale_modules(root: Path) -> list[str]:
    """The compiled modules whose ``.so`` beside the source is older than the source: an
    editable install runs them until it is built again (``make`` does)."""
    stale = []
    for name in COMPILED_MODULES:
        source = root.joinpath(*name.split(".")).with_suffix(".py")
        for compiled in source.parent.glob(f"{source.stem}.*.so"):
            if compiled.stat().st_mtime < source.stat().st_mtime:
                stale.append(str(source.relative_to(root)))
    return stale

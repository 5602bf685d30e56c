"""The rules engine is pure: hive/ imports only pure standard-library modules and itself.

The checker walks each file's syntax tree (imports anywhere, not only at the top), and is
itself tested on synthetic sources so that this test can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.vectors import ROOT

HIVE = ROOT / "hive"
HIVE_FILES = sorted(HIVE.rglob("*.py"))

ALLOWED: frozenset[str] = frozenset(
    {
        "__future__",
        "collections",
        "collections.abc",
        "dataclasses",
        "enum",
        "functools",
        "itertools",
        "re",
        "typing",
    }
)
"""Pure standard-library modules hive/ may import; ``hive`` and ``hive.*`` are allowed too."""

TYPES_ONLY: frozenset[str] = frozenset({"mypy_extensions"})
"""Modules hive/ may import only under ``if TYPE_CHECKING:``, which never runs: their names
are annotations (the compiled build's fixed-width ``i64``), plain ``int`` when run as Python."""

REFUSED = (
    "asyncio",
    "logging",
    "os",
    "sys",
    "time",
    "random",
    "json",
    "socket",
    "io",
    "ai",
    "server",
)
FORBIDDEN_CALLS = frozenset({"__import__", "print", "open", "input", "exec", "eval"})


def is_allowed(module: str) -> bool:
    return module in ALLOWED or module == "hive" or module.startswith("hive.")


def forbidden_imports(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: name`` for each import of a module outside the allow-list, and each call
    of a builtin that does IO or imports by name."""
    found: list[tuple[int, int, str]] = []  # (line, column, what)
    tree = ast.parse(source, filename)
    for_types = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:  # a relative import stays inside hive/
                modules = [node.module or ""] if node.level == 0 else []
            found.extend(
                (node.lineno, node.col_offset, module)
                for module in modules
                if not is_allowed(module) and not (module in TYPES_ONLY and id(node) in for_types)
            )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FORBIDDEN_CALLS
        ):
            found.append((node.lineno, node.col_offset, f"call of {node.func.id}()"))
    return [f"{filename}:{line}: {what}" for line, _, what in sorted(found)]


def test_hive_has_the_files_we_expect() -> None:
    names = {path.name for path in HIVE_FILES}
    assert {"__init__.py", "board.py", "game.py", "movegen.py", "notation.py"} <= names


@pytest.mark.parametrize("path", HIVE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_hive_module_is_pure(path: Path) -> None:
    assert forbidden_imports(path.read_text(), str(path.relative_to(ROOT))) == []


@pytest.mark.parametrize("module", REFUSED)
def test_impure_modules_are_refused(module: str) -> None:
    assert not is_allowed(module)
    assert forbidden_imports(f"import {module}\n") == [f"<source>:1: {module}"]
    assert forbidden_imports(f"from {module} import something\n") == [f"<source>:1: {module}"]
    assert forbidden_imports(f"import {module}.sub as alias\n") == [f"<source>:1: {module}.sub"]


def test_checker_finds_imports_anywhere_in_a_file() -> None:
    source = (
        "from __future__ import annotations\n"
        "import re\n"
        "from collections.abc import Iterator\n"
        "from hive.board import Board\n"
        "from . import pieces\n"
        "import hive.hexes\n"
        "def later() -> None:\n"
        "    import os.path\n"
        "    if True:\n"
        "        from ai import search\n"
        "class C:\n"
        "    import time, itertools\n"
        "try:\n"
        "    import json\n"
        "except ImportError:\n"
        "    pass\n"
        "print(__import__('socket'))\n"
    )
    assert forbidden_imports(source) == [
        "<source>:8: os.path",
        "<source>:10: ai",
        "<source>:12: time",
        "<source>:14: json",
        "<source>:17: call of print()",
        "<source>:17: call of __import__()",
    ]


@pytest.mark.parametrize("module", [*sorted(ALLOWED), "hive", "hive.game", "hive.pieces"])
def test_pure_modules_are_allowed(module: str) -> None:
    assert forbidden_imports(f"import {module}\n") == []
    assert forbidden_imports(f"from {module} import something\n") == []


@pytest.mark.parametrize("near_miss", ["hivemind", "hive_extra", "typing_extensions", "regex"])
def test_names_that_only_look_allowed_are_refused(near_miss: str) -> None:
    assert forbidden_imports(f"import {near_miss}\n") == [f"<source>:1: {near_miss}"]


def test_a_module_for_types_only_is_allowed_only_where_it_never_runs() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from mypy_extensions import i64\n"
        "    import os\n"
        "else:\n"
        "    from mypy_extensions import i32\n"
        "import mypy_extensions\n"
    )
    assert forbidden_imports(source) == [
        "<source>:4: os",
        "<source>:6: mypy_extensions",
        "<source>:7: mypy_extensions",
    ]

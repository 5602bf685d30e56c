"""The tree draws the architecture: a walk of the imports fails on an arrow up or a cycle.

Every module of ``hive``, ``ai``, ``protocol``, ``server`` and ``hivebot`` is read with ``ast``
(never imported): every ``import`` and ``from ... import`` anywhere in it counts, those under
``if TYPE_CHECKING:`` and inside functions too, relative ones resolved against the module's
package. ``from package import name`` is an import of ``package.name`` when that is a module,
else of ``package``; an import of ``a.b`` is not counted as one of ``a`` too (Python runs
``a/__init__.py`` first, but that is no arrow of the design). Only the project's own modules
count; tests and benchmarks are not walked for these arrows (they may import anything of the
project). One rule holds for the tests: no module under ``tests/`` imports a test module
(``test_*``); what tests share is in their support modules and conftest.py files. And one of
size: no module of ``server``, ``hivebot`` or ``protocol`` over ``MODULE_LINES`` lines nor
class over ``CLASS_LINES``, no module of the web client (``client/js``) over ``CLIENT_LINES``,
but as ``TOO_LONG`` allows.

The arrows allowed::

    hive      imports nothing of the project (the rules are pure)
    ai        -> hive                       (never protocol, server, hivebot)
    protocol  imports nothing of the project (the wire alone: its values are plain types, it
              needs no rule of the game)
    server    -> protocol, ai, hive         (never hivebot)
    hivebot   -> protocol, ai, hive         (never server)

Inside ``server``, folders by layer (each ``__init__.py`` says what it may import), arrows
pointing down (``SERVER_LAYERS``: the edge -> the requests -> live -> the archive -> storage ->
the game; a module imports its own layer and those below, never one above). Two more rules hold
here: the server's top level holds at most ``TOP_LEVEL_MODULES`` modules (the rest are in its
folders), and its game, ``server.game``, is pure: it imports nothing of the server outside
``server.game``, and none of ``NOT_PURE`` (Redis, SQL, websockets, asyncio).

No module imports the wiring, ``server.runtime``, but ``server.__main__`` (the entry point
that starts it): every part's constructor names what it uses (issue 34 took the service
locator, a ``Hub`` each part held, away). No import cycle, but the one of ``ALLOWED_CYCLES``.

That list can only shrink: a cycle that is gone or smaller fails the test until the list says
so. The checker itself is tried on
synthetic trees, so that each rule is seen to fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

import pytest

from tests.vectors import ROOT

PACKAGES: Final = ("hive", "ai", "protocol", "server", "hivebot")

MAY_IMPORT: Final[Mapping[str, frozenset[str]]] = {
    "hive": frozenset({"hive"}),
    "ai": frozenset({"ai", "hive"}),
    "protocol": frozenset({"protocol"}),
    "server": frozenset({"server", "protocol", "ai", "hive"}),
    "hivebot": frozenset({"hivebot", "protocol", "ai", "hive"}),
}
"""The packages each package may import (itself included)."""

SERVER_LAYERS: Final = (
    "server.game",
    "server.storage",
    "server.archive",
    "server.live",
    "server.requests",
    "server.edge",
)
"""The server's folders by layer, from the bottom: a module of one may import its own layer's
modules and those of the layers below it, never those above. The top level (the wiring, the
entry point, the settings, the embedded Redis) is in no layer."""

WIRING: Final = "server.runtime"
ENTRY_POINTS: Final = frozenset({"server.__main__"})
"""The modules that must import the wiring: the server's entry point starts it."""

TOP_LEVEL_MODULES: Final = 10
"""The most modules ``server/`` itself may hold (``__init__`` and ``__main__`` count); the
rest are in its folders by layer."""

PURE: Final = "server.game"
NOT_PURE: Final = frozenset({"asyncio", "redis", "sqlalchemy", "alembic", "websockets"})
"""What ``server.game`` may not import: storage (Redis, SQL), the network, the event loop."""

ALLOWED_CYCLES: Final[Mapping[str, frozenset[str]]] = {
    "the rules' move generator": frozenset({"hive.game", "hive.movegen"}),
}
"""The import cycles of today, by name: each one a strongly connected component of the import
graph (every module in it reaches every other). Only these may exist, exactly as listed: one
that grows, or a new one, fails, and so does one that shrank or is gone until it is taken off
(or made smaller) here.

``the rules' move generator``:
``hive.movegen`` takes the ``hive.game.Game`` it reads under ``TYPE_CHECKING`` (``hive.game``
calls ``movegen.generate``); the one cycle outside ``server/``, named here rather than broken:
mypyc compiles both against the concrete ``Game`` (its fields read natively in the hottest loop
of the rules, ``bench.perft``), which a ``Protocol`` in its place would turn into Python
attribute lookups."""


# -- the checker ---------------------------------------------------------------------------------

Graph = dict[str, set[str]]


def modules(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name (a package by its own)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name a ``from`` import starts from (relative ones against the package)."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        package = package[: -(node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _known(name: str, known: Mapping[str, object]) -> str | None:
    """``name``, or the longest dotted prefix of it, that is a module of the project."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def imports_of(module: str, source: str, known: Mapping[str, object], *, package: bool) -> set[str]:
    """The project's modules ``source`` (module ``module``) imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=module)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, package, node)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            target = _known(name, known)
            if target is not None and target != module:
                found.add(target)
    return found


def graph(root: Path, packages: Iterable[str] = PACKAGES) -> Graph:
    """The import graph of the project's modules under ``root``."""
    found = modules(root, packages)
    return {
        name: imports_of(name, path.read_text(), found, package=path.name == "__init__.py")
        for name, path in found.items()
    }


def _layer(module: str) -> int | None:
    """The rank of ``module``'s layer in ``SERVER_LAYERS`` (None: in none)."""
    for rank, layer in enumerate(SERVER_LAYERS):
        if module == layer or module.startswith(f"{layer}."):
            return rank
    return None


def arrows_up(imports: Graph) -> list[str]:
    """``a -> b`` for each import that the layers forbid: the packages' (``MAY_IMPORT``), and
    the server's folders' (``SERVER_LAYERS``)."""
    wrong = []
    for module, targets in sorted(imports.items()):
        package = module.split(".")[0]
        below = _layer(module)
        for target in sorted(targets):
            above = _layer(target)
            if target.split(".")[0] not in MAY_IMPORT.get(package, frozenset()) or (
                below is not None and above is not None and above > below
            ):
                wrong.append(f"{module} -> {target}")
    return wrong


def wiring_imports(imports: Graph) -> set[str]:
    """The modules that import the wiring, but the entry points."""
    return {m for m, targets in imports.items() if WIRING in targets and m not in ENTRY_POINTS}


def cycles(imports: Graph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    counter = 0
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in imports:
                    continue
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imports[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def cycle_problems(imports: Graph, allowed: Mapping[str, frozenset[str]]) -> list[str]:
    """What is wrong with the cycles of ``imports``, given the ``allowed`` ones."""
    problems = []
    present = cycles(imports)
    for component in present:
        if component in allowed.values():
            continue
        outside = any(not module.startswith("server.") for module in component)
        what = "a cycle outside server/" if outside else "a new cycle"
        grown = [name for name, cycle in allowed.items() if cycle < component]
        if grown:
            what += f" (the allowed {grown[0]!r} grew into it)"
        problems.append(f"{what}: {' <-> '.join(sorted(component))}")
    for name, cycle in allowed.items():
        if not any(cycle <= component for component in present):
            problems.append(
                f"the allowed cycle {name!r} is gone or smaller: take it off ALLOWED_CYCLES "
                "(or list what remains of it)"
            )
    return problems


def problems(imports: Graph) -> list[str]:
    """Every broken rule of the tree's imports, as lines to read."""
    found = [f"arrow up: {arrow}" for arrow in arrows_up(imports)]
    for module in sorted(wiring_imports(imports)):
        found.append(f"imports the wiring ({WIRING}): {module}")
    return found + cycle_problems(imports, ALLOWED_CYCLES)


def libraries_of(module: str, source: str, known: Mapping[str, object]) -> set[str]:
    """The top-level names of what ``source`` (module ``module``) imports from outside the
    project (the standard library and the dependencies), anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=module)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names if _known(name, known) is None}
    return found


def server_problems(root: Path) -> list[str]:
    """What breaks the server's own rules under ``root``: more than ``TOP_LEVEL_MODULES``
    modules at its top level, and an import of ``server.game`` out of the game (into the rest
    of the server, or into one of ``NOT_PURE``)."""
    found = []
    top = sorted(path.stem for path in (root / "server").glob("*.py"))
    if len(top) > TOP_LEVEL_MODULES:
        found.append(
            f"the server's top level holds {len(top)} modules, at most {TOP_LEVEL_MODULES} "
            f"(the rest go in its folders): {', '.join(top)}"
        )
    known = modules(root)
    for module, path in sorted(known.items()):
        if module != PURE and not module.startswith(f"{PURE}."):
            continue
        source = path.read_text()
        package = path.name == "__init__.py"
        for target in sorted(imports_of(module, source, known, package=package)):
            if target.split(".")[0] == "server" and not target.startswith(PURE):
                found.append(f"the game is not pure: {module} -> {target}")
        for library in sorted(libraries_of(module, source, known) & NOT_PURE):
            found.append(f"the game is not pure: {module} -> {library}")
    return found


# -- the tree ----------------------------------------------------------------------------------


def test_the_tree_has_no_arrow_up_no_new_cycle_and_one_entry_to_the_wiring() -> None:
    imports = graph(ROOT)
    assert len(imports) > 80, "the walk found too few modules"
    found = problems(imports)
    assert not found, "\n".join(["the imports break the architecture:", *found])


def test_the_server_s_top_level_is_small_and_its_game_pure() -> None:
    assert (ROOT / "server" / "game" / "match.py").exists(), "the walk found no game"
    found = server_problems(ROOT)
    assert not found, "\n".join(["the server breaks its own layout:", *found])


OUTSIDE_SERVER: Final = frozenset({"the rules' move generator"})
"""The allowed cycles outside ``server/``: one, named; no other may be added."""


def test_the_allowed_cycles_are_the_server_s_but_one_named() -> None:
    for name, cycle in ALLOWED_CYCLES.items():
        if name in OUTSIDE_SERVER:
            assert len({module.split(".")[0] for module in cycle}) == 1, name
        else:
            assert all(module.startswith("server.") for module in cycle), name
    assert {"the rules' move generator"} == OUTSIDE_SERVER


# -- the checker on synthetic trees: each rule fails -------------------------------------------


def tree(tmp_path: Path, files: Mapping[str, str]) -> Graph:
    """The import graph of a small tree of ``files`` (path -> source), every package of it
    with an ``__init__.py``."""
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
        (tmp_path / package / "__init__.py").touch()
    return graph(tmp_path)


def test_imports_are_resolved_relative_type_checking_and_from_package_alike(
    tmp_path: Path,
) -> None:
    imports = tree(
        tmp_path,
        {
            "server/a.py": (
                "from typing import TYPE_CHECKING\n"
                "from . import b\n"
                "from .c import thing\n"
                "from protocol import codec, Hello\n"
                "import ai.search\n"
                "if TYPE_CHECKING:\n"
                "    from server.runtime import Hub\n"
                "def late():\n"
                "    import hive.game\n"
            ),
            "server/b.py": "",
            "server/c.py": "",
            "server/runtime.py": "",
            "server/sub/__init__.py": "from .. import b\nfrom . import d\n",
            "server/sub/d.py": "",
            "protocol/codec.py": "",
            "ai/search.py": "",
            "hive/game.py": "",
        },
    )
    assert imports["server.a"] == {
        "server.b",
        "server.c",
        "protocol.codec",
        "protocol",
        "ai.search",
        "server.runtime",
        "hive.game",
    }
    assert imports["server.sub"] == {"server.b", "server.sub.d"}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"hive/board.py": "from ai import search\n"}, "arrow up: hive.board -> ai"),
        ({"hive/board.py": "import protocol\n"}, "arrow up: hive.board -> protocol"),
        (
            {"ai/search.py": "if TYPE_CHECKING:\n    from server.storage.store import Store\n"},
            "arrow up: ai.search -> server",
        ),
        ({"ai/search.py": "import hivebot\n"}, "arrow up: ai.search -> hivebot"),
        ({"ai/search.py": "from protocol import Hello\n"}, "arrow up: ai.search -> protocol"),
        ({"protocol/codec.py": "from server import codec\n"}, "arrow up: protocol.codec -> server"),
        ({"protocol/codec.py": "import hive\n"}, "arrow up: protocol.codec -> hive"),
        (
            {"hivebot/cli.py": "from server.client import Client\n"},
            "arrow up: hivebot.cli -> server",
        ),
        (
            {"server/live/lobby.py": "from hivebot import engines\n"},
            "arrow up: server.live.lobby -> hivebot",
        ),
        (
            {
                "server/live/botturns.py": "from server.edge.metrics import SERVER_BOT\n",
                "server/edge/metrics.py": "",
            },
            "arrow up: server.live.botturns -> server.edge.metrics",
        ),
        (
            {
                "server/requests/seating.py": (
                    "if TYPE_CHECKING:\n    from server.edge.connection import Connections\n"
                ),
                "server/edge/connection.py": "",
            },
            "arrow up: server.requests.seating -> server.edge.connection",
        ),
        (
            {
                "server/storage/store.py": "from server.archive import games\n",
                "server/archive/games.py": "",
            },
            "arrow up: server.storage.store -> server.archive.games",
        ),
        (
            {
                "server/game/view.py": "from server.live.cache import CachedGame\n",
                "server/live/cache.py": "",
            },
            "arrow up: server.game.view -> server.live.cache",
        ),
        (
            {
                "server/storage/store.py": "from server.runtime import Hub\n",
                "server/runtime.py": "",
            },
            "imports the wiring (server.runtime): server.storage.store",
        ),
        (
            {"hivebot/cli.py": "from server import runtime\n", "server/runtime.py": ""},
            "imports the wiring (server.runtime): hivebot.cli",
        ),
        (
            {"hive/a.py": "from hive import b\n", "hive/b.py": "from . import a\n"},
            "a cycle outside server/: hive.a <-> hive.b",
        ),
        (
            {"server/a.py": "from server import b\n", "server/b.py": "from server import a\n"},
            "a new cycle: server.a <-> server.b",
        ),
    ],
)
def test_each_rule_fails_when_broken(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    assert any(expected in line for line in problems(tree(tmp_path, files)))


def test_each_layer_may_import_its_own_and_those_below(tmp_path: Path) -> None:
    imports = tree(
        tmp_path,
        {
            "server/edge/http.py": (
                "from server.edge import answers\nfrom server.requests import profiles\n"
                "from server.live import cache\nfrom server.archive import games\n"
                "from server.storage import store\nfrom server.game import record\n"
                "from server import settings\n"
            ),
            "server/edge/answers.py": "",
            "server/requests/profiles.py": "from server.archive.games import Archive\n",
            "server/live/cache.py": "from server.storage.store import Store\n",
            "server/archive/games.py": "from server.storage.store import Store\n",
            "server/storage/store.py": "from server.game.record import Record\n",
            "server/game/record.py": "",
            "server/settings.py": "",
            "server/runtime.py": "from server.edge.http import http\n",
        },
    )
    assert arrows_up(imports) == []


def test_the_entry_point_may_import_the_wiring(tmp_path: Path) -> None:
    imports = tree(
        tmp_path,
        {"server/__main__.py": "from server.runtime import running\n", "server/runtime.py": ""},
    )
    assert wiring_imports(imports) == set()


def test_an_allowed_cycle_may_only_shrink_with_its_list(tmp_path: Path) -> None:
    imports = tree(
        tmp_path,
        {
            "server/a.py": "from server import b\n",
            "server/b.py": "from server import c\n",
            "server/c.py": "from server import a\n",
        },
    )
    whole = frozenset({"server.a", "server.b", "server.c"})
    assert cycle_problems(imports, {"abc": whole}) == []
    smaller = {"abc": frozenset({"server.a", "server.b"})}
    assert any("grew into it" in line for line in cycle_problems(imports, smaller))
    imports["server.c"] = set()  # the cycle is broken: the list must say so
    assert cycle_problems(imports, {"abc": whole}) == [
        "the allowed cycle 'abc' is gone or smaller: take it off ALLOWED_CYCLES (or list what "
        "remains of it)"
    ]


def test_no_module_but_the_entry_point_may_import_the_wiring(tmp_path: Path) -> None:
    imports = tree(
        tmp_path,
        {
            "server/__main__.py": "from server.runtime import running\n",
            "server/edge/metrics.py": "if TYPE_CHECKING:\n    from server.runtime import Hub\n",
            "server/runtime.py": "",
        },
    )
    wiring = [line for line in problems(imports) if WIRING in line]
    assert wiring == ["imports the wiring (server.runtime): server.edge.metrics"]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {f"server/m{n}.py": "" for n in range(10)},
            "the server's top level holds 11 modules, at most 10",  # with __init__
        ),
        (
            {"server/game/view.py": "from server.storage.store import Store\n"},
            "the game is not pure: server.game.view -> server",
        ),
        (
            {
                "server/game/view.py": "if TYPE_CHECKING:\n    from server.live import cache\n",
                "server/live/cache.py": "",
            },
            "the game is not pure: server.game.view -> server.live.cache",
        ),
        (
            {"server/game/view.py": "from server import settings\n", "server/settings.py": ""},
            "the game is not pure: server.game.view -> server.settings",
        ),
        (
            {"server/game/rating.py": "from sqlalchemy import select\n"},
            "the game is not pure: server.game.rating -> sqlalchemy",
        ),
        (
            {"server/game/__init__.py": "def later():\n    import redis.asyncio\n"},
            "the game is not pure: server.game -> redis",
        ),
        (
            {"server/game/clock.py": "import asyncio\n"},
            "the game is not pure: server.game.clock -> asyncio",
        ),
        (
            {"server/game/view.py": "from websockets.asyncio.server import broadcast\n"},
            "the game is not pure: server.game.view -> websockets",
        ),
    ],
)
def test_each_rule_of_the_server_fails_when_broken(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    tree(tmp_path, files)
    assert any(expected in line for line in server_problems(tmp_path))


def test_the_game_may_import_itself_the_wire_and_the_rules(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "server/game/view.py": (
                "import time\nfrom . import match\nfrom server.game.record import Record\n"
                "from protocol import Seat\nfrom hive import Game\nimport glicko2\n"
            ),
            "server/game/match.py": "",
            "server/game/record.py": "",
            **{f"server/m{n}.py": "" for n in range(9)},
        },
    )
    assert server_problems(tmp_path) == []


# -- the tests: no test module imports another -----------------------------------------------


def imports_of_test_modules(root: Path) -> list[str]:
    """``a -> b`` for each module under ``root/tests`` that imports a test module ``b`` (one
    named ``test_*``, or a name of one): what tests share lives in their support modules
    and conftest.py files, so that a test module is only ever run, never imported."""
    found = []
    for module, path in sorted(modules(root, ("tests",)).items()):
        package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, package, node)
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            for name in names:
                parts = name.split(".")
                tests = [n for n, part in enumerate(parts) if part.startswith("test_")]
                if tests:
                    found.append(f"{module} -> {'.'.join(parts[: tests[0] + 1])}")
    return sorted(set(found))


def test_no_test_module_is_imported_by_another_module_of_the_tests() -> None:
    found = imports_of_test_modules(ROOT)
    assert not found, "\n".join(["modules of the tests import a test module:", *found])


@pytest.mark.parametrize(
    "source",
    [
        "from tests.server.test_http import raw_http\n",
        "import tests.server.test_http\n",
        "from tests.server import test_http\n",
        "from ..server.test_http import raw_http\n",
        "def later():\n    from tests.server.test_http import raw_http\n",
    ],
)
def test_a_test_module_imported_fails(tmp_path: Path, source: str) -> None:
    for folder in ("tests", "tests/server", "tests/client"):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / "__init__.py").touch()
    (tmp_path / "tests/server/test_http.py").write_text("def raw_http(): ...\n")
    (tmp_path / "tests/client/support.py").write_text(source)
    assert [line.split(" -> ")[0] for line in imports_of_test_modules(tmp_path)] == [
        "tests.client.support"
    ]
    (tmp_path / "tests/client/support.py").write_text("from tests.server.support import x\n")
    assert imports_of_test_modules(tmp_path) == []


# -- sizes: modules and classes a reader takes in whole -------------------------------------------

SIZED: Final = ("server", "hivebot", "protocol")
"""The Python packages whose modules and classes are held to ``MODULE_LINES`` and
``CLASS_LINES`` (``hive`` and ``ai`` are not: their hot paths are compiled with mypyc and
kept whole, the rules' ``Game`` and the search's ``_Searcher``)."""

MODULE_LINES: Final = 450
CLASS_LINES: Final = 250
CLIENT_LINES: Final = 400
"""The most lines a Python module, a Python class and a module of the web client
(``client/js``) may hold."""

TOO_LONG: Final[Mapping[str, int]] = {}
"""The modules allowed over their limit, each at most at its lines of today. The list can only
shrink: a module that grows fails, and one back under its limit fails until it is taken off."""


def size_problems(root: Path, too_long: Mapping[str, int] = TOO_LONG) -> list[str]:
    """Each module over its limit (``MODULE_LINES``, ``CLIENT_LINES`` for the web client's)
    but as ``too_long`` allows, each class over ``CLASS_LINES``, and each module of
    ``too_long`` that no longer needs to be there."""
    found = []
    paths = [(path, MODULE_LINES) for package in SIZED for path in (root / package).rglob("*.py")]
    paths += [(path, CLIENT_LINES) for path in (root / "client" / "js").glob("*.js")]
    for path, limit in sorted(paths):
        name = path.relative_to(root).as_posix()
        source = path.read_text()
        lines = len(source.splitlines())
        allowed = too_long.get(name)
        if allowed is not None and lines <= limit:
            found.append(f"{name} holds {lines} lines, within {limit}: take it off TOO_LONG")
        elif lines > (allowed or limit):
            found.append(f"{name} holds {lines} lines, more than {allowed or limit}")
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(source, filename=name)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > CLASS_LINES:
                    found.append(
                        f"{name}: class {node.name} holds {length} lines, more than {CLASS_LINES}"
                    )
    for name in sorted(set(too_long) - {p.relative_to(root).as_posix() for p, _ in paths}):
        found.append(f"{name} is gone: take it off TOO_LONG")
    return found


def test_no_module_or_class_is_too_long_to_take_in_whole() -> None:
    assert (ROOT / "client" / "js" / "app.js").exists(), "the walk found no client"
    found = size_problems(ROOT)
    assert not found, "\n".join(["too long to take in whole:", *found])


def test_each_size_rule_fails_when_broken(tmp_path: Path) -> None:
    def write(name: str, lines: int, text: str = "x = 1\n") -> None:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text * lines)

    write("server/a.py", MODULE_LINES)
    write("protocol/b.py", 1, "class B:\n" + "    x = 1\n" * (CLASS_LINES - 1))
    write("client/js/c.js", CLIENT_LINES, "x;\n")
    assert size_problems(tmp_path, {}) == []
    write("hivebot/d.py", MODULE_LINES + 1)
    write("protocol/b.py", 1, "class B:\n" + "    x = 1\n" * CLASS_LINES)
    write("client/js/c.js", CLIENT_LINES + 1, "x;\n")
    write("server/e.py", 10)
    write("hive/game.py", MODULE_LINES + 1)  # not held to it
    assert size_problems(tmp_path, {"server/e.py": 500, "server/f.py": 500}) == [
        "client/js/c.js holds 401 lines, more than 400",
        "hivebot/d.py holds 451 lines, more than 450",
        "protocol/b.py: class B holds 251 lines, more than 250",
        "server/e.py holds 10 lines, within 450: take it off TOO_LONG",
        "server/f.py is gone: take it off TOO_LONG",
    ]
    write("server/e.py", 501)
    assert size_problems(tmp_path, {"server/e.py": 500})[-1] == (
        "server/e.py holds 501 lines, more than 500"
    )

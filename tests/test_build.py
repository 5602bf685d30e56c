"""The build under test is whole: every module ``setup.py`` compiles is compiled, or none is
(``pytest --pure`` asks for none)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.build import COMPILED_MODULES, build_name, is_compiled

SETUP = Path(__file__).resolve().parents[1] / "setup.py"


def setup_compiled() -> list[str]:
    """The modules of ``setup.py``'s ``COMPILED`` list, as dotted names."""
    for node in ast.parse(SETUP.read_text()).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED":
            paths = ast.literal_eval(node.value)
            return [path.removesuffix(".py").replace("/", ".") for path in paths]
    raise AssertionError("setup.py has no COMPILED list")


def test_the_tests_know_which_modules_setup_compiles() -> None:
    assert setup_compiled() == list(COMPILED_MODULES)


def test_a_run_tests_one_whole_build(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("pure"):
        assert not any(is_compiled(name) for name in COMPILED_MODULES)
    assert not build_name().startswith("mixed")

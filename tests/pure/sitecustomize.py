"""The pure build: ``hive`` and ``ai`` imported from their ``.py`` sources, never from the
``.so`` files that mypyc compiled beside them (``setup.py``).

Python imports this module at start-up when its folder is on ``PYTHONPATH``, as
``sitecustomize``, so that every process of a run uses the pure build, the subprocesses
that tests start included: ``pytest --pure`` (``tests/conftest.py``) puts the folder there.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGES = ("hive", "ai")


class SourceFinder:
    """A finder placed first in ``sys.meta_path``: it asks the other finders for a module of
    ``PACKAGES`` and, when they find a compiled one, returns its source beside it instead.

    A process may hold this module twice, as ``sitecustomize`` and as
    ``tests.pure.sitecustomize`` (a pytest-xdist worker of ``pytest --pure``): the finders of
    both copies say ``pure_build``, so that only one is installed and neither asks the other."""

    pure_build = True

    @classmethod
    def find_spec(
        cls, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name.partition(".")[0] not in PACKAGES:
            return None
        for finder in sys.meta_path:
            if getattr(finder, "pure_build", False) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        origin = spec.origin or ""
        if not origin.endswith(tuple(EXTENSION_SUFFIXES)):
            return spec
        source = Path(origin).with_name(name.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(name, source)


def install() -> None:
    """Put the finder first (once); modules already imported stay as they are."""
    if not any(getattr(finder, "pure_build", False) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceFinder)


install()

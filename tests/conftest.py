"""``pytest --pure``: run the tests on the pure build (the ``.py`` sources of ``hive`` and
``ai``) even where mypyc has compiled them; ``make test`` runs ``tests/hive`` and ``tests/ai``
both ways. The header names the build each run tests.

A run started in the background by a shell without job control (``nohup make test &``)
inherits SIGINT ignored, and so would every program a test starts (Python installs no
KeyboardInterrupt handler then): the tests of Ctrl-C need it as a terminal gives it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE_DIR = ROOT / "tests" / "pure"

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # a handler, unlike SIG_IGN, ends at exec
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--pure",
        action="store_true",
        help="import hive and ai from their .py sources, not the compiled .so (subprocesses too)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("pure"):
        from tests.pure import sitecustomize

        sitecustomize.install()  # this process; subprocesses import it from PYTHONPATH
        paths = [str(PURE_DIR), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        return
    from tests.build import stale_modules

    stale = stale_modules(ROOT)
    if stale:
        raise pytest.UsageError(
            f"compiled modules older than their sources ({', '.join(stale)}): build again "
            "(make, or pip install --no-build-isolation -e .), or test the sources: --pure"
        )


def pytest_report_header(config: pytest.Config) -> str:
    from tests.build import build_name

    return f"hive-arena build: {build_name()}"

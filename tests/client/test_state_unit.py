"""The web client's pure modules (the state's transitions in ``client/js/state.js``,
``subscription.js`` and ``players.js``, the derived views of ``views.js``, the addresses of
``route.js``), and playing a game (``play.js``) and the page's actions (``actions.js``) given
a fake page, unit-tested with Node's own runner:
``client/test/*.test.mjs``, run here by ``node --test client/test/`` so that ``make test`` runs
them. Node is required (it comes with npm, which ``make test`` needs for the client's package):
without it this test fails, it is never skipped."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]


def test_the_client_state_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("the client's unit tests need Node.js 20 (`node`): apt-get install nodejs")
    done = subprocess.run(
        [node, "--test", "client/test/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"node --test client/test/ failed:\n{output}"
    counts = dict(re.findall(r"^# (tests|pass|fail) (\d+)$", done.stdout, re.M))
    assert int(counts.get("tests", 0)) >= 20, f"too few tests ran:\n{output}"
    assert counts["pass"] == counts["tests"] and counts["fail"] == "0", output

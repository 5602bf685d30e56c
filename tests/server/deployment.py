"""Helpers of the deployment's tests (test_topology, test_deployment, test_monitoring): the
checkout's root, the compose file as docker-compose resolves it, and the Debian tools they
drive."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"


def system_tool(name: str) -> str:
    """The path of a Debian tool the tests drive (``make test`` installs them)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if found is None:
        pytest.fail(f"the deployment tests need Debian's {name}: run make test")
    return found


def compose_text(*profiles: str, env: dict[str, str] | None = None) -> str:
    """The compose file as ``docker-compose config`` resolves it (with ``profiles``)."""
    extra = [arg for profile in profiles for arg in ("--profile", profile)]
    return subprocess.run(
        [system_tool("docker-compose"), "-f", str(COMPOSE_FILE), *extra, "config"],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout

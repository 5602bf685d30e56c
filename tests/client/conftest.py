"""Fixtures for the web client's tests: the real server (tests/server's fixtures: a real Redis,
the server on port 0) and real headless Chromium (Debian's, driven by Playwright's async API on
the test's own event loop, which the server shares)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from tests.client.support import ARTIFACTS, CHROMIUM
from tests.server.conftest import postgres_server, redis_server, srv, start_server

__all__ = ["browser", "postgres_server", "redis_server", "srv", "start_server"]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Headless Chromium (``/usr/bin/chromium``; ``make test`` installs it)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"the browser tests need Debian's chromium at {CHROMIUM}: run make test")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """``.artifacts/`` at the top of the checkout, for screenshots (ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    return ARTIFACTS

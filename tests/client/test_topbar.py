"""The top bar at every width, from a phone to a wide screen: it never makes the page scroll
sideways, and every page is a click away, in the bar or in the ☰ menu (issue 39 added the
tournaments, one link too many for a laptop's bar)."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from tests.client.support import Person
from tests.server.conftest import Running

pytestmark = pytest.mark.browser

PAGES = {  # the bar's link (None: in the menu only) and the menu's, for each page
    "lobby": (None, "menu-lobby"),
    "rules": ("bar-rules", "menu-rules"),
    "leaderboard": ("leaderboard-link", "menu-leaderboard"),
    "analysis": ("analysis-link", "menu-analysis"),
    "puzzles": ("puzzles-link", "menu-puzzles"),
    "tournaments": ("tournaments-link", "menu-tournaments"),
    "visualizer": (None, "menu-visualizer"),
}
WIDTHS = [390, 600, 821, 961, 1100, 1241, 1280, 1341, 1481, 1920]


async def overflow(page: Page) -> int:
    """How many pixels the page is wider than its window (0: no sideways scroll)."""
    return int(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


async def reachable(page: Page) -> set[str]:
    """The pages whose link shows in the bar, or in the menu when the menu shows."""
    found = set()
    in_menu = await page.get_by_test_id("site-menu").is_visible()
    for name, (bar, item) in PAGES.items():
        in_bar = bar is not None and await page.get_by_test_id(bar).is_visible()
        if in_bar or (in_menu and await page.get_by_test_id(item).count() == 1):
            found.add(name)
    return found


async def test_the_bar_fits_every_width_and_reaches_every_page(
    srv: Running, browser: Browser
) -> None:
    ada = await Person.open(browser, srv.http_url, "a" * 24)  # the longest name there is
    page = ada.page
    try:
        for width in WIDTHS:
            await page.set_viewport_size({"width": width, "height": 800})
            await expect(page.get_by_test_id("connection")).to_have_attribute(
                "data-status", "online"
            )
            assert await overflow(page) == 0, f"{width} px: the page scrolls sideways"
            assert await reachable(page) == set(PAGES), f"{width} px"
            bar_height = await page.locator(".topbar").evaluate("bar => bar.offsetHeight")
            assert bar_height < 60, f"{width} px: the bar wraps ({bar_height} px high)"
        # Wide: the tournaments from the bar itself.
        await page.get_by_test_id("tournaments-link").click()
        await expect(page).to_have_url(f"{srv.http_url}/#/tournaments")
        # A laptop: from the menu.
        await page.set_viewport_size({"width": 1100, "height": 800})
        await page.get_by_test_id("site-menu").click()
        await page.get_by_test_id("menu-rules").click()
        await expect(page).to_have_url(f"{srv.http_url}/#/rules")
        assert ada.errors == []
    finally:
        await ada.close()

"""Accessibility in both themes (issue 22): axe-core (npm, ``client/node_modules/axe-core``,
a devDependency) run on the lobby (with its puzzle of the day), a game, its review, the rules,
a profile (issue 20), the analysis board, the puzzle page (issue 37), the leaderboard and the
visualizer, light and dark, finds no serious or critical violation of WCAG 2 A and AA, colour
contrast included. The themes follow the system setting (``prefers-color-scheme``, emulated
here) until the switch in the top bar chooses one, which the browser remembers.

A theme changes colours only (the custom properties of ``client/css/style.css``), so each page
is checked by every rule in the light theme, then switched to dark in place and checked again
by the rules of colour."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from protocol import (
    Account,
    CreateTournament,
    JoinGame,
    JoinTournament,
    SignUp,
    TimeControl,
    Tournament,
)
from server.archive import puzzles
from tests.client.support import DESKTOP, Person, play_out
from tests.puzzled import fixture_puzzles
from tests.server.archived import seed
from tests.server.conftest import Running
from tests.server.support import decisive_game

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "client" / "node_modules" / "axe-core" / "axe.min.js"
RUN_AXE = """async (colours) => {
  const result = await axe.run(document, {
    runOnly: colours
      ? { type: 'rule', values: ['color-contrast', 'link-in-text-block'] }
      : { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map(
      (n) => [n.target.join(' '), n.failureSummary]) }));
}"""
SETTLED = "Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))"
CONTRAST = """() => {
  // the text of the body on its background, and of a card, as WCAG ratios
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p);
    return Math.round(((x + 0.05) / (y + 0.05)) * 100) / 100;
  };
  const body = getComputedStyle(document.body);
  const muted = getComputedStyle(document.documentElement).getPropertyValue('--muted').trim();
  const card = getComputedStyle(document.documentElement).getPropertyValue('--card').trim();
  const probe = document.createElement('i');
  document.body.append(probe);
  probe.style.color = muted;
  const mutedRgb = getComputedStyle(probe).color;
  probe.style.color = card;
  const cardRgb = getComputedStyle(probe).color;
  probe.remove();
  return { ink: ratio(body.color, body.backgroundColor), muted_on_card: ratio(mutedRgb, cardRgb) };
}"""


async def axe_violations(page: Page, *, colours_only: bool = False) -> list[dict[str, Any]]:
    """The serious and critical violations axe finds on ``page`` (its rules of colour alone:
    ``colours_only``)."""
    if not await page.evaluate("typeof axe !== 'undefined'"):
        await page.evaluate(AXE.read_text())
    found: list[dict[str, Any]] = await page.evaluate(RUN_AXE, colours_only)
    return found


async def open_page(
    browser: Browser, base: str, path: str, scheme: str, *, icons: bool = False
) -> Page:
    context = await browser.new_context(viewport=DESKTOP, color_scheme=scheme)  # type: ignore[arg-type]
    if icons:  # moves written with piece icons
        await context.add_init_script("localStorage.setItem('hive.notation', 'icons')")
    page = await context.new_page()
    await page.goto(base + path)
    return page


async def test_every_page_passes_axe_in_both_themes(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    game_id = await play_out(srv, decisive_game("Base"))
    await seed(srv)  # Ann's profile: ratings, a chart, games; the blitz leaderboard
    await puzzles.load(srv.hub.database, fixture_puzzles()[:1])  # the puzzles, of the day
    found: dict[str, Any] = {}
    figures: dict[str, Any] = {}
    # a game in progress, seen by its player (Ada made it; Cy joins from Python: "Bob" is one
    # of the seeded accounts, whose name a guest may not take)
    ada = await Person.open(browser, srv.http_url, "ada")
    await ada.choose("Base", "5+5", "white")
    await ada.page.get_by_test_id("create").click()
    live_id = await ada.game_id()
    async with srv.connect("cy") as cy, srv.connect("dee") as dee:
        await cy.send(JoinGame(live_id))
        await ada.wait_version(2)
        await ada.context.close()
        # an arena with a player (Dee's account), for the tournaments' pages
        await dee.send(SignUp("dee", "correct horse battery"))
        await dee.expect(Account)
        clock = TimeControl("clock", 180, 2)
        await dee.send(CreateTournament(name="Axe arena", game_type="Base", time=clock))
        arena = (await dee.expect(Tournament)).summary.id
        await dee.send(JoinTournament(arena))
        for name, path, ready in [
            ("lobby", "/", "[data-testid=lobby] [data-testid=play-bot]:enabled"),
            ("game", f"/#/game/{live_id}", "[data-testid=game][data-version='2']"),
            ("finished", f"/#/game/{game_id}", "[data-testid=result]"),
            ("review", f"/#/review/{game_id}", "[data-testid=review][data-ply]"),
            ("review-icons", f"/#/review/{game_id}", "[data-testid=review] .mv-icons >> nth=0"),
            ("rules", "/#/rules", "[data-testid=rules]"),
            ("profile", "/#/@/Ann", "[data-testid=rating-chart] canvas"),
            ("leaderboard", "/#/leaderboard/blitz", "[data-testid=leader] >> nth=0"),
            ("analysis", "/#/analysis/Base/wS1%3BbG1%20-wS1/2", "[data-ready=true]"),
            ("puzzles", "/#/puzzles", "[data-testid=puzzles][data-status=solving]"),
            ("tournaments", "/#/tournaments", "[data-testid=tournament-row] >> nth=0"),
            ("tournament", f"/#/tournament/{arena}", "[data-testid=standing] >> nth=0"),
            ("visualizer", "/visualizer", "[data-testid=tree]"),
        ]:
            page = await open_page(
                browser, srv.http_url, path, "light", icons=name.endswith("icons")
            )
            await expect(page.locator(ready)).to_have_count(1)
            if name == "lobby":  # with the header's account menu and signup form open
                await expect(page.get_by_test_id("daily-puzzle-link")).to_be_visible()
                await expect(page.get_by_test_id("connection")).to_have_attribute(
                    "data-status", "online"
                )
                await page.get_by_test_id("account-menu").click()
                await page.get_by_test_id("signup-open").click()
                await page.get_by_test_id("auth-submit").click()  # empty: the browser says so
                await expect(page.get_by_test_id("auth-form")).to_be_visible()
                await page.get_by_test_id("account-menu").click()
            for scheme in ("light", "dark"):
                await page.emulate_media(color_scheme=scheme)
                await expect(page.locator("html")).to_have_attribute("data-theme", scheme)
                await page.evaluate(SETTLED)  # colours fade from one theme to the other
                theme = await page.evaluate(
                    "getComputedStyle(document.documentElement).colorScheme"
                )
                assert theme == scheme, name
                figures[f"{name}-{scheme}"] = await page.evaluate(CONTRAST)
                found[f"{name}-{scheme}"] = await axe_violations(
                    page, colours_only=scheme == "dark"
                )
                await page.screenshot(path=str(artifacts / f"issue22-{name}-{scheme}.png"))
            await page.context.close()
    print(f"contrast {json.dumps(figures)}")
    assert {name: v for name, v in found.items() if v} == {}


async def test_the_theme_switch_is_remembered_over_the_system_setting(
    srv: Running, browser: Browser
) -> None:
    page = await open_page(browser, srv.http_url, "/", "dark")
    root = page.locator("html")
    switch = page.get_by_test_id("theme")
    await expect(switch).to_have_attribute("aria-pressed", "true")  # dark, from the system
    await switch.click()
    await expect(root).to_have_attribute("data-theme", "light")
    await expect(switch).to_have_attribute("aria-pressed", "false")
    assert await page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "light"
    await page.reload()
    await expect(root).to_have_attribute("data-theme", "light")  # remembered
    await page.goto(srv.http_url + "/visualizer")
    await expect(root).to_have_attribute("data-theme", "light")  # on every page
    await page.get_by_test_id("theme").click()
    await expect(root).to_have_attribute("data-theme", "dark")
    await page.context.close()

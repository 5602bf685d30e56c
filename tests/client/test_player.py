"""What a new player met in issue 22: notices that are easy to read, a result banner that
leaves the final position in view, the first-move deadline shown, the Queen's tournament rule
said, a review stepper that fits its card, and no developer text in the lobby."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, FloatRect, Page, expect

from hive import Game
from tests.client.support import Person, duel, play_out, reply
from tests.server.conftest import Running
from tests.server.support import decisive_game

pytestmark = pytest.mark.browser

CONTRAST = """(selector) => {
  // the WCAG contrast of an element's text on its background (the first opaque-enough one
  // up the tree, composited over white)
  const rgba = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const el = document.querySelector(selector);
  const fg = rgba(getComputedStyle(el).color);
  let node = el;
  let bg = [255, 255, 255, 0];
  while (node && node.nodeType === 1) {
    const c = rgba(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || c[3] > 0) {
      bg = c.length === 3 ? [...c, 1] : c;
      break;
    }
    node = node.parentElement;
  }
  const a = bg[3];
  const over = [0, 1, 2].map((i) => bg[i] * a + 255 * (1 - a));
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const [l1, l2] = [lum(fg.slice(0, 3)), lum(over)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}"""

BESIDE = """(selector) => {
  // the toast's close button sits beside its text, not wrapped under it
  const toast = document.querySelector(selector);
  const text = [...toast.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
  const range = document.createRange();
  range.selectNodeContents(text);
  const right = Math.max(...[...range.getClientRects()].map((r) => r.right));
  return toast.querySelector('.close').getBoundingClientRect().left >= right - 1;
}"""


async def contrast(page: Page, selector: str) -> float:
    ratio = await page.evaluate(CONTRAST, selector)
    assert isinstance(ratio, float | int)
    return float(ratio)


async def test_first_moves_say_their_deadline_and_the_queens_rule_in_a_readable_notice(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    game = Game("Base")
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        await ada.my_turn()
        # the first move's deadline: the server aborts the game when it does not come
        deadline = page.get_by_test_id("first-move")
        await expect(deadline).to_contain_text("first move")
        await expect(deadline).to_contain_text("aborted")
        await expect(deadline).to_have_text(re.compile(r"\b0:[0-5]\d\b|\b1:00\b"))
        # the Queen in hand on move 1: marked, and a click says why
        queen = page.locator('[data-hand="wQ"]')
        await expect(queen).to_have_class(re.compile(r"\bbarred\b"))
        assert "first move" in (await queen.get_attribute("aria-label") or "")
        opacity = await queen.evaluate(
            "el => Number(getComputedStyle(el.querySelector('.piece-icon')).opacity)"
        )
        assert opacity <= 0.4
        await queen.click()
        toast = page.locator("[data-testid=game] .toast")
        await expect(toast).to_contain_text("tournament")
        assert await contrast(page, "[data-testid=game] .toast") >= 4.5
        assert await page.evaluate(BESIDE, "[data-testid=game] .toast")
        await ada.screenshot(artifacts / "issue22-first-move.png")
        # both first moves made: the deadline is gone
        await ada.play(game, "wS1")
        game.play("wS1")
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        await expect(deadline).to_have_count(0)
        assert ada.errors == []


def overlapping(a: FloatRect, b: FloatRect) -> bool:
    return bool(
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


async def test_the_result_leaves_the_final_position_in_view_and_the_review_fits_its_card(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    moves = decisive_game("Base")
    game_id = await play_out(srv, moves)
    cy = await Person.open(browser, srv.http_url, "cy", f"/#/game/{game_id}")
    page = cy.page
    banner = page.get_by_test_id("result")
    await expect(banner).to_be_visible()
    shown = await banner.bounding_box()
    assert shown is not None
    tiles = await page.eval_on_selector_all(
        "[data-testid=game] .board-svg .piece:not(.under) .tile",
        "els => els.map(e => { const b = e.getBoundingClientRect();"
        " return {x: b.x, y: b.y, width: b.width, height: b.height}; })",
    )
    assert len(tiles) >= 8
    assert [t for t in tiles if overlapping(t, shown)] == []
    await cy.screenshot(artifacts / "issue22-result.png")
    # the review: its stepper's buttons stay inside the card's padding
    await page.goto(f"{srv.http_url}/#/review/{game_id}")
    card = page.locator("[data-testid=review] .status-card")
    await expect(page.locator("[data-testid=review][data-ply]")).to_have_count(1)
    inside = await card.evaluate(
        """card => {
          const box = card.getBoundingClientRect();
          const pad = parseFloat(getComputedStyle(card).paddingRight);
          return [...card.querySelectorAll('.stepper button')].every(
            (b) => b.getBoundingClientRect().right <= box.right - pad + 0.5);
        }"""
    )
    assert inside
    await cy.screenshot(artifacts / "issue22-review.png")
    assert cy.errors == []


async def test_the_lobby_shows_players_no_developer_text(srv: Running, browser: Browser) -> None:
    eve = await Person.open(browser, srv.http_url, "eve")
    lobby = eve.page.get_by_test_id("lobby")
    await expect(lobby.get_by_test_id("open-games")).not_to_contain_text("Loading")
    await expect(lobby).not_to_contain_text("hive-bot")
    await expect(eve.page.get_by_role("heading", name="Bots online")).to_be_hidden()
    await eve.close()


async def test_the_top_bar_fits_a_phone(srv: Running, browser: Browser, artifacts: Path) -> None:
    """The sound and theme switches beside the connection badge and the account's menu, on a
    390 px screen."""
    eve = await Person.open(browser, srv.http_url, "eve", phone=True)
    fits = await eve.page.evaluate(
        """() => {
          const bar = document.querySelector('.topbar');
          return [...bar.querySelectorAll('a, button, .connection')].every(
            (el) => el.getBoundingClientRect().right <= bar.clientWidth + 0.5);
        }"""
    )
    await eve.screenshot(artifacts / "issue22-phone-lobby.png")
    assert fits
    # the account's actions are in its menu there (issue 20)
    await expect(eve.page.get_by_test_id("signup-open")).to_be_hidden()
    await eve.page.get_by_test_id("account-menu").click()
    await eve.page.get_by_test_id("menu-signup").click()
    await expect(eve.page.get_by_test_id("auth-form")).to_be_visible()
    await eve.screenshot(artifacts / "issue20-phone-signup.png")
    await eve.close()


ENTRIES = """() => [...performance.getEntriesByType('navigation'),
  ...performance.getEntriesByType('resource')].map(
  (e) => [e.name, e.transferSize, e.encodedBodySize, e.decodedBodySize])"""


async def test_a_repeat_visit_transfers_under_10_kb_besides_the_websocket(
    srv: Running, browser: Browser
) -> None:
    """Bytes on the wire as Chromium counts them (DevTools' ``encodedDataLength``: headers and
    body of every request but the websocket's), and the page's own Resource Timing figures
    (``transferSize``, where Chromium counts a revalidated file as 300 bytes whatever its
    headers)."""
    eve = await Person.open(browser, srv.http_url, "eve")
    await expect(eve.page.get_by_test_id("play-bot")).to_be_enabled()
    first = await eve.page.evaluate(ENTRIES)
    scripts = [e for e in first if e[0].endswith((".js", ".mjs"))]
    assert len(scripts) > 10
    assert all(e[2] < e[3] for e in scripts)  # sent compressed
    cdp = await eve.context.new_cdp_session(eve.page)
    wire: list[int] = []
    cdp.on("Network.loadingFinished", lambda event: wire.append(int(event["encodedDataLength"])))
    await cdp.send("Network.enable")
    await eve.page.goto(srv.http_url + "/")
    await eve.online()
    await expect(eve.page.get_by_test_id("play-bot")).to_be_enabled()
    again = await eve.page.evaluate(ENTRIES)
    assert {e[0] for e in again} == {e[0] for e in first}
    assert len(wire) >= len(again)
    timing = sum(e[1] for e in again)
    print(
        f"first visit: {len(first)} files, {sum(e[1] for e in first)} bytes transferred"
        f" ({sum(e[3] for e in first)} unpacked); repeat visit: {sum(wire)} bytes on the wire"
        f" in {len(wire)} requests, {timing} by Resource Timing"
    )
    assert sum(wire) < 10_000
    # Resource Timing counts a file revalidated (304) as 300 bytes whatever its size, and one
    # sent again whole as its size: no file of the page is sent again
    assert max(e[1] for e in again) <= 300, [e for e in again if e[1] > 300]
    await eve.close()

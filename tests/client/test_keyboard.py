"""Playing from the keyboard (issue 22): a piece in a reserve or on the board is picked up with
Enter, its destinations take the focus (arrow keys go from one to the next), Enter plays there
and Escape puts the piece back; pieces and destinations have names a screen reader says, the
focus shows, and moves are announced in an aria-live region."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from hive import Game
from tests.client.support import duel, reply
from tests.server.conftest import Running

pytestmark = pytest.mark.browser

FOCUSED_TARGET = "[data-testid=game] [data-target]:focus"


async def focus_ring(page: Page) -> tuple[str, str]:
    """The stroke of the focused destination's hex, and the theme's focus colour."""
    ring: list[str] = await page.evaluate(
        """() => {
          const probe = document.createElement('i');
          probe.style.color = 'var(--focus)';
          document.body.append(probe);
          const focus = getComputedStyle(probe).color;
          probe.remove();
          return [getComputedStyle(document.activeElement.querySelector('path')).stroke, focus];
        }"""
    )
    return ring[0], ring[1]


async def test_a_game_played_from_the_keyboard_is_announced(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    game = Game("Base")
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        announce = page.get_by_test_id("announce")
        await ada.my_turn()
        await expect(announce).to_have_text("Your turn.")
        # a reserve piece: Enter picks it up, and its destination has the focus
        await page.locator('[data-hand="wS1"]').focus()
        await page.keyboard.press("Enter")
        target = page.locator(FOCUSED_TARGET)
        await expect(target).to_have_count(1)
        await expect(target).to_have_attribute(
            "aria-label", "Play wS1: White Spider 1, the first piece"
        )
        await expect(announce).to_contain_text("White Spider 1 picked up: 1 destination")
        stroke, focus = await focus_ring(page)
        assert stroke == focus
        await ada.screenshot(artifacts / "issue22-keyboard.png")
        await page.keyboard.press("Enter")
        game.play("wS1")
        await ada.wait_version(3)
        await expect(announce).to_have_text(
            "White played wS1: White Spider 1, the first piece. bob to move."
        )
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        await expect(announce).to_have_text(
            "Black played bS1 wS1-: Black Spider 1 east of White Spider 1. Your turn."
        )
        # the pieces on the board have names; the Queen's placements are cycled with the arrows
        await expect(page.get_by_role("img", name="Black Spider 1, moved last")).to_have_count(1)
        await page.locator('[data-hand="wQ"]').focus()
        await page.keyboard.press("Enter")
        await expect(page.locator(FOCUSED_TARGET)).to_have_count(1)
        first = await page.locator(FOCUSED_TARGET).get_attribute("data-target")
        await page.keyboard.press("ArrowRight")
        await expect(page.locator(FOCUSED_TARGET)).not_to_have_attribute("data-target", first or "")
        chosen = await page.locator(FOCUSED_TARGET).get_attribute("data-target")
        assert chosen is not None and chosen.startswith("wQ ")
        await page.keyboard.press("Enter")
        game.play(chosen)
        await ada.wait_version(5)
        assert (await ada.moves())[-1] == chosen
        await reply(bob, game_id, game, "bQ bS1-")
        game.play("bQ bS1-")
        await ada.wait_version(6)
        # a piece on the board: a button with its name; Escape puts it back, the focus stays
        queen = page.get_by_role("button", name=re.compile(r"^White Queen Bee, .*may move"))
        await expect(queen).to_have_count(1)
        await queen.focus()
        await page.keyboard.press("Enter")
        await expect(page.locator(FOCUSED_TARGET)).to_have_count(1)
        await page.keyboard.press("Escape")
        await expect(page.locator("[data-testid=game] [data-target]")).to_have_count(0)
        assert await page.evaluate("document.activeElement.closest('.board-svg') !== null")
        # and moved from the keyboard
        await queen.focus()
        await page.keyboard.press("Enter")
        moved = await page.locator(FOCUSED_TARGET).get_attribute("data-target")
        assert moved is not None
        await page.keyboard.press("Enter")
        await ada.wait_version(7)
        assert (await ada.moves())[-1] == moved
        await expect(announce).to_contain_text(f"White played {moved}: White Queen Bee")
        assert ada.errors == []

"""What the board shows besides the pieces: a stack's height and what lies beneath it, the last
move, the zoom buttons, and clocks that count down in the browser between the server's
updates."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from hive import Game
from tests.client.support import Person, duel, exchange, layout_of
from tests.server.conftest import Running

pytestmark = pytest.mark.browser


async def width(ada: Person, piece: str) -> float:
    box = await ada.page.locator(f'.board-svg .piece[data-piece="{piece}"]').bounding_box()
    assert box is not None
    return box["width"]


async def test_a_stack_shows_its_height_and_what_lies_beneath_and_the_last_move_is_marked(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        game = Game("Base")

        for mine, theirs in [("wS1", "bS1 wS1-"), ("wQ -wS1", "bQ bS1-"), ("wB1 -wQ", "bA1 bQ-")]:
            await exchange(ada, bob, game_id, game, mine, theirs)
        # Bob's placement is the last move: marked where it went, with nothing where it came from
        board = ada.page.locator("[data-testid=game] .board-svg")
        await expect(board.locator(".piece.last-to")).to_have_attribute("data-piece", "bA1")
        await expect(board.get_by_test_id("last-from")).to_have_count(0)

        # Ada's Beetle climbs onto her Queen: a stack of two
        await ada.my_turn()
        await ada.play(game, "wB1 wQ")
        game.play("wB1 wQ")
        await ada.wait_version(2 + game.ply)
        assert await ada.pieces() == layout_of(game)
        beetle = board.locator('.piece[data-piece="wB1"]')
        await expect(beetle).to_have_attribute("data-height", "1")
        await expect(beetle.locator(".height-badge")).to_have_text("2")
        await expect(board.locator('.piece.under[data-piece="wQ"]')).to_have_count(1)
        # the move is marked at both ends: the Beetle, and the hex it left
        await expect(board.locator(".piece.last-to")).to_have_attribute("data-piece", "wB1")
        await expect(board.get_by_test_id("last-from")).to_have_count(1)
        # hovering the stack lists it, top first
        tip = ada.page.locator("[data-testid=game] .stack-tip")
        await beetle.hover()
        await expect(tip).to_be_visible()
        await expect(tip).to_contain_text("Stack of 2")
        rows = tip.locator(".tip-row")
        await expect(rows).to_have_count(2)
        await expect(rows.nth(0)).to_contain_text("top: ")
        await expect(rows.nth(0)).to_contain_text("Beetle")
        await expect(rows.nth(1)).to_contain_text("Queen")
        # a single piece has nothing beneath it to show
        await board.locator('.piece[data-piece="bA1"]').hover()
        await expect(tip).to_be_hidden()
        assert ada.errors == []


async def test_the_zoom_buttons_zoom_and_fit_brings_the_hive_back(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        game = Game("Base")

        await exchange(ada, bob, game_id, game, "wS1", "bS1 wS1-")
        fitted = await width(ada, "wS1")
        controls = ada.page.locator("[data-testid=game] .board-controls")
        await controls.locator("[data-board=zoom-in]").click()
        assert await width(ada, "wS1") == pytest.approx(fitted * 1.25, rel=0.02)
        await controls.locator("[data-board=zoom-out]").click()
        await controls.locator("[data-board=zoom-out]").click()
        assert await width(ada, "wS1") == pytest.approx(fitted * 0.8, rel=0.02)
        # zoomed by hand, the view stays put while the hive grows...
        await exchange(ada, bob, game_id, game, "wQ -wS1", "bQ bS1-")
        assert await width(ada, "wS1") == pytest.approx(fitted * 0.8, rel=0.02)
        # ...until Fit takes the whole hive in again
        await controls.locator("[data-board=fit]").click()
        refitted = await width(ada, "wS1")
        assert refitted != pytest.approx(fitted * 0.8, rel=0.02)
        for piece in ("wS1", "wQ", "bS1", "bQ"):
            shown = ada.page.locator(f'.board-svg .piece[data-piece="{piece}"]')
            await expect(shown).to_be_in_viewport()
        assert ada.errors == []


async def test_the_clock_of_the_side_to_move_counts_down_between_updates(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser, time="5+5") as (ada, bob, game_id):
        game = Game("Base")

        await exchange(ada, bob, game_id, game, "wS1", "bS1 wS1-")
        version = await ada.version()
        white = ada.page.get_by_test_id("clock-white")
        black = ada.page.get_by_test_id("clock-black")
        await expect(white).to_have_class("clock running")
        shown = await white.text_content()
        still = await black.text_content()
        # no update comes while Ada thinks, yet her clock goes down and Bob's stands
        await expect(white).not_to_have_text(shown or "", timeout=3_000)
        assert await ada.version() == version
        await expect(black).to_have_text(still or "")
        await expect(black).not_to_have_class("clock running")
        assert ada.errors == []

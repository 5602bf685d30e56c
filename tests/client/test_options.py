"""A player's options (issue 22): a custom time control (base and increment) beside the
presets, the board flipped half a turn (with the players' bars), where clicks and drags still
land on the hex under the pointer, and a premove made in the opponent's turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from hive import Game
from protocol import JoinGame
from tests.client.support import Person, destination_of, duel, replay, reply, seen
from tests.server.conftest import Running

pytestmark = pytest.mark.browser


async def x_of(page: Page, piece: str) -> float:
    box = await page.locator(f'.board-svg .piece[data-piece="{piece}"] .tile').bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2


async def test_a_custom_clock_and_a_flipped_board(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    ada = await Person.open(browser, srv.http_url, "ada")
    page = ada.page
    await ada.choose("Base", "custom", "white")
    form = page.get_by_test_id("create-form")
    await expect(form.get_by_test_id("minutes")).to_be_visible()
    await form.get_by_test_id("minutes").fill("2.5")
    await form.get_by_test_id("increment").fill("1")
    await page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    await expect(page.locator("[data-testid=game] .card.info")).to_contain_text("Base · 2.5+1")
    record = await srv.hub.store.get(game_id)
    assert record is not None
    assert (record.time.kind, record.time.base, record.time.increment) == ("clock", 150, 1)
    game = Game("Base")
    async with srv.connect("bob") as bob:
        await bob.send(JoinGame(game_id))
        await ada.wait_version(2)
        await ada.play(game, "wS1")
        game.play("wS1")
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        assert await x_of(page, "wS1") < await x_of(page, "bS1")
        bottom = page.locator("[data-testid=game] .player-bar.bottom")
        await expect(bottom).to_have_attribute("data-color", "white")
        # flipped: Black's piece on the left, Black's bar at the bottom
        await page.get_by_test_id("flip").click()
        await expect(page.get_by_test_id("flip")).to_have_attribute("aria-pressed", "true")
        await expect(bottom).to_have_attribute("data-color", "black")
        assert await x_of(page, "bS1") < await x_of(page, "wS1")
        # a drag onto a hex of the flipped board lands there
        _, (q, r) = destination_of(game, "wQ -wS1")
        await ada.drag('[data-hand="wQ"]', q, r)
        game.play("wQ -wS1")
        await ada.wait_version(5)
        assert (await ada.moves())[-1] == "wQ -wS1"
        assert await x_of(page, "bS1") < await x_of(page, "wS1") < await x_of(page, "wQ")
        await ada.screenshot(artifacts / "issue22-flipped.png")
    assert ada.errors == []
    await ada.close()


async def test_a_premove_is_played_as_soon_as_the_turn_comes(
    srv: Running, browser: Browser
) -> None:
    game = Game("Base")
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        await ada.play(game, "wS1")
        game.play("wS1")
        await ada.wait_version(3)
        # Bob's turn: Ada picks her Queen up and clicks the hex west of her Spider
        after = replay("Base", ["wS1", "bS1 wS1-"])
        _, (q, r) = destination_of(after, "wQ -wS1")
        await page.locator('[data-hand="wQ"]').click()
        await expect(page.get_by_test_id("notice")).to_contain_text("Premove")
        await page.locator(f'.board-svg .cell[data-q="{q}"][data-r="{r}"]').click()
        premove = page.get_by_test_id("premove")
        await expect(premove).to_have_attribute("data-piece", "wQ")
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(5)  # played by the page at once, with no click
        assert (await ada.moves())[-1] == "wQ -wS1"
        await expect(premove).to_have_count(0)
        update = await seen(bob, game_id, 3)
        assert update.state.moves[-1] == "wQ -wS1"
    assert ada.errors == []


async def test_moves_written_with_piece_icons_by_choice(srv: Running, browser: Browser) -> None:
    game = Game("Base")
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        await ada.play(game, "wS1")
        game.play("wS1")
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        assert await ada.moves() == ["wS1", "bS1 wS1-"]
        switch = page.get_by_test_id("notation")
        await switch.click()
        moves = page.locator("[data-testid=moves] .mv")
        await expect(moves.locator("svg.piece-icon")).to_have_count(3)
        await expect(moves.nth(1).locator(".mv-icons")).to_have_attribute(
            "title", "Black Spider 1 east of White Spider 1"
        )
        await expect(moves.nth(1)).to_contain_text("→")
        await expect(page.get_by_role("img", name="White Spider 1, the first piece")).to_have_count(
            1
        )
        await page.reload()  # remembered
        await expect(page.locator("[data-testid=moves] .mv svg.piece-icon")).to_have_count(3)
        await page.goto(f"{srv.http_url}/#/review/{game_id}")  # and in a review
        await expect(page.locator("[data-testid=review] .moves svg.piece-icon")).to_have_count(3)
        await page.get_by_test_id("notation").click()
        await expect(page.locator("[data-testid=review] .moves .mv")).to_have_text(
            ["wS1", "bS1 wS1-"]
        )
    assert ada.errors == []

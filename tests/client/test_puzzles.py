"""The puzzle page in Chromium (client/js/puzzles.js): the puzzle of the day on the lobby, solved
with the mouse (the defender's reply shown from the server's answer), the rating going up and a
streak; a puzzle failed from the keyboard, its solution shown, the rating going down; and on a
phone, the page reached from the ☰ menu, a puzzle solved by tapping, the account's profile
showing its puzzle rating and try."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest
from playwright.async_api import Browser, Page, expect

from hive import Game
from hive.board import HAND
from hive.pieces import NAMES
from protocol import Account, SignUp
from server.archive import puzzles
from tests.client.support import Person
from tests.puzzled import fixture_puzzles
from tests.server.conftest import Running

pytestmark = pytest.mark.browser

SCOPE: Final = "[data-testid=puzzles]"


async def rating(page: Page) -> int:
    text = await page.get_by_test_id("puzzle-rating").text_content() or ""
    return int(text.rstrip("?"))


async def solve(
    person: Person, srv: Running, *, tap: bool = False, drag: bool = False
) -> puzzles.Stored:
    """Solve the puzzle on show, move by move (clicked, tapped or dragged), each reply seen
    before the next move."""
    page = person.page
    scope = page.locator(SCOPE)
    await expect(scope).to_have_attribute("data-status", "solving")
    puzzle_id = int(await scope.get_attribute("data-puzzle") or 0)
    stored = await puzzles.get(srv.hub.database, puzzle_id)
    assert stored is not None
    game = Game.from_game_string(stored.game_string)
    start = len(game.moves)
    for ply in range(0, len(stored.solution), 2):
        await person.play(game, stored.solution[ply], tap=tap, drag=drag)
        for move in stored.solution[ply : ply + 2]:
            game.play(move)
        await expect(scope).to_have_attribute(
            "data-ply", str(start + min(ply + 2, len(stored.solution)))
        )
        await expect(scope).to_have_attribute("data-busy", "false")
    await expect(scope).to_have_attribute("data-status", "solved")
    return stored


async def test_puzzles_solved_failed_and_shown_with_ratings_and_a_streak(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    await puzzles.load(srv.hub.database, fixture_puzzles())
    ada = await Person.open(browser, srv.http_url, "ada")
    page = ada.page
    scope = page.locator(SCOPE)
    # the puzzle of the day, on the lobby
    daily = page.get_by_test_id("daily-puzzle")
    await expect(daily.locator("svg")).to_be_visible()
    await expect(daily).to_contain_text("to move")
    await ada.screenshot(artifacts / "issue37-lobby-daily.png")
    await page.get_by_test_id("daily-puzzle-link").click()
    await expect(page).to_have_url(f"{srv.http_url}/#/puzzles/daily")
    await expect(page.get_by_test_id("puzzle-title")).to_contain_text("Puzzle of the day")
    await expect(page.get_by_test_id("puzzle-rating")).to_have_text("1500?")
    # solved with the mouse, each piece dragged: the rating goes up, a streak of one
    first = await solve(ada, srv, drag=True)
    await expect(page.get_by_test_id("rating-change")).to_have_text(re.compile(r"^\+\d+$"))
    await expect(page.get_by_test_id("streak")).to_have_text("1")
    await expect(page.get_by_test_id("solution")).to_contain_text(first.solution[0])
    after_win = await rating(page)
    assert after_win > 1500
    await expect(page.get_by_test_id("puzzle-try")).to_have_count(1)

    # the next, of a theme chosen, failed from the keyboard: a piece the solution does not move
    theme = "win1" if first.theme == "win2" else "win2"
    await page.get_by_test_id("puzzle-theme").select_option(theme)
    await page.get_by_test_id("next-puzzle").click()
    await expect(scope).to_have_attribute("data-status", "solving")
    await expect(page.get_by_test_id("puzzle-title")).to_contain_text(
        "Win in 1" if theme == "win1" else "Win in 2"
    )
    second_id = int(await scope.get_attribute("data-puzzle") or 0)
    assert second_id != first.id
    second = await puzzles.get(srv.hub.database, second_id)
    assert second is not None
    game = Game.from_game_string(second.game_string)
    winning = game.parse_move(second.solution[0]).piece
    others = [m for m in game.legal_moves() if m.piece != winning]
    wrong = min(others, key=lambda m: m.source != HAND)  # a placement if there is one
    name = NAMES[wrong.piece]
    hand = page.locator(f'[data-hand="{name}"]')
    if await hand.count():
        await hand.focus()
    else:
        await page.locator(f'.board-svg .piece[data-piece="{name}"]:not(.under)').focus()
    await page.keyboard.press("Enter")
    await expect(page.locator(f"{SCOPE} [data-target]:focus")).to_have_count(1)
    await page.keyboard.press("Enter")
    await expect(scope).to_have_attribute("data-status", "wrong")
    await expect(page.get_by_test_id("streak")).to_have_text("0")
    await expect(page.get_by_test_id("rating-change")).to_have_text(re.compile(r"^-\d+$"))
    assert await rating(page) < after_win
    await expect(page.get_by_test_id("solution")).to_have_text("")  # not before it is asked
    await page.get_by_test_id("show-solution").click()
    await expect(scope).to_have_attribute("data-status", "failed")
    await expect(scope).to_have_attribute("data-ply", str(len(game.moves) + len(second.solution)))
    await expect(page.get_by_test_id("solution")).to_have_text(
        "Solution: " + ", ".join(second.solution)
    )
    await expect(page.get_by_test_id("puzzle-try")).to_have_count(2)
    await ada.screenshot(artifacts / "issue37-puzzle-solution.png")
    assert ada.errors == []
    await ada.close()

    # on a phone, an account: the page from the ☰ menu, a puzzle solved by tapping, and the
    # puzzle rating on the profile
    async with srv.connect("zoe") as client:
        await client.send(SignUp("Zoe", "correct horse"))
        await client.expect(Account)
        token = client.welcome.token
    zoe = await Person.open(browser, srv.http_url, "zoe", phone=True, token=token)
    await zoe.page.get_by_test_id("site-menu").tap()
    await zoe.page.get_by_test_id("menu-puzzles").tap()
    await expect(zoe.page).to_have_url(re.compile(re.escape(f"{srv.http_url}/#/puzzles")))
    await solve(zoe, srv, tap=True)
    await expect(zoe.page.get_by_test_id("streak")).to_have_text("1")
    await zoe.screenshot(artifacts / "issue37-phone-solved.png")
    solved_at = await rating(zoe.page)
    await zoe.page.goto(f"{srv.http_url}/#/@/Zoe")
    await expect(zoe.page.get_by_test_id("profile-puzzle-rating")).to_have_text(f"{solved_at}?")
    await expect(zoe.page.get_by_test_id("profile-puzzle-try")).to_have_count(1)
    assert zoe.errors == []
    await zoe.close()

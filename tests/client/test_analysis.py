"""The analysis board in Chromium (client/js/analysis.js, movetree.js): opened from a finished
game's review at a ply, a branch played and stepped through, the address reproducing the
position in a fresh page, a GameString imported and exported, and the engine's lines
deepening, then stopped on the server when the page leaves."""

from __future__ import annotations

import urllib.parse
from typing import Final

import pytest
from playwright.async_api import Browser, expect

from hive import Game
from tests.client.support import Person, layout_of, play_out, replay
from tests.server.conftest import Running, StartServer
from tests.server.support import decisive_game
from tests.support import until

SCOPE: Final = "[data-testid=analysis]"
MIDGAME: Final = (
    "wG1",
    "bL /wG1",
    "wM wG1/",
    "bM /bL",
    "wA1 wM\\",
    "bQ bL\\",
    "wQ \\wM",
)
"""A mid-game Base+MLP position (bench.ai's first), black to move."""
FIRST: Final = 30_000
"""Milliseconds for a server's first position: its positions' worker starts then."""


def other_move(game: Game, played: str) -> str:
    """A legal move of ``game`` other than ``played`` (a placement, for a short click)."""
    moves = game.move_strings(game.legal_moves())
    return next(m for m in moves if m != played and " " in m and m[1] != "Q")


@pytest.mark.browser
async def test_a_game_is_analysed_from_its_review_with_a_branch_and_a_link(
    srv: Running, browser: Browser
) -> None:
    moves = decisive_game("Base")
    game_id = await play_out(srv, moves)
    cy = await Person.open(browser, srv.http_url, "cy", f"/#/review/{game_id}/10")
    await expect(cy.page.get_by_test_id("review")).to_have_attribute("data-ply", "10")
    await cy.page.get_by_test_id("analysis-board").click()
    board = cy.page.locator(SCOPE)
    await expect(board).to_have_attribute("data-ply", "10")
    await expect(board).to_have_attribute("data-ready", "true", timeout=FIRST)
    at_ten = replay("Base", list(moves[:10]))
    assert await cy.pieces(SCOPE) == layout_of(at_ten)

    # a branch: another move than the game's at ply 10, played on the board
    branch = other_move(at_ten, moves[10])
    await cy.play(at_ten, branch)
    await expect(board).to_have_attribute("data-ply", "11")
    await expect(board).to_have_attribute("data-ready", "true")
    branched = replay("Base", [*moves[:10], branch])
    assert await cy.pieces(SCOPE) == layout_of(branched)
    await expect(cy.page.get_by_test_id("variation")).to_have_text([moves[10]])
    # back, then forward follows the game's line (the main line); the variation goes back
    await cy.page.keyboard.press("ArrowLeft")
    await expect(board).to_have_attribute("data-ply", "10")
    await cy.page.keyboard.press("ArrowRight")
    await expect(board).to_have_attribute("data-ready", "true")
    assert await cy.pieces(SCOPE) == layout_of(replay("Base", list(moves[:11])))
    await cy.page.get_by_test_id("variation").click()
    await expect(board).to_have_attribute("data-ready", "true")
    assert await cy.pieces(SCOPE) == layout_of(branched)
    await cy.page.get_by_test_id("promote").click()  # the branch is the main line now
    await cy.page.keyboard.press("Home")
    await expect(board).to_have_attribute("data-ply", "0")
    await cy.page.keyboard.press("End")
    await expect(board).to_have_attribute("data-ply", "11")
    await expect(board).to_have_attribute("data-ready", "true")
    assert await cy.pieces(SCOPE) == layout_of(branched)
    export = cy.page.get_by_test_id("export")
    await expect(export).to_have_value(branched.game_string())

    # the address holds the position: a fresh page (another person) opens it
    hash_ = await cy.page.evaluate("location.hash")
    assert hash_.startswith("#/analysis/Base/")
    dee = await Person.open(browser, srv.http_url, "dee", f"/{hash_}")
    fresh = dee.page.locator(SCOPE)
    await expect(fresh).to_have_attribute("data-ply", "11")
    await expect(fresh).to_have_attribute("data-ready", "true")
    assert await dee.pieces(SCOPE) == layout_of(branched)
    await expect(dee.page.get_by_test_id("export")).to_have_value(branched.game_string())
    assert cy.errors == [] and dee.errors == []


@pytest.mark.browser
async def test_a_game_string_is_imported_and_a_bad_one_refused(
    srv: Running, browser: Browser
) -> None:
    ada = await Person.open(browser, srv.http_url, "ada", "/#/analysis")
    board = ada.page.locator(SCOPE)
    await expect(board).to_have_attribute("data-ready", "true", timeout=FIRST)
    assert await ada.pieces(SCOPE) == set()
    game = replay("Base+MLP", list(MIDGAME))
    await ada.page.get_by_test_id("import-input").fill(game.game_string())
    await ada.page.get_by_test_id("import").click()
    await expect(board).to_have_attribute("data-ply", str(len(MIDGAME)))
    await expect(board).to_have_attribute("data-ready", "true")
    assert await ada.pieces(SCOPE) == layout_of(game)
    await expect(ada.page.get_by_test_id("export")).to_have_value(game.game_string())
    await expect(ada.page.get_by_test_id("moves").locator(".mv")).to_have_count(len(MIDGAME))
    # its moves are the tree's: stepping back shows the position before the last
    await ada.page.keyboard.press("ArrowLeft")
    await expect(board).to_have_attribute("data-ready", "true")
    assert await ada.pieces(SCOPE) == layout_of(replay("Base+MLP", list(MIDGAME[:-1])))

    await ada.page.get_by_test_id("import-input").fill("Base;Nonsense;White[1];<b>x</b>")
    await ada.page.get_by_test_id("import").click()
    error = ada.page.get_by_test_id("analysis-error")
    await expect(error).to_contain_text("Cannot import: not a GameString")
    await expect(error).to_contain_text("Nonsense")
    assert await ada.page.locator(f"{SCOPE} b").count() == 0  # the server's words are text
    await expect(board).to_have_attribute("data-ply", str(len(MIDGAME) - 1))  # unchanged
    assert ada.errors == []


@pytest.mark.browser
async def test_engine_lines_deepen_and_stop_when_the_page_leaves(
    start_server: StartServer, browser: Browser
) -> None:
    async with start_server(engine_depth=30, engine_seconds=60.0) as srv:
        analysis = srv.hub.analysis
        moves = urllib.parse.quote(";".join(MIDGAME), safe="")
        eve = await Person.open(browser, srv.http_url, "eve", f"/#/analysis/Base+MLP/{moves}")
        board = eve.page.locator(SCOPE)
        await expect(board).to_have_attribute("data-ready", "true", timeout=FIRST)
        await expect(eve.page.get_by_test_id("eval-bar")).to_be_hidden()
        await eve.page.get_by_test_id("engine-toggle").check()
        depths: list[int] = []

        async def deeper() -> bool:
            depth = int(await board.get_attribute("data-depth") or 0)
            if depth and (not depths or depth > depths[-1]):
                depths.append(depth)
            return len(depths) >= 3

        await until(deeper, lambda: f"the lines deepen: depths seen {depths}")
        assert depths == sorted(depths) and depths[-1] >= 3
        await expect(eve.page.get_by_test_id("engine-line")).to_have_count(3)
        await expect(eve.page.get_by_test_id("engine-depth")).to_contain_text("depth ")
        await expect(eve.page.get_by_test_id("eval-bar")).to_be_visible()
        assert len(analysis.runs) == 1

        # stepping fast through the moves with the engine on: the page asks the engine once
        # the position settles (it would be refused past the server's limit, and closed)
        started = analysis.started
        for key in ["ArrowLeft"] * len(MIDGAME):  # (the engine's checkbox has the focus)
            await eve.page.keyboard.press(key)
        await expect(board).to_have_attribute("data-ply", "0")
        for key in ["ArrowRight"] * len(MIDGAME):
            await eve.page.keyboard.press(key)
        await expect(board).to_have_attribute("data-ply", str(len(MIDGAME)))
        await expect(board).not_to_have_attribute("data-depth", "0", timeout=30_000)
        assert started < analysis.started <= started + 3
        assert srv.hub.metrics.refused.labels("rate_limited")._value.get() == 0
        assert len(analysis.runs) == 1
        cancelled = analysis.cancelled

        await eve.page.evaluate("location.hash = '#/'")  # the page leaves the board
        await expect(eve.page.get_by_test_id("analysis")).to_have_count(0)
        await until(lambda: not analysis.runs, "the run ends on the server")
        assert analysis.cancelled == cancelled + 1
        await until(lambda: srv.hub.pool.background_queued == 0, "no engine work is queued")
        assert eve.errors == []

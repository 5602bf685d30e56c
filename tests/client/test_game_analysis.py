"""The computer analysis of a finished game in the browser (issue 35 part 3): one click on the
review page, its progress shown to a player and to a spectator, then the evaluation graph, the
marks in the move list with their counts per player, the accuracies, the best move as an arrow
and what the marks mean; read back after a restart without searching anything again."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from server.archive.db import tables
from tests.client.support import ARTIFACTS, Person
from tests.server.analysed import PLIES, played_game
from tests.server.archived import insert, seed
from tests.server.conftest import Running, StartServer
from tests.server.support import scrape

MARK_SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def analysed(figures: dict[str, float]) -> float:
    return figures.get("hive_analysed_positions_total", 0.0)


async def shows_the_analysis(person: Person, srv: Running, game_id: str) -> None:
    """The finished analysis on ``person``'s review page agrees with the stored one."""
    page = person.page
    await expect(page.get_by_test_id("accuracy-white")).to_be_visible(timeout=120_000)
    done = await srv.hub.reviews.done(game_id)
    assert done is not None and done.white is not None and done.black is not None
    await expect(page.get_by_test_id("accuracy-white")).to_have_text(f"{done.white.accuracy:.1f}")
    await expect(page.get_by_test_id("accuracy-black")).to_have_text(f"{done.black.accuracy:.1f}")
    graph = page.get_by_test_id("eval-graph")
    await expect(graph).to_have_attribute("data-points", str(PLIES + 1))
    marks = await page.locator("[data-testid=moves] [data-mark]").evaluate_all(
        "els => els.map(e => [Number(e.closest('button').dataset.ply) - 1, e.dataset.mark])"
    )
    assert marks == [[m.ply, m.mark] for m in done.moves if m.mark]
    assert marks  # two beginner bots' moves: some are marked
    white = page.get_by_test_id("analysis-white")
    for name, count in (("??", done.white.blunders), ("?!", done.white.inaccuracies)):
        await expect(white).to_contain_text(f"{count} {name}")
    await expect(page.get_by_test_id("marks-explained")).to_contain_text("lichess")
    # a point of the graph goes to its ply; where the move played was worse, the best one
    # is drawn as an arrow
    worse = next(m for m in done.moves if m.mark)
    box = await graph.bounding_box()
    assert box is not None  # the graph spans plies 0 to PLIES, left to right
    x = box["x"] + box["width"] * worse.ply / PLIES
    await page.mouse.click(x, box["y"] + box["height"] / 2)
    await expect(page.get_by_test_id("review")).to_have_attribute("data-ply", str(worse.ply))
    arrow = page.get_by_test_id("best-arrow")
    await expect(arrow).to_have_attribute("data-move", worse.best)
    assert worse.best_to is not None
    await expect(arrow).to_have_attribute("data-to", f"{worse.best_to[0]},{worse.best_to[1]}")
    await expect(page.get_by_test_id("best-line")).to_contain_text(worse.best)
    await page.screenshot(path=ARTIFACTS / f"analysis-{person.name}.png")


@pytest.mark.browser
async def test_a_game_is_analysed_for_a_player_and_a_spectator_and_kept(
    start_server: StartServer, browser: Browser
) -> None:
    async with start_server() as srv:
        game_id, token = await played_game(srv)
        path = f"/#/review/{game_id}"
        ann = await Person.open(browser, srv.http_url, "ann", path, token=token)
        cy = await Person.open(browser, srv.http_url, "cy", path)
        for person in (ann, cy):
            await expect(person.page.get_by_test_id("analyse")).to_be_visible()
        await ann.page.get_by_test_id("analyse").click()
        for person in (ann, cy):  # the progress, pushed to both
            progress = person.page.get_by_test_id("analysis-progress")
            await expect(progress).to_contain_text(re.compile(rf"ply \d+ of {PLIES}"))
        for person in (ann, cy):
            await shows_the_analysis(person, srv, game_id)
        assert analysed(await scrape(srv)) == PLIES
        assert ann.errors == [] and cy.errors == []
        await ann.close()
        await cy.close()
    async with start_server() as again:  # the same Redis and database, a new process
        cy = await Person.open(browser, again.http_url, "cy", f"/#/review/{game_id}")
        await shows_the_analysis(cy, again, game_id)
        await expect(cy.page.get_by_test_id("analyse")).to_have_count(0)
        assert analysed(await scrape(again)) == 0  # read back: nothing searched again
        assert again.hub.pool.background_queued == 0
        assert cy.errors == []
        await cy.close()


def analysis_row(game: str, white: float, black: float) -> dict[str, object]:
    """A stored analysis of ``game`` with these accuracies (its moves left out)."""
    return {
        "game": game,
        "depth": 5,
        "moves": "[]",
        "white_accuracy": white,
        "black_accuracy": black,
        "created": 0,
    }


@pytest.mark.browser
async def test_a_profile_shows_the_average_accuracy_per_speed(
    srv: Running, browser: Browser
) -> None:
    await seed(srv)  # Ann plays White in b0000000 and b0000002
    rows = [analysis_row("b0000000", 80.0, 60.0), analysis_row("b0000002", 90.0, 70.0)]
    await insert(srv, tables.analyses, rows)
    profile = await srv.hub.profiles.read_profile("Ann")
    assert profile is not None and profile.accuracy
    assert sum(a.games for a in profile.accuracy) == 2
    cy = await Person.open(browser, srv.http_url, "cy", "/#/@/Ann")
    for found in profile.accuracy:
        cell = cy.page.get_by_test_id(f"accuracy-{found.speed or 'untimed'}")
        await expect(cell).to_have_text(f"{found.accuracy:.1f}")
        assert found.accuracy in (80.0, 85.0, 90.0)
    assert cy.errors == []
    await cy.close()

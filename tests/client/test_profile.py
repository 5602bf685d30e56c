"""Profiles and leaderboards in the browser (issue 20): a player's page (#/@/NAME) shows their
rating per speed with "?" while provisional, a chart of their rating history drawn by uPlot,
wins, draws and losses, the record against each bot level, their games newest first a page at
a time with links to review, and the download of all their games; the leaderboard of a speed
lists the established players, linked to their profiles. The games are archived records and
the ratings rows put in the database, as tests/server/test_profiles.py does."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from protocol import PROFILE_PAGE, GetProfile, Profile
from protocol.client import Client
from tests.client.support import Person
from tests.server.archived import (
    GAMES,
    ask,
    seed,
)
from tests.server.conftest import Running

pytestmark = pytest.mark.browser


async def test_a_profile_shows_ratings_a_chart_results_levels_and_paged_games(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    seeded = await seed(srv)
    async with Client.connect(srv.ws_url, nickname="gus") as gus:
        expected = await ask(gus, GetProfile("Ann"))
    assert isinstance(expected, Profile)
    gus_page = await Person.open(browser, srv.http_url, "gus", "/#/@/ann")
    page = gus_page.page
    await expect(page.get_by_test_id("profile-name")).to_have_text("Ann")
    await expect(page.get_by_test_id("rating-blitz")).to_have_text("1612")
    await expect(page.get_by_test_id("rating-rapid")).to_have_text("1450?")
    await expect(page.get_by_test_id("wins")).to_have_text(str(expected.wins))
    await expect(page.get_by_test_id("draws")).to_have_text(str(expected.draws))
    await expect(page.get_by_test_id("losses")).to_have_text(str(expected.losses))
    levels = page.get_by_test_id("levels")
    for record in expected.levels:
        row = levels.locator(f'tr[data-level="{record.level}"] td')
        await expect(row).to_have_text([str(record.wins), str(record.draws), str(record.losses)])
    # the chart: uPlot's canvas, one blitz series of the four points
    chart = page.get_by_test_id("rating-chart")
    await expect(chart.locator("canvas")).to_have_count(1)
    await expect(chart).to_have_attribute("data-points", "4")
    await expect(chart).to_have_attribute("data-speeds", "blitz")
    await expect(chart).to_have_attribute("data-ratings", "1620 1624 1600 1612")
    await expect(chart.locator(".u-legend")).to_contain_text("Blitz")
    # the games, newest first, a page at a time
    games = page.locator("[data-testid=profile-games] li")
    await expect(games).to_have_count(PROFILE_PAGE)
    ids = [g.id for g in expected.games]
    assert ids[0] == seeded.newest
    await expect(games.first).to_have_attribute("data-game", seeded.newest)
    await expect(games.first.get_by_test_id("review-game")).to_have_attribute(
        "href", f"#/review/{seeded.newest}"
    )
    await page.screenshot(path=str(artifacts / "issue20-profile.png"), full_page=True)
    await page.get_by_test_id("older").click()
    await expect(page.get_by_test_id("page")).to_have_text("Page 2 of 2")
    await expect(games).to_have_count(GAMES - PROFILE_PAGE)
    oldest = games.last
    await expect(oldest).to_have_attribute("data-game", "b0000000")
    await expect(oldest).to_contain_text("Won")
    await expect(oldest.get_by_test_id("change")).to_have_text("+120")
    await expect(oldest).to_contain_text("(1510)")  # the opponent's rating then
    await expect(oldest).to_contain_text("rated blitz")
    await expect(games.nth(GAMES - PROFILE_PAGE - 2).get_by_test_id("change")).to_have_text("+3")
    await page.get_by_test_id("newer").click()
    await expect(games.first).to_have_attribute("data-game", seeded.newest)
    # to a game's review and back: the profile is asked for again
    await games.first.get_by_test_id("review-game").click()
    await expect(page.get_by_test_id("review")).to_be_visible()
    await page.go_back()
    await expect(page.get_by_test_id("profile-name")).to_have_text("Ann")
    # the download of every game, as UHP GameStrings
    link = page.get_by_test_id("download")
    await expect(link).to_have_attribute("href", "/@/Ann/games.txt")
    answer = await page.request.get(srv.http_url + "/@/Ann/games.txt")
    assert answer.status == 200
    assert (await answer.text()).count("Base;") == GAMES
    # an opponent's name leads to their profile; an unknown name says so
    await games.locator('a[href="#/@/Bob"]').first.click()
    await expect(page.get_by_test_id("profile-name")).to_have_text("Bob")
    await page.goto(srv.http_url + "/#/@/nobody")
    await expect(page.get_by_test_id("profile-error")).to_be_visible()
    assert gus_page.errors == []
    await gus_page.close()


async def test_the_leaderboard_lists_established_players_by_speed(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    await seed(srv)
    ann = await Person.open(browser, srv.http_url, "gus", "/#/")
    page = ann.page
    await page.get_by_test_id("leaderboard-link").click()
    leaders = page.get_by_test_id("leader")
    await expect(leaders).to_have_text(["Ann", "Bob"])
    await expect(page.get_by_test_id("leader-rating")).to_have_text(["1612", "1488"])
    await page.screenshot(path=str(artifacts / "issue20-leaderboard.png"))
    await page.get_by_test_id("tab-rapid").click()  # Ann's rapid rating is provisional
    await expect(page.get_by_test_id("no-leaders")).to_be_visible()
    assert await page.evaluate("location.hash") == "#/leaderboard/rapid"
    await page.get_by_test_id("tab-blitz").click()
    await leaders.first.click()
    await expect(page.get_by_test_id("profile-name")).to_have_text("Ann")
    assert ann.errors == []
    await ann.close()

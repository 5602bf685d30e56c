"""Profiles and leaderboards in the browser (issue 20): a player's page (#/@/NAME) shows their
rating per speed with "?" while provisional, a chart of their rating history drawn by uPlot,
wins, draws and losses, the record against each bot level, their games newest first a page at
a time with links to review, and the download of all their games; the leaderboard of a speed
lists the established players, linked to their profiles; the tournaments a player finished
are listed with their rank, each linked to its page (served from the archive once Redis let
it go), a hostile name shown as text. The games are archived records and the ratings rows put
in the database, as tests/server/test_profiles.py does."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect
from sqlalchemy import update

from protocol import (
    PROFILE_PAGE,
    GetProfile,
    Profile,
    Standing,
    TimeControl,
    Tournament,
    TournamentSummary,
)
from protocol.client import Client
from server.archive.db import tables
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


HOSTILE = '<img src=x onerror="window.hacked=1">Cup'


async def test_a_profile_lists_its_tournaments_with_rank_linked_to_their_kept_pages(
    srv: Running, browser: Browser
) -> None:
    """A Swiss that ended (kept in SQL as its director keeps it, its keys long gone from
    Redis): Ann's profile lists it with her rank of its players and her points, its name (markup)
    as text, and one of her games says it; the link opens its page, from the archive."""
    seeded = await seed(srv)
    summary = TournamentSummary(
        "5a5a5a5a", HOSTILE, "Bob", "Base", TimeControl("clock", 180, 2), False,
        seeded.t0, seeded.t0, "over", 3, 64, kind="swiss", rounds=3, round=3,
    )  # fmt: skip
    standings = [
        Standing(seeded.bob, "Bob", 1488, 2.5, [1.0, 1.0, 0.5], buchholz=3.0),
        Standing(seeded.ann, "Ann", 1612, 1.5, [0.0, 1.0, 0.5], byes=1, buchholz=4.0),
        Standing("c0ffee00", "Cy", None, 1.0, [1.0, 0.0, 0.0]),
    ]
    archived = srv.hub.tournaments.archived
    assert archived is not None
    assert await archived.write(Tournament(summary, standings, seeded.bob), seeded.bob, seeded.t0)
    async with srv.hub.database.engine.begin() as connection:
        games = tables.games
        await connection.execute(
            update(games).where(games.c.id == seeded.newest).values(tournament="5a5a5a5a")
        )
    gus = await Person.open(browser, srv.http_url, "gus", "/#/@/ann")
    page = gus.page
    row = page.get_by_test_id("profile-tournament")
    await expect(row).to_have_count(1)
    await expect(row.get_by_test_id("tournament-rank")).to_have_text("2nd of 3")
    await expect(row).to_contain_text("1.5 points")
    link = row.locator('a[href="#/tournament/5a5a5a5a"]')
    await expect(link).to_have_text(HOSTILE)  # text, not markup
    await expect(page.locator("[data-testid=profile] img")).to_have_count(0)
    newest = page.locator(f"[data-testid=profile-games] li[data-game={seeded.newest}]")
    await expect(newest.get_by_test_id("game-tournament")).to_have_text(HOSTILE)
    await link.click()
    await expect(page.get_by_test_id("tournament-title")).to_have_text(HOSTILE)
    await expect(page.get_by_test_id("tournament-winner")).to_have_text("Winner: Bob")
    standing = page.get_by_test_id("standing")
    await expect(standing).to_have_count(3)
    await expect(standing.nth(1)).to_have_attribute("data-name", "Ann")
    await expect(page.get_by_test_id("tournament-join")).to_have_count(0)
    assert await page.evaluate("window.hacked") is None
    assert gus.errors == []
    await gus.close()

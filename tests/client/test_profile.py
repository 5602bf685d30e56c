"""Profiles and leaderboards in the browser (issue 20): a player's page (#/@/NAME) shows their
rating per speed with "?" while provisional, a chart of their rating history drawn by uPlot,
wins, draws and losses, the record against each bot level, their games newest first a page at
a time with links to review, and the download of all their games; the leaderboard of a speed
lists the established players, linked to their profiles. The games are archived records and
the ratings rows put in the database, as tests/server/test_profiles.py does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from protocol import PROFILE_PAGE, Account, GetProfile, Profile, Seat, SignUp
from protocol.client import Client
from server.archive.db import tables
from server.game.clock import now_ms
from tests.client.support import Person
from tests.server.conftest import Running
from tests.server.test_profiles import (
    BEGINNER,
    DAY_MS,
    HARD,
    archive,
    ask,
    finished,
    insert,
    point,
    rate,
    rating,
)

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
GAMES = PROFILE_PAGE + 5
"""Ann's games: two pages."""


@dataclass
class Seeded:
    ann: str
    bob: str
    token: str
    newest: str
    t0: int


async def seed(srv: Running) -> Seeded:
    """Ann and Bob, accounts; Ann's GAMES games against Bob and the hard and beginner bots (the
    first two rated), her blitz rating established and her rapid one provisional, a blitz
    history of four points; Bob's blitz rating established (below Ann's)."""
    players = {}
    for name in ("Ann", "Bob"):
        async with Client.connect(srv.ws_url, nickname=name.lower()) as client:
            await client.send(SignUp(name, PASSWORD))
            await client.expect(Account)
            players[name] = (client.player, client.welcome.token)
    ann, bob = players["Ann"][0], players["Bob"][0]
    a = Seat(ann, "Ann", account="account")
    b = Seat(bob, "Bob", account="account")
    t0 = now_ms() - 10 * DAY_MS
    records = []
    for n in range(GAMES):
        game = f"b{n:07d}"
        if n % 5 == 3:
            records.append(finished(game, a, HARD, "BlackWins", "queen", t0 + n))
        elif n % 5 == 4:
            records.append(finished(game, BEGINNER, a, "BlackWins", "queen", t0 + n))
        elif n % 2 == 0:
            records.append(finished(game, a, b, "WhiteWins", "resign", t0 + n))
        else:
            records.append(finished(game, b, a, "Draw", "agreement", t0 + n))
    await archive(srv, *records)
    await rate(srv, "b0000000", white_rating=1500.0, white_rd=300.0, white_change=120.4,
               black_rating=1510.2, black_rd=280.0, black_change=-119.6)  # fmt: skip
    await rate(srv, "b0000001", white_rating=1390.6, white_rd=200.0, white_change=-6.6,
               black_rating=1620.4, black_rd=150.0, black_change=3.2)  # fmt: skip
    await insert(
        srv,
        tables.ratings,
        [
            rating(ann, "blitz", 1612.4, 95.2, 4, t0 + 3),
            rating(ann, "rapid", 1450.0, 200.7, 1, t0),
            rating(bob, "blitz", 1488.0, 90.0, 4, t0 + 3),
        ],
    )
    await insert(
        srv,
        tables.rating_history,
        [
            point(ann, "b0000000", t0 + 0, 1620.4),
            point(ann, "b0000001", t0 + 1 * DAY_MS, 1623.6),
            point(ann, "b0000002", t0 + 2 * DAY_MS, 1600.0),
            point(ann, "b0000004", t0 + 3 * DAY_MS, 1612.4),
        ],
    )
    newest = f"b{GAMES - 1:07d}"
    return Seeded(ann, bob, players["Ann"][1], newest, t0)


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

"""After a game and on a phone (issue 38): play again against the same bot level, takebacks
between two people, every page reached from the menu on a phone, the optional move
confirmation, the leaderboard's provisional section and a chart of one rated game, and the
clock after a server restart."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from hive import Game
from protocol import JoinGame
from server.archive.db import tables
from server.game.clock import now_ms, time_left
from server.live.recovery import OUTAGE_MS
from tests.client.support import Link, Person, duel, reply, wait_until
from tests.server.archived import insert, point, seed
from tests.server.conftest import Running, StartServer, free_port
from tests.support import until

pytestmark = pytest.mark.browser


async def test_play_again_against_the_same_bot_level_with_colours_swapped(
    srv: Running, browser: Browser
) -> None:
    ada = await Person.open(browser, srv.http_url, "ada")
    page = ada.page
    await ada.choose("Base", "none", "white")
    await page.locator("[data-testid=create-form] select[name=opponent]").select_option(
        "bot:beginner"
    )
    await page.get_by_test_id("create").click()
    first = await ada.game_id()
    await expect(page.get_by_test_id("name-white")).to_have_text("ada")
    await page.get_by_test_id("resign").click()
    await page.get_by_test_id("resign-confirm").click()
    again = page.get_by_test_id("play-again")
    await expect(again).to_contain_text("as black")
    await expect(page.get_by_test_id("rematch")).to_have_count(0)
    await again.click()
    await wait_until(page, "first => location.hash !== `#/game/${first}`", first)
    second = await ada.game_id()
    await expect(page.get_by_test_id("name-black")).to_have_text("ada")
    await expect(page.get_by_test_id("name-white")).to_contain_text("bot")
    record = await srv.hub.store.get(second)
    assert record is not None and record.white is not None and record.black is not None
    assert (record.white.bot, record.black.name) == ("beginner", "ada")
    assert (record.game_type, record.time.kind, record.status) == ("Base", "none", "live")
    assert ada.errors == []
    await ada.close()


async def test_a_takeback_asked_and_accepted_and_one_declined(
    srv: Running, browser: Browser
) -> None:
    ada = await Person.open(browser, srv.http_url, "ada")
    bob = await Person.open(browser, srv.http_url, "bob")
    await ada.choose("Base", "5+5", "white")
    await ada.page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    await bob.page.goto(f"{srv.http_url}/#/game/{game_id}")
    await bob.page.get_by_role("button", name="Join this game").click()
    await expect(ada.page.get_by_test_id("name-black")).to_have_text("bob")
    game = Game("Base")
    for mover, text in ((ada, "wS1"), (bob, "bS1 wS1-"), (ada, "wQ -wS1")):
        await mover.my_turn()
        await mover.play(game, text)
        game.play(text)
    await bob.wait_version(5)
    # Bob has not answered: Ada asks to take back her Queen; Bob accepts
    await expect(bob.page.get_by_test_id("takeback")).to_be_visible()  # he has moved too
    await ada.page.get_by_test_id("takeback").click()
    await expect(ada.page.get_by_test_id("takeback-waiting")).to_be_visible()
    await expect(bob.page.get_by_test_id("takeback-asked")).to_contain_text("ada asks")
    await bob.page.get_by_test_id("accept-takeback").click()
    await ada.my_turn()
    assert await ada.moves() == ["wS1", "bS1 wS1-"]
    await expect(ada.page.get_by_test_id("takeback-waiting")).to_have_count(0)
    await expect(bob.page.get_by_test_id("notice")).to_contain_text("A move taken back")
    record = await srv.hub.store.get(game_id)
    assert record is not None and record.moves == ["wS1", "bS1 wS1-"]
    assert (record.clock_white, record.clock_black) == (300_000, 300_000)  # as they were
    game.pop()
    # Ada plays elsewhere, Bob answers, and asks to take that back: Ada declines
    for mover, text in ((ada, "wG1 -wS1"), (bob, "bQ bS1-")):
        await mover.my_turn()
        await mover.play(game, text)
        game.play(text)
    await ada.my_turn()
    await bob.page.get_by_test_id("takeback").click()
    await ada.page.get_by_test_id("decline-takeback").click()
    await expect(bob.page.get_by_test_id("notice")).to_contain_text("White declined the takeback")
    await expect(bob.page.get_by_test_id("takeback-waiting")).to_have_count(0)
    assert await bob.moves() == ["wS1", "bS1 wS1-", "wG1 -wS1", "bQ bS1-"]
    # one request at a time, and a few a game: the server says why it refuses the next
    record = await srv.hub.store.get(game_id)
    assert record is not None and record.black_takebacks == 1 and record.takeback_offer is None
    assert ada.errors == [] and bob.errors == []
    await ada.close()
    await bob.close()


async def test_every_page_is_reached_from_the_menu_on_a_phone(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    zoe = await Person.open(browser, srv.http_url, "zoe", phone=True)
    page = zoe.page
    await expect(page.get_by_test_id("leaderboard-link")).to_be_hidden()  # no room in the bar
    menu = page.get_by_test_id("site-menu")

    async def chosen(item: str) -> None:
        await menu.tap()
        await page.get_by_test_id(item).tap()
        await expect(page.locator(".site-menu[open]")).to_have_count(0)  # closed behind it

    await chosen("menu-rules")
    await expect(page).to_have_url(f"{srv.http_url}/#/rules")
    await chosen("menu-leaderboard")
    await expect(page.get_by_test_id("leaderboard")).to_be_visible()
    await page.get_by_test_id("tab-rapid").tap()
    await expect(page).to_have_url(f"{srv.http_url}/#/leaderboard/rapid")
    await zoe.screenshot(artifacts / "issue38-phone-leaderboard.png")
    await chosen("menu-analysis")
    await expect(page.get_by_test_id("analysis")).to_be_visible()
    await expect(page).to_have_url(re.compile(re.escape(f"{srv.http_url}/#/analysis")))
    await chosen("menu-lobby")
    await expect(page.get_by_test_id("create-form")).to_be_visible()
    await menu.tap()
    async with zoe.context.expect_page() as opened:
        await page.get_by_test_id("menu-visualizer").tap()
    visualizer = await opened.value
    await expect(visualizer).to_have_url(f"{srv.http_url}/visualizer")
    await visualizer.close()
    # the account's pages are in the account's menu: sign up, then the profile
    await page.keyboard.press("Escape")
    await page.get_by_test_id("account-menu").tap()
    await page.get_by_test_id("menu-signup").tap()
    await page.get_by_test_id("auth-name").fill("zoe_p")
    await page.get_by_test_id("auth-password").fill("a long password")
    await page.get_by_test_id("auth-submit").tap()
    await expect(page.locator("[data-slot=account]")).to_have_attribute("data-kind", "account")
    await page.get_by_test_id("account-menu").tap()
    await zoe.screenshot(artifacts / "issue38-phone-account-menu.png")
    await page.get_by_test_id("menu-profile").tap()
    await expect(page).to_have_url(f"{srv.http_url}/#/@/zoe_p")
    await expect(page.locator(".profile")).to_contain_text("zoe_p")
    assert zoe.errors == []
    await zoe.close()


async def test_with_move_confirmation_on_a_move_goes_only_once_confirmed(
    srv: Running, browser: Browser
) -> None:
    game = Game("Base")
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        switch = page.get_by_test_id("confirm-moves")
        await switch.click()
        await expect(switch).to_have_attribute("aria-pressed", "true")
        await ada.play(game, "wS1")
        await expect(page.get_by_test_id("chosen-move")).to_contain_text("wS1")
        record = await srv.hub.store.get(game_id)
        assert record is not None and record.moves == []  # not sent
        await page.get_by_test_id("cancel-move").click()
        await expect(page.get_by_test_id("chosen-move")).to_have_count(0)
        await ada.play(game, "wS1")
        await page.get_by_test_id("confirm-move").click()
        game.play("wS1")
        await ada.wait_version(3)
        assert await ada.moves() == ["wS1"]
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        # the option is kept in this browser: still on after a reload
        await page.reload()
        await ada.online()
        await expect(switch).to_have_attribute("aria-pressed", "true")
        await ada.my_turn()
        await ada.play(game, "wQ -wS1")
        await expect(page.get_by_test_id("confirm-move")).to_be_visible()
        await switch.click()  # turned off: moves go at once
        await expect(switch).to_have_attribute("aria-pressed", "false")
        await ada.play(game, "wQ -wS1")
        await ada.wait_version(5)
        assert ada.errors == []


async def test_provisional_players_are_listed_apart_and_one_rated_game_charts_as_a_point(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    seeded = await seed(srv)  # Ann's rapid rating is provisional: no rapid leader yet
    at = now_ms() - 2 * 86_400_000
    await insert(srv, tables.rating_history, [point(seeded.bob, "b0000001", at, 1488.0)])
    gus = await Person.open(browser, srv.http_url, "gus", "/#/leaderboard/rapid")
    page = gus.page
    await expect(page.get_by_test_id("no-leaders")).to_contain_text("provisional ratings are below")
    await expect(page.get_by_test_id("newcomer")).to_have_text(["Ann"])
    await expect(page.get_by_test_id("newcomer-rating")).to_have_text(["1450?"])
    await page.get_by_test_id("tab-blitz").click()  # none provisional in blitz: no section
    await expect(page.get_by_test_id("leader")).to_have_text(["Ann", "Bob"])
    await expect(page.get_by_test_id("provisional")).to_be_hidden()
    # Bob's chart: one point, on a few days around it (not a time axis to years away)
    await page.goto(f"{srv.http_url}/#/@/bob")
    chart = page.get_by_test_id("rating-chart")
    await expect(chart).to_have_attribute("data-points", "1")
    await expect(chart).to_have_attribute("data-x-range", re.compile(r"^\d+ \d+$"))
    low, high = map(float, (await chart.get_attribute("data-x-range") or "0 0").split())
    assert low < at / 1000 < high and high - low <= 7 * 86_400
    await gus.screenshot(artifacts / "issue38-one-point-chart.png")
    assert gus.errors == []
    await gus.close()


async def test_the_clock_after_a_restart_charges_no_one_for_it_nor_for_the_reconnect(
    start_server: StartServer, browser: Browser
) -> None:
    """Ada (the browser) is to move with her clock running when the server stops; no server
    runs for a while, then it starts again, and her page stays away 5 s more (its link down):
    none of that is charged; her clock runs from her return. Bob's never ran."""
    port = free_port()
    link = Link()
    game = Game("Base")
    async with start_server(port=port) as srv:
        ada = await Person.open(browser, srv.http_url, "ada", link=link)
        await ada.choose("Base", "5+5", "white")
        await ada.page.get_by_test_id("create").click()
        game_id = await ada.game_id()
        async with srv.connect("bob") as bob:
            await bob.send(JoinGame(game_id))
            for mine, theirs in (("wS1", "bS1 wS1-"), ("wQ -wS1", "bQ bS1-")):
                await ada.my_turn()
                await ada.play(game, mine)
                game.play(mine)
                await reply(bob, game_id, game, theirs)
                game.play(theirs)
            await ada.wait_version(6)
        record = await srv.hub.store.get(game_id)
        assert record is not None
        before = time_left(record, "white", now_ms())
        assert before is not None and record.clock_black is not None
        black = record.clock_black
    await link.cut()  # her page cannot come back yet
    await asyncio.sleep(OUTAGE_MS / 1000 + 1)  # no server runs: an outage
    async with start_server(port=port) as srv:
        await asyncio.sleep(5)  # the server is back, Ada's page is not: the reconnect's wait
        record = await srv.hub.store.get(game_id)
        assert record is not None and record.held is not None
        assert time_left(record, "white", now_ms()) == record.clock_white  # held
        link.restore()
        await ada.online()

        async def resumed() -> bool:
            stored = await srv.hub.store.get(game_id)
            return stored is not None and stored.held is None

        await until(resumed, "Ada's clock runs again")
        record = await srv.hub.store.get(game_id)
        assert record is not None
        left = time_left(record, "white", now_ms())
        assert left is not None
        # off by the heartbeat's second either way (the outage counts from the last beat),
        # and charged since her return (a second at most): never the outage (over 4 s) nor
        # the wait (5 s)
        assert before - 2_500 < left < before + 1_500
        assert record.clock_black == black
        await expect(ada.page.locator("[data-testid=game] .clock.running")).to_have_count(1)
        assert ada.errors == []
        await ada.close()

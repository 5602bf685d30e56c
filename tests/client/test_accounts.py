"""Accounts in the header (issue 20): a guest signs up and keeps its games, changes its
password, logs out, logs in again (a connection of its own says ``login``; the page goes on
with the account's token), and every refusal the server may answer is said clearly in the
panel; "log out everywhere" signs out every browser of the account; a database away is said
in words too."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from protocol import Account, SignUp
from protocol.client import Client, ServerError
from server.requests.accounts import LOGINS_PER_ACCOUNT
from tests.client.support import Person
from tests.server.conftest import Running, StartServer
from tests.server.postgres import PostgresProcess

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


async def submit(page: Page, panel: str, name: str | None, password: str, new: str = "") -> None:
    """Open the header's ``panel`` form (signup, login, password) and send it."""
    if not await page.get_by_test_id("auth-form").is_visible():
        if panel == "password" or panel == "logout":
            await page.get_by_test_id("account-menu").click()
        await page.get_by_test_id(f"{panel}-open").click()
    if name is not None:
        await page.get_by_test_id("auth-name").fill(name)
    await page.get_by_test_id("auth-password").fill(password)
    if new:
        await page.get_by_test_id("auth-new").fill(new)
    await page.get_by_test_id("auth-submit").click()


async def refused_with(page: Page, words: str) -> None:
    await expect(page.get_by_test_id("auth-error")).to_contain_text(words)


async def log_out(page: Page, everywhere: bool = False) -> None:
    await page.get_by_test_id("account-menu").click()
    await page.get_by_test_id("logout-everywhere" if everywhere else "logout").click()
    await expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "signed-out")


async def test_a_guest_signs_up_keeps_its_games_logs_out_and_in_with_clear_errors(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    async with Client.connect(srv.ws_url, nickname="taken") as other:
        await other.send(SignUp("Taken", PASSWORD))
        await other.expect(Account)  # (a signup whose connection is gone is not made)
    ada = await Person.open(browser, srv.http_url, "ada")
    page = ada.page
    account = page.get_by_test_id("account-name")
    await expect(account).to_contain_text("guest")
    guest = await page.evaluate("localStorage.getItem('hive.token')")
    found = await srv.hub.store.player_of(guest)
    assert found is not None
    player = found[0]
    # a game of the guest's: open in the lobby
    await ada.choose("Base", "none", "white")
    await page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    await page.goto(srv.http_url + "/#/")

    # sign up: a bot's name, a name taken, then one that will do
    await submit(page, "signup", "hard", PASSWORD)
    await refused_with(page, "cannot be an account's")
    await refused_with(page, "bot's name")
    await page.screenshot(path=str(artifacts / "issue20-signup-error.png"))
    await page.keyboard.press("Escape")  # closes the form; what was typed is gone
    await expect(page.get_by_test_id("auth-panel")).to_be_hidden()
    await submit(page, "signup", "TAKEN", PASSWORD)
    await refused_with(page, "That name is taken")
    await submit(page, "signup", "Ada_1", PASSWORD)
    await expect(account).to_have_text("Ada_1")
    await expect(page.get_by_test_id("auth-panel")).to_be_hidden()
    await expect(page.get_by_test_id("notice")).to_contain_text("your games stay yours")
    await expect(page.get_by_test_id("me")).to_have_text("Ada_1")
    assert await page.evaluate("localStorage.getItem('hive.token')") == guest  # the same session
    row = page.locator(f'[data-testid=open-games] li[data-game="{game_id}"]')
    await expect(row.get_by_role("button", name="Cancel")).to_be_visible()  # still hers

    # change the password: the old one wrong, then right
    await submit(page, "password", None, "not my password", new="a new password")
    await refused_with(page, "Your current password is wrong")
    await page.get_by_test_id("auth-password").fill(PASSWORD)
    await page.get_by_test_id("auth-submit").click()
    await expect(page.get_by_test_id("notice")).to_contain_text("Password changed")
    await page.get_by_test_id("account-menu").click()
    await page.screenshot(path=str(artifacts / "issue20-account-menu.png"))
    await page.get_by_test_id("account-menu").click()

    # log out (a second tab of the browser too), then log in: a wrong password, then the
    # right one; the second tab follows the new session
    tab = await ada.context.new_page()
    await tab.goto(srv.http_url + "/")
    await expect(tab.get_by_test_id("account-name")).to_have_text("Ada_1")
    await log_out(page)
    await expect(tab.get_by_test_id("connection")).to_have_attribute("data-status", "signed-out")
    await expect(account).to_have_count(0)
    await submit(page, "login", "ada_1", PASSWORD)  # the old password
    await refused_with(page, "Wrong name or password")
    await submit(page, "login", "ada_1", "a new password")
    await expect(account).to_have_text("Ada_1")
    await ada.online()
    token = await page.evaluate("localStorage.getItem('hive.token')")
    assert token not in (None, guest)
    assert (await srv.hub.store.player_of(token) or ("",))[0] == player  # the same player
    await expect(tab.get_by_test_id("account-name")).to_have_text("Ada_1")
    await tab.close()
    await expect(row.get_by_role("button", name="Cancel")).to_be_visible()

    # logged in in a second browser, "log out everywhere" signs both out
    bea = await Person.open(browser, srv.http_url, "bea")
    await submit(bea.page, "login", "Ada_1", "a new password")
    await expect(bea.page.get_by_test_id("account-name")).to_have_text("Ada_1")
    await log_out(page, everywhere=True)
    await expect(bea.page.get_by_test_id("connection")).to_have_attribute(
        "data-status", "signed-out"
    )
    assert await srv.hub.store.player_of(token) is None

    # too many attempts on the account: said, and the page stays signed out
    for _ in range(LOGINS_PER_ACCOUNT):
        with pytest.raises(ServerError):
            async with Client.connect(srv.ws_url, nickname="Ada_1", password="wrong password"):
                pass
    await submit(page, "login", "Ada_1", "a new password")
    await refused_with(page, "Too many attempts")
    await expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "signed-out")
    assert ada.errors == [] and bea.errors == []
    await bea.close()
    await ada.close()


async def test_a_database_away_is_said_in_words_and_the_page_recovers(
    start_server: StartServer, postgres_server: PostgresProcess, browser: Browser
) -> None:
    async with start_server(database_url=postgres_server.create()) as srv:
        ada = await Person.open(browser, srv.http_url, "ada")
        page = ada.page
        postgres_server.stop()
        try:
            await submit(page, "signup", "Ada_2", PASSWORD)
            await refused_with(page, "cannot reach its accounts just now")
            await page.keyboard.press("Escape")
            await page.get_by_test_id("leaderboard-link").click()
            await expect(page.get_by_test_id("leaders")).to_contain_text("unavailable")
            await ada.online()  # the page plays on
        finally:
            postgres_server.restart()
        await submit(page, "signup", "Ada_2", PASSWORD)
        await expect(page.get_by_test_id("account-name")).to_have_text("Ada_2")
        assert ada.errors == []
        await ada.close()

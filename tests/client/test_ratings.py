"""Ratings in the lobby and the game page (issue 20): an account creates a rated game with a
rating range from the create form; the lobby marks a game whose range leaves one out, and
shows its creator's rating ("1500?": provisional), that it is rated and its range, and marks
it as one a guest cannot join; the players' bars show the ratings; at the end the rating
changes show to the players and to a spectator, and a rated game resigned before it was
fought says it was not rated."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from protocol import Account, CreateGame, JoinGame, Resign, SignUp, TimeControl, Update
from protocol.client import Client
from tests.client.support import Person
from tests.server.conftest import Running
from tests.server.support import play, updated, watch

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


async def account(srv: Running, name: str) -> str:
    """A new account ``name``: the token of its session."""
    async with srv.connect(name.lower()) as client:
        await client.send(SignUp(name, PASSWORD))
        await client.expect(Account)
        token: str = client.welcome.token
        return token


async def test_a_rated_game_shows_ratings_and_their_changes_to_players_and_spectators(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    bob_token = await account(srv, "Bob")
    async with Client.connect(srv.ws_url, token=bob_token) as bob:
        await bob.send(CreateGame("Base", TimeControl("clock", 300, 5), rating_min=1600))
        high = (await bob.expect(Update)).game
    ada_token = await account(srv, "Ada")
    ada = await Person.open(browser, srv.http_url, "ada", token=ada_token)
    await expect(ada.page.get_by_test_id("account-name")).to_have_text("Ada")
    page = ada.page
    # Bob's game wants 1600 or more: Ada (1500, provisional) cannot join it
    row = page.locator(f'[data-testid=open-games] li[data-game="{high}"]')
    await expect(row.get_by_test_id("range")).to_have_text("from 1600")
    await expect(row.get_by_test_id("cannot-join")).to_have_text("your rating 1500 is below 1600")
    # a guest cannot choose rated; an account can, with a rating range
    cy = await Person.open(browser, srv.http_url, "cy")
    await expect(cy.page.get_by_test_id("rated")).to_be_disabled()
    await expect(cy.page.get_by_test_id("rated-note")).to_contain_text("Sign up or log in")
    await ada.choose("Base", "5+5", "white")
    await page.get_by_test_id("rated").check()
    await page.get_by_test_id("rating-min").fill("1400")
    await page.get_by_test_id("rating-max").fill("1600")
    await page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    await expect(page.get_by_test_id("game-kind")).to_have_text("rated rapid")
    await expect(page.get_by_test_id("rating-white")).to_have_text("1500?")

    # the guest's lobby: the creator's rating, rated, the range, and why not join
    row = cy.page.locator(f'[data-testid=open-games] li[data-game="{game_id}"]')
    await expect(row.get_by_test_id("seat-rating")).to_have_text("1500?")
    await expect(row.get_by_test_id("rated-tag")).to_have_text("rated rapid")
    await expect(row.get_by_test_id("range")).to_have_text("1400–1600")
    await expect(row.get_by_test_id("cannot-join")).to_contain_text("rated game: sign up")
    await expect(row.get_by_test_id("join")).to_have_count(0)
    await expect(row.get_by_test_id("profile-link")).to_have_attribute("href", "#/@/Ada")
    await cy.screenshot(artifacts / "issue20-lobby-rated.png")
    await cy.page.goto(f"{srv.http_url}/#/game/{game_id}")  # the open game's own page says so too
    await expect(cy.page.get_by_test_id("cannot-join")).to_contain_text("sign up or log in")
    await cy.page.goto(f"{srv.http_url}/#/")

    async with (
        Client.connect(srv.ws_url, token=bob_token) as bob,
        Client.connect(srv.ws_url, token=ada_token) as ada_too,  # Ada's moves, by protocol
    ):
        await bob.send(JoinGame(game_id))
        await ada.wait_version(2)
        await expect(page.get_by_test_id("rating-black")).to_have_text("1500?")
        await expect(page.get_by_test_id("profile-link-black")).to_have_attribute("href", "#/@/Bob")
        await cy.page.goto(f"{srv.http_url}/#/game/{game_id}")  # a spectator
        await expect(cy.page.get_by_test_id("rating-white")).to_have_text("1500?")
        # two moves a side (a rated game counts once fought), then Bob resigns
        update = await watch(ada_too, game_id)
        for move in ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"):
            await play(ada_too if update.state.turn == "white" else bob, update, move)
            update = await updated(ada_too, game_id)
        await bob.send(Resign(game_id))
        for person in (ada, cy):
            white = person.page.get_by_test_id("rating-change-white")
            await expect(white).to_contain_text("1500 →")
            await expect(white).to_contain_text("(+")
            black = person.page.get_by_test_id("rating-change-black")
            await expect(black).to_contain_text("(−")
        assert int(await white.get_attribute("data-delta") or 0) > 0
        await ada.screenshot(artifacts / "issue20-rated-end.png")

        # resigned before a move: not rated, and the page says why
        await ada_too.send(CreateGame("Base", TimeControl("clock", 300, 5), rated=True))
        while (made := await ada_too.expect(Update)).state.status != "open":
            pass  # the first game's last updates
        short = made.game
        await bob.send(JoinGame(short))
        await cy.page.goto(f"{srv.http_url}/#/game/{short}")
        await updated(bob, short)
        await bob.send(Resign(short))
        await expect(cy.page.get_by_test_id("unrated")).to_have_text(
            "Not rated: each side must make 2 moves for a rated game to count."
        )
        await expect(cy.page.get_by_test_id("rating-changes")).to_have_count(0)
    assert ada.errors == [] and cy.errors == []
    await cy.close()
    await ada.close()

"""The game's buttons in the browser: chat, a draw offered and declined, a draw agreed (offered
by either side), a rematch that takes both players to the new game (asked by either side), a
resignation, a pass when it is the only move, the record's link, and a spectator muted."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.async_api import Browser, expect

from hive import Game
from protocol import Draw, Rematch, Update
from protocol.client import Client
from tests.client.support import Person, duel, exchange, layout_of, seen, wait_until
from tests.server.conftest import Running

pytestmark = pytest.mark.browser


async def test_chat_draws_rematch_and_resign(srv: Running, browser: Browser) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        # chat
        await page.get_by_test_id("chat-input").fill("good luck!")
        await page.get_by_test_id("chat-input").press("Enter")
        update = await heard(bob, game_id, lambda u: bool(u.state.chat))
        assert [(e.by, e.text) for e in update.state.chat] == [("ada", "good luck!")]
        await expect(page.get_by_test_id("chat")).to_contain_text("good luck!")

        # Bob offers a draw; Ada declines it
        await bob.send(Draw(game_id, "offer"))
        await page.get_by_test_id("decline-draw").click()
        await heard(bob, game_id, lambda u: [e.kind for e in u.events] == ["draw_decline"])
        await expect(page.get_by_test_id("offer-draw")).to_be_visible()

        # Ada offers one; Bob accepts: a draw by agreement
        await page.get_by_test_id("offer-draw").click()
        await heard(bob, game_id, lambda u: u.state.draw_offer == "white")
        await bob.send(Draw(game_id, "accept"))
        result = page.get_by_test_id("result")
        await expect(result).to_have_attribute("data-result", "Draw")
        await expect(result).to_have_attribute("data-reason", "agreement")
        await expect(result).to_contain_text("agreed")

        # a rematch, colours swapped: Ada's page follows to the new game
        await page.get_by_test_id("rematch").click()
        await heard(bob, game_id, lambda u: u.state.rematch_offer == "white")
        await bob.send(Rematch(game_id))
        await wait_until(
            page,
            "id => location.hash.startsWith('#/game/') && !location.hash.endsWith(id)",
            game_id,
        )
        rematch = await ada.game_id()
        assert rematch != game_id
        await expect(page.get_by_test_id("name-black")).to_have_text("ada")
        await expect(page.get_by_test_id("name-white")).to_have_text("bob")

        # Ada resigns it: two clicks, the second to confirm
        await page.get_by_test_id("resign").click()
        await page.get_by_test_id("resign-confirm").click()
        result = page.get_by_test_id("result")
        await expect(result).to_have_attribute("data-result", "WhiteWins")
        await expect(result).to_have_attribute("data-reason", "resign")
        await expect(result).to_contain_text("You lost")
        record = await srv.hub.store.get(rematch)
        assert record is not None and (record.result, record.reason) == ("WhiteWins", "resign")
        assert ada.errors == []


async def test_accepting_the_opponents_draw_and_rematch_and_the_records_link(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        record = page.get_by_test_id("record-link")
        await expect(record).to_have_attribute("href", f"/games/{game_id}.txt")
        fetched = await page.request.get(srv.http_url + f"/games/{game_id}.txt")
        assert fetched.ok and (await fetched.text()).startswith("Base;NotStarted;White[1]")

        # Bob offers a draw; Ada accepts it in the page
        await bob.send(Draw(game_id, "offer"))
        await page.get_by_test_id("accept-draw").click()
        result = page.get_by_test_id("result")
        await expect(result).to_have_attribute("data-result", "Draw")
        await expect(result).to_have_attribute("data-reason", "agreement")
        stored = await srv.hub.store.get(game_id)
        assert stored is not None and (stored.result, stored.reason) == ("Draw", "agreement")

        # Bob asks for a rematch; Ada's button accepts it and her page goes to the new game
        await bob.send(Rematch(game_id))
        await expect(page.get_by_test_id("rematch")).to_have_text("Accept rematch")
        await page.get_by_test_id("rematch").click()
        await wait_until(
            page,
            "id => location.hash.startsWith('#/game/') && !location.hash.endsWith(id)",
            game_id,
        )
        rematch = await ada.game_id()
        await expect(page.get_by_test_id("name-white")).to_have_text("bob")
        await expect(page.get_by_test_id("record-link")).to_have_attribute(
            "href", f"/games/{rematch}.txt"
        )
        assert ada.errors == []


# fmt: off
PASS_GAME = [
    "wA1", "bS1 wA1-", "wQ -wA1", "bQ bS1/", "wQ \\wA1", "bA1 bS1\\",
    "wQ -wA1", "bA2 bQ\\", "wQ \\wA1", "bA1 \\wQ", "wG1 /wQ", "bA2 /wG1",
]
# fmt: on
"""Twelve plies after which White has no move but to pass (nokamute's UHP test "Pass")."""


async def test_a_pass_when_it_is_the_only_move(srv: Running, browser: Browser) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        game = Game("Base")
        for mine, theirs in zip(PASS_GAME[::2], PASS_GAME[1::2], strict=True):
            await ada.my_turn()
            await expect(ada.page.get_by_test_id("pass")).to_have_count(0)
            await exchange(ada, bob, game_id, game, mine, theirs)
        assert game.legal_moves() == [game.parse_move("pass")]
        assert await ada.pieces() == layout_of(game)
        await ada.my_turn()
        await ada.page.get_by_test_id("pass").click()
        update = await seen(bob, game_id, game.ply + 1)
        assert update.state.moves[-1] == "pass" and update.state.turn == "black"
        await ada.wait_version(2 + game.ply + 1)
        await expect(ada.page.get_by_test_id("moves")).to_contain_text("pass")
        await expect(ada.page.get_by_test_id("pass")).to_have_count(0)
        assert ada.errors == []


async def test_a_player_mutes_a_spectator_from_the_chat(srv: Running, browser: Browser) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        cy = await Person.open(browser, srv.http_url, "cy", f"/#/game/{game_id}")
        try:
            says, sees = cy.page.get_by_test_id("chat-input"), cy.page.get_by_test_id("notice")
            await ada.page.get_by_test_id("chat-input").fill("hello all")
            await ada.page.get_by_test_id("chat-input").press("Enter")
            await expect(cy.page.get_by_test_id("chat")).to_contain_text("hello all")
            await says.fill("boo")
            await says.press("Enter")
            chat = ada.page.get_by_test_id("chat")
            line = chat.locator("li", has_text="boo")
            await expect(line).to_have_count(1)
            own = chat.locator("li", has_text="hello all")
            await expect(own.get_by_test_id("mute")).to_have_count(0)  # not one's own lines
            await line.get_by_test_id("mute").click()
            await expect(line.get_by_test_id("unmute")).to_be_visible()
            await expect(sees).to_contain_text("ada muted you")
            await expect(cy.page.get_by_test_id("mute")).to_have_count(0)  # spectators cannot

            await says.fill("boo again")
            await says.press("Enter")
            await expect(sees).to_have_attribute("data-kind", "error")
            await expect(sees).to_contain_text("you are muted in this game")

            await line.get_by_test_id("unmute").click()
            await expect(sees).to_contain_text("ada unmuted you")
            await says.fill("sorry")
            await says.press("Enter")
            await expect(chat).to_contain_text("sorry")
            update = await heard(bob, game_id, lambda u: any(e.text == "sorry" for e in u.events))
            assert [e.text for e in update.state.chat] == ["hello all", "boo", "sorry"]
            assert update.state.muted == []
            assert ada.errors == cy.errors == []
        finally:
            await cy.close()


async def heard(bob: Client, game_id: str, check: Callable[[Update], bool]) -> Update:
    """The first update of the game Bob receives that passes ``check``."""
    while not check(update := await seen(bob, game_id, 0)):
        pass
    return update

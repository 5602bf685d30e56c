"""Bot accounts in the browser: the lobby's live list of bots online, a challenge by name from
it (with the create form's choices, or what the bot plays), a game for any bot from outside,
the bot's seat marked in the game, and a refusal shown on the lobby."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from hive import Game
from protocol import (
    BotReady,
    GameSummary,
    JoinGame,
    Lobby,
    LobbyChange,
    Play,
    TimeControl,
    Update,
    WatchLobby,
)
from protocol.client import Client
from tests.client.support import Link, Person, layout_of
from tests.server.conftest import Running
from tests.server.support import lobby_until
from tests.support import until

pytestmark = pytest.mark.browser


async def test_a_person_challenges_a_bot_account_and_plays_it(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    player, token = await srv.hub.store.new_bot("robo", 0)
    ada = await Person.open(browser, srv.http_url, "ada")
    cy = await Person.open(browser, srv.http_url, "cy")
    try:
        bots = ada.page.get_by_test_id("bots")
        await expect(bots).to_contain_text("No bot account is online")
        async with Client.connect(srv.ws_url, token=token) as robo:
            assert robo.welcome.bot
            await robo.send(BotReady(["Base", "Base+MLP"], ["none", "clock"], 2))
            await robo.send(WatchLobby())
            row = bots.locator('li[data-bot="robo"]')
            await expect(row).to_contain_text("Base, Base+MLP")
            await expect(row).to_contain_text("no clock, clock")
            await expect(row.get_by_test_id("bot-load")).to_have_text("0/2 games")

            # Ada challenges robo to the game her form says (robo plays it): Base+MLP, 10 min
            # + 10 s, she plays White.
            await ada.choose("Base+MLP", "10+10", "white")
            await row.get_by_test_id("challenge").click()
            game_id = await ada.game_id()
            await expect(ada.page.get_by_test_id("status")).to_contain_text("Waiting")

            # robo sees the challenge in its lobby; Cy sees it too, and may not join it.
            summary = await open_game(robo, game_id)
            assert summary.wants == "bots"
            assert summary.challenge is not None and summary.challenge.player == player
            assert (summary.game_type, summary.time, summary.creator_color) == (
                "Base+MLP",
                TimeControl("clock", 600, 10),
                "white",
            )
            listed = cy.page.locator(f'[data-testid=open-games] li[data-game="{game_id}"]')
            await expect(listed.get_by_test_id("for-bot")).to_have_text("challenges robo")
            await expect(listed.get_by_test_id("bots-only")).to_be_visible()
            await expect(listed.get_by_test_id("join")).to_have_count(0)
            await cy.screenshot(artifacts / "lobby-bots.png")

            # robo takes it: Ada's game starts with robo's seat marked as a bot.
            await robo.send(JoinGame(game_id))
            await ada.wait_version(2)
            await expect(ada.page.get_by_test_id("name-black")).to_have_text("robo")
            await expect(ada.page.get_by_test_id("bot-black")).to_have_text("bot")
            await expect(ada.page.get_by_test_id("bot-white")).to_have_count(0)
            robo_at_cy = cy.page.locator('[data-testid=bots] li[data-bot="robo"]')
            await expect(robo_at_cy.get_by_test_id("bot-load")).to_have_text("1/2 games")

            # Ada moves by clicking; robo answers with a move of the state's legal list.
            game = Game("Base+MLP")
            for _ in range(2):
                await ada.my_turn()
                mine = game.move_string(game.legal_moves()[0])
                await ada.play(game, mine)
                game.play(mine)
                update = await robo_turn(robo, game_id, game.ply)
                answer = update.state.legal[0].move
                await robo.send(Play(game_id, update.version, answer))
                game.play(answer)
                await ada.wait_version(2 + game.ply)
            await ada.my_turn()
            assert await ada.pieces() == layout_of(game)
            record = await srv.hub.store.get(game_id)
            assert record is not None and len(record.moves) == 4

        # robo is gone: the list no longer shows it.
        await expect(robo_at_cy).to_have_count(0)
        await expect(cy.page.get_by_test_id("bots")).to_contain_text("No bot account is online")
        assert ada.errors == cy.errors == []
    finally:
        await ada.close()
        await cy.close()


async def test_a_challenge_takes_what_the_bot_plays_and_refusals_show(
    srv: Running, browser: Browser
) -> None:
    _, token = await srv.hub.store.new_bot("robo", 0)
    link = Link()
    ada = await Person.open(browser, srv.http_url, "ada", link=link)
    try:
        async with (
            Client.connect(srv.ws_url, token=token) as robo,
            srv.connect("bob") as bob,
        ):
            await robo.send(BotReady(["Base+MLP", "Base"], ["none"], 1))
            await robo.send(WatchLobby())
            await bob.send(WatchLobby())
            row = ada.page.locator('[data-testid=bots] li[data-bot="robo"]')

            # The form asks for what robo does not play: the challenge takes its first game
            # type (the server lists them sorted) and a kind of time control it plays.
            await ada.choose("Base+M", "3d", "black")
            await row.get_by_test_id("challenge").click()
            game_id = await ada.game_id()
            summary = await open_game(robo, game_id)
            assert summary.challenge is not None and summary.challenge.name == "robo"
            assert (summary.game_type, summary.time.kind, summary.creator_color) == (
                "Base",
                "none",
                "black",
            )
            await ada.page.get_by_role("button", name="Cancel game").click()
            await expect(ada.page.get_by_test_id("result")).to_have_attribute(
                "data-reason", "cancelled"
            )

            # A game for any bot from outside, from the form: listed as such, no challenge.
            await ada.page.get_by_role("link", name="Lobby", exact=True).first.click()
            form = ada.page.get_by_test_id("create-form")
            await form.locator("select[name=opponent]").select_option("bots")
            await ada.page.get_by_test_id("create").click()
            game_id = await ada.game_id()
            summary = await open_game(robo, game_id)
            assert (summary.wants, summary.challenge) == ("bots", None)
            await ada.page.get_by_role("link", name="Lobby", exact=True).first.click()
            mine = ada.page.locator(f'[data-testid=open-games] li[data-game="{game_id}"]')
            await expect(mine.get_by_test_id("for-bot")).to_have_text("for a bot")

            # robo leaves while Ada's page hears nothing: her list still shows it, and the
            # server's refusal of her challenge shows on the lobby.
            link.deaf = True
            await robo.ws.close()
            await lobby_until(bob, lambda lobby: lobby.bots == [])
            await until(
                lambda: any(
                    isinstance(m, (Lobby, LobbyChange)) and m.bots == [] for m in link.dropped
                ),
                "Ada's link dropped the lobby's news that robo left",
            )
            link.deaf = False
            await row.get_by_test_id("challenge").click()
            notice = ada.page.get_by_test_id("notice")
            await expect(notice).to_have_attribute("data-kind", "error")
            await expect(notice).to_contain_text("the bot robo is not connected")
            assert ada.page.url.endswith("#/")
        assert ada.errors == []
    finally:
        await ada.close()


async def open_game(client: Client, game_id: str) -> GameSummary:
    """Game ``game_id`` in the open list of the first lobby ``client`` receives that has it."""
    lobby = await lobby_until(client, lambda lobby: any(g.id == game_id for g in lobby.open))
    return next(g for g in lobby.open if g.id == game_id)


async def robo_turn(robo: Client, game_id: str, plies: int) -> Update:
    """The first update robo receives of the game with ``plies`` moves played."""
    while True:
        message = await robo.recv()
        if (
            isinstance(message, Update)
            and message.game == game_id
            and len(message.state.moves) >= plies
        ):
            return message

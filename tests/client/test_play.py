"""Playing in the browser: two people through the lobby to a result, a person against a bot with
someone watching, and a game on a phone-sized screen by tapping."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from ai.bots import Bot
from hive import Game, GameState, Piece
from protocol import CreateGame, JoinGame, Play, TimeControl, Update
from tests.client.support import Person, assert_drawn_in_place, layout_of, replay, wait_until
from tests.server.conftest import Running
from tests.server.support import decisive_game

pytestmark = pytest.mark.browser

RESULTS = {
    GameState.WHITE_WINS: "WhiteWins",
    GameState.BLACK_WINS: "BlackWins",
    GameState.DRAW: "Draw",
}


async def test_two_people_play_a_whole_game_by_clicking(srv: Running, browser: Browser) -> None:
    ada = await Person.open(browser, srv.http_url, "ada")
    bob = await Person.open(browser, srv.http_url, "bob")
    # Ada opens a game for anyone: Base, no clock, she plays White.
    await ada.choose("Base", "none", "white")
    await ada.page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    await expect(ada.page.get_by_test_id("status")).to_contain_text("Waiting for an opponent")
    # Bob sees it in his lobby's live list and joins.
    row = bob.page.locator(f'[data-testid=open-games] li[data-game="{game_id}"]')
    await expect(row).to_contain_text("ada")
    await row.get_by_test_id("join").click()
    assert await bob.game_id() == game_id
    await expect(ada.page.get_by_test_id("name-black")).to_have_text("bob")

    moves = decisive_game("Base")
    game = Game("Base")
    people = (ada, bob)
    for ply, text in enumerate(moves):
        mover = people[ply % 2]
        await mover.my_turn()
        await mover.play(game, text)
        game.play(text)
        for person in people:
            await person.wait_version(3 + ply)  # created 1, joined 2, then one per move
    assert game.state in RESULTS
    for person in people:
        banner = person.page.get_by_test_id("result")
        await expect(banner).to_have_attribute("data-result", RESULTS[game.state])
        await expect(banner).to_have_attribute("data-reason", "queen")
        assert await person.pieces() == layout_of(game)
        await assert_drawn_in_place(person)
        assert await person.moves() == [*moves]
    winner = ada if game.state == GameState.WHITE_WINS else bob
    await expect(winner.page.get_by_test_id("result")).to_contain_text("You won!")
    # the game's details link its record and, once, its review, which opens at the last move
    review = ada.page.locator(f'[data-testid=game] .info-row a[href="#/review/{game_id}"]')
    await expect(review).to_have_count(1)
    await expect(review).to_have_text("review")
    await review.click()
    shown = ada.page.locator("[data-testid=review][data-ply]")
    await expect(shown).to_have_attribute("data-ply", str(len(moves)))
    record = await srv.hub.store.get(game_id)
    assert record is not None and record.moves == [*moves]
    assert ada.errors == [] and bob.errors == []


async def test_a_person_plays_a_bot_to_a_result_while_someone_watches(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    eve = await Person.open(browser, srv.http_url, "eve")
    await eve.page.get_by_test_id("quick-bot").locator("select").select_option("beginner")
    await eve.page.get_by_test_id("play-bot").click()
    game_id = await eve.game_id()
    white = await eve.page.get_by_test_id("name-white").text_content()
    mine = "white" if white == "eve" else "black"

    # Cy finds the game in the lobby's games in progress and watches it.
    async with srv.connect("bob") as bob:  # an open game waits in the lobby too
        await bob.send(CreateGame(time=TimeControl("clock", 300, 5)))
        await bob.expect(Update)
        cy = await Person.open(browser, srv.http_url, "cy")
        live = cy.page.locator(f'[data-testid=live-games] li[data-game="{game_id}"]')
        await expect(live).to_contain_text("eve")
        await expect(cy.page.locator("[data-testid=open-games] li")).to_contain_text("bob")
        await cy.screenshot(artifacts / "lobby.png")
    await live.get_by_test_id("watch").click()
    assert await cy.game_id() == game_id
    await expect(cy.page.get_by_test_id("status")).to_contain_text("watching")

    # Eve's moves are chosen by a stronger bot and made by clicking.
    helper = Bot("medium", seed=7)
    for _ in range(200):
        await wait_until(
            eve.page,
            "() => document.querySelector('[data-testid=result]') || document.querySelector("
            "'[data-testid=status]').textContent.includes('Your turn')",
            timeout=60_000,
        )
        if await eve.page.get_by_test_id("result").count():
            break
        version = await eve.version()
        game = replay("Base+MLP", await eve.moves())
        assert ("white" if game.ply % 2 == 0 else "black") == mine
        choice = await asyncio.to_thread(helper.choose, game)
        if game.ply in (8, 9):
            await eve.screenshot(artifacts / "game-desktop.png")
        await eve.play(game, game.move_string(choice.move))
        await eve.wait_version(version + 1)
    banner = eve.page.get_by_test_id("result")
    final = replay("Base+MLP", await eve.moves())
    assert final.state in RESULTS
    # A Queen surrounded, or (rarely, the bots' moves being random) a third repetition.
    reasons = {"repetition", "both_queens"} if final.state == GameState.DRAW else {"queen"}
    assert await banner.get_attribute("data-reason") in reasons
    await expect(banner).to_have_attribute("data-result", RESULTS[final.state])

    # Cy saw the same end: the same banner, pieces and moves.
    await expect(cy.page.get_by_test_id("result")).to_have_attribute(
        "data-result", RESULTS[final.state]
    )
    assert await cy.moves() == await eve.moves()
    assert await cy.pieces() == await eve.pieces() == layout_of(final)
    for person in (eve, cy):  # the last update counted Cy as a spectator
        await expect(person.page.get_by_test_id("spectators")).to_have_attribute("data-count", "1")
    record = await srv.hub.store.get(game_id)
    assert record is not None and record.result == RESULTS[final.state]

    # the bot's last move, in the visualizer through the move list's link
    bot_plies = [p for p in range(1, final.ply + 1) if (p % 2 == 1) != (mine == "white")]
    link = eve.page.locator(f'[data-ply="{bot_plies[-1]}"] a.trace')
    async with eve.context.expect_page() as opened:
        await link.click()
    viz = await opened.value
    await expect(viz.locator('[data-figure="level"]')).to_have_text("beginner")  # its trace
    assert eve.errors == [] and cy.errors == []


async def test_a_game_on_a_phone_sized_screen_by_tapping(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    zoe = await Person.open(browser, srv.http_url, "zoe", phone=True)
    await zoe.choose("Base", None, "white")
    await zoe.page.get_by_test_id("create").tap()
    game_id = await zoe.game_id()
    async with srv.connect("bob") as bob:
        await bob.send(JoinGame(game_id))
        game = Game("Base")
        for text, reply in [("wS1", "bS1 wS1-"), ("wQ -wS1", "bQ bS1-"), ("wG1 /wQ", "bA1 bQ/")]:
            await zoe.my_turn()
            await zoe.play(game, text, tap=True)
            game.play(text)
            update = await bob.expect(Update)
            while len(update.state.moves) < game.ply:
                update = await bob.expect(Update)
            await bob.send(Play(game_id, update.version, reply))
            game.play(reply)
            await zoe.wait_version(update.version + 1)
        # slow taps (a finger held past the long press) on a single piece and on a destination
        # play like quick ones: only a stack has anything beneath it to show
        await zoe.my_turn()
        text = next(game.move_string(m) for m in game.legal_moves() if m.piece == Piece.wG1)
        await zoe.play(game, text, hold=True)
        game.play(text)
        update = await bob.expect(Update)
        while len(update.state.moves) < game.ply:
            update = await bob.expect(Update)
        reply = game.move_string(game.legal_moves()[0])
        await bob.send(Play(game_id, update.version, reply))
        game.play(reply)
        await zoe.wait_version(update.version + 1)
        await zoe.my_turn()
        assert await zoe.pieces() == layout_of(game)
        # the board fills the screen's width; the reserves and clocks fit
        board = await zoe.page.locator("[data-testid=game] .board-svg").bounding_box()
        assert board is not None and board["width"] >= 360
        await zoe.page.locator('[data-hand="wA1"]').tap()  # pick up an Ant: its moves light up
        await expect(zoe.page.locator("[data-target]").first).to_be_visible()
        await zoe.screenshot(artifacts / "game-phone.png")
    assert zoe.errors == []


async def test_the_create_form_seats_a_bot_of_the_level_chosen_and_the_reserves_count(
    srv: Running, browser: Browser
) -> None:
    ada = await Person.open(browser, srv.http_url, "ada")
    await ada.choose("Base+M", "10+10", "black")
    await ada.page.locator("[data-testid=create-form] select[name=opponent]").select_option(
        "bot:easy"
    )
    await ada.page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    await expect(ada.page.get_by_test_id("name-black")).to_have_text("ada")
    await expect(ada.page.get_by_test_id("name-white")).to_contain_text("bot")
    await ada.my_turn()  # the bot, White, has played its first piece
    record = await srv.hub.store.get(game_id)
    assert record is not None and record.white is not None
    assert (record.game_type, record.white.bot) == ("Base+M", "easy")
    assert (record.time.kind, record.time.base, record.time.increment) == ("clock", 600, 10)
    assert len(record.moves) == 1
    # the reserves count what is in each hand: all of Black's, all of White's but one
    counts = await ada.page.eval_on_selector_all(
        "[data-testid=game] .reserve-piece",
        "els => els.map(e => [e.dataset.bug, +e.querySelector('.count').textContent])",
    )
    full = {"Q": 1, "S": 2, "B": 2, "G": 3, "A": 3, "M": 1}
    game = replay("Base+M", list(record.moves))
    placed = Piece(game.moves[0].piece).name  # e.g. "wS1"
    expected = {f"b{bug}": n for bug, n in full.items()}
    expected |= {f"w{bug}": n for bug, n in full.items()}
    expected[placed[:2]] -= 1
    assert dict(counts) == {bug: n for bug, n in expected.items() if n}
    assert ada.errors == []

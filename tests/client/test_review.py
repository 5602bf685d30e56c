"""Review: a finished game stepped through in the browser, with its positions from the server
(``GET /games/ID/positions.json``, server/edge/review.py), and the positions route itself."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from playwright.async_api import Browser, expect

import server.requests.seating
from hive import Game
from protocol import Update
from protocol.client import Client
from tests.client.support import Person, Placed, layout_of
from tests.server.conftest import Running
from tests.server.support import decisive_game, http_get, play, start_game, updated


async def finished_game(srv: Running) -> tuple[str, tuple[str, ...]]:
    """A whole decisive game of Base played by two Python clients; its id and moves."""
    moves = decisive_game("Base")
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        game_id, white_seen, black_seen = await start_game(ada, bob)
        last: list[Update] = [white_seen, black_seen]
        clients: tuple[Client, Client] = (ada, bob)
        for ply, text in enumerate(moves):
            await play(clients[ply % 2], last[ply % 2], text)
            last = [await updated(client, game_id) for client in clients]
        assert last[0].state.status == "over"
    return game_id, moves


def positions_after(moves: tuple[str, ...], plies: int) -> set[Placed]:
    game = Game("Base")
    for text in moves[:plies]:
        game.play(text)
    return layout_of(game)


@pytest.mark.browser
async def test_a_finished_game_is_reviewed_move_by_move(srv: Running, browser: Browser) -> None:
    game_id, moves = await finished_game(srv)
    cy = await Person.open(browser, srv.http_url, "cy", f"/#/review/{game_id}")
    review = cy.page.get_by_test_id("review")
    last = len(moves)
    await expect(review).to_have_attribute("data-ply", str(last))
    scope = "[data-testid=review]"
    assert await cy.pieces(scope) == positions_after(moves, last)
    await expect(cy.page.get_by_test_id("review-title")).to_contain_text("ada")
    await expect(cy.page.get_by_test_id("review-title")).to_contain_text("wins")
    await cy.page.keyboard.press("ArrowLeft")
    await expect(review).to_have_attribute("data-ply", str(last - 1))
    assert await cy.pieces(scope) == positions_after(moves, last - 1)
    await cy.page.keyboard.press("Home")
    await expect(review).to_have_attribute("data-ply", "0")
    assert await cy.pieces(scope) == set()
    for ply in (1, 2, 3):
        await cy.page.get_by_test_id("next").click()
        await expect(review).to_have_attribute("data-ply", str(ply))
        assert await cy.pieces(scope) == positions_after(moves, ply)
    await cy.page.get_by_test_id("prev").click()
    await expect(review).to_have_attribute("data-ply", "2")
    # the address names the move on show: a reload (or the link, shared) opens there
    assert await cy.page.evaluate("location.hash") == f"#/review/{game_id}/2"
    await cy.page.reload()
    await expect(review).to_have_attribute("data-ply", "2")
    assert await cy.pieces(scope) == positions_after(moves, 2)
    await cy.page.keyboard.press("End")
    await expect(review).to_have_attribute("data-ply", str(last))
    assert cy.errors == []


async def test_positions_of_a_stored_game_follow_the_engine(srv: Running) -> None:
    game_id, moves = await finished_game(srv)
    status, kind, body = await http_get(f"{srv.http_url}/games/{game_id}/positions.json")
    assert status == 200 and kind == "application/json"
    doc = json.loads(body)
    assert doc["id"] == game_id and doc["white"] == "ada" and doc["black"] == "bob"
    assert doc["result"] in ("WhiteWins", "BlackWins") and doc["reason"] == "queen"
    assert len(doc["frames"]) == len(moves) + 1
    game = Game("Base")
    for ply, frame in enumerate(doc["frames"]):
        assert frame["ply"] == ply
        placed = {(p["piece"], p["q"], p["r"], p["height"]) for p in frame["pieces"]}
        assert placed == layout_of(game)
        assert frame["hand_white"] == [str(p) for p in game.hand(0)]
        if ply < len(moves):
            move = game.parse_move(moves[ply])
            source, target = game.layout().endpoints(move)
            following = doc["frames"][ply + 1]
            assert following["from"] == (None if source is None else list(source))
            assert following["to"] == (None if target is None else list(target))
            game.push(move)
    status, _, _ = await http_get(f"{srv.http_url}/games/zzzzzzzz/positions.json")
    assert status == 404


async def test_a_game_whose_id_is_all_digits_is_found(
    srv: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One game id in 43 is digits only (eight hexadecimal digits): its review, its
    GameString and its page are found like any other's (the review once asked for a letter)."""
    monkeypatch.setattr(server.requests.seating, "new_game_id", lambda: "20261126")
    game_id, moves = await finished_game(srv)
    assert game_id == "20261126"
    status, _, body = await http_get(f"{srv.http_url}/games/{game_id}/positions.json")
    assert status == 200
    assert len(json.loads(body)["frames"]) == len(moves) + 1
    status, _, body = await http_get(f"{srv.http_url}/games/{game_id}.txt")
    assert status == 200 and body.decode().count(";") >= len(moves)


async def test_positions_of_a_game_string_and_moves(srv: Running) -> None:
    query = urllib.parse.urlencode(
        {"game": "Base;InProgress;White[2];wS1;bS1 wS1-", "moves": "wQ -wS1;bQ bS1-", "from": "3"}
    )
    status, _, body = await http_get(f"{srv.http_url}/positions.json?{query}")
    assert status == 200
    doc = json.loads(body)
    assert [f["ply"] for f in doc["frames"]] == [3, 4]
    last = doc["frames"][-1]
    assert {(p["piece"], p["q"], p["r"]) for p in last["pieces"]} == {
        ("wS1", 0, 0),
        ("bS1", 1, 0),
        ("wQ", -1, 0),
        ("bQ", 2, 0),
    }
    assert last["piece"] == "bQ" and last["from"] is None and last["to"] == [2, 0]
    bad = urllib.parse.urlencode(
        {"game": "Base;InProgress;White[2];wS1;bS1 wS1-", "moves": "wQ bS1-"}
    )
    status, _, body = await http_get(f"{srv.http_url}/positions.json?{bad}")
    assert status == 400
    assert "touches its own colour" in json.loads(body)["error"]
    status, _, _ = await http_get(f"{srv.http_url}/positions.json?game=Nonsense")
    assert status == 400

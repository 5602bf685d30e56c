"""How fast a move shows: from the click on a destination to the frame that draws the move
played (the server's update drawn, not the pending ghost), measured in the page with
``performance.now()``. Issue 22 asks that it stay where it was (27-30 ms median); the test
prints the figure and fails only far above it (a shared machine is noisy)."""

from __future__ import annotations

import statistics

import pytest
from playwright.async_api import Browser

from hive import Game, Piece
from tests.client.support import duel, reply
from tests.server.conftest import Running
from tests.server.support import decisive_game

pytestmark = pytest.mark.browser

MEASURE = """([piece, q, r]) => { window.__shown = new Promise((resolve) => {
  let clicked = null;
  const layer = document.querySelector('[data-testid=game] .layer-pieces');
  const done = () => layer.querySelector(
    `.piece[data-piece="${piece}"][data-q="${q}"][data-r="${r}"]:not(.pending-from)`);
  let armed = false; // the board captures the pointer: the press names the target, not the lift
  window.addEventListener('pointerdown', (e) => {
    armed = Boolean(e.target.closest('[data-target]'));
  }, { capture: true });
  window.addEventListener('pointerup', () => {
    if (armed && clicked === null) clicked = performance.now();
  }, { capture: true });
  const observer = new MutationObserver(() => {
    if (clicked === null || !done()) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - clicked));
  });
  observer.observe(layer, { childList: true, subtree: true });
}); }"""


async def test_a_click_on_a_destination_shows_the_move_within_tens_of_ms(
    srv: Running, browser: Browser
) -> None:
    moves = decisive_game("Base")[:16]
    game = Game("Base")
    times: list[float] = []
    async with duel(srv, browser) as (ada, bob, game_id):
        for ply in range(0, len(moves), 2):
            mine, theirs = moves[ply], moves[ply + 1]
            await ada.my_turn()
            move = game.parse_move(mine)
            _, target = game.layout().endpoints(move)
            assert target is not None
            name = Piece(move.piece).name
            await ada.page.evaluate(MEASURE, [name, target[0], target[1]])
            await ada.play(game, mine)
            times.append(await ada.page.evaluate("window.__shown"))
            game.play(mine)
            await reply(bob, game_id, game, theirs)
            game.play(theirs)
            await ada.wait_version(2 + game.ply)
    median = statistics.median(times)
    print(f"click to move shown: median {median:.1f} ms over {len(times)} moves: {times}")
    assert median < 150

"""Sounds (issue 22): made with the Web Audio API, heard here as the oscillators the page
starts (an init script notes each one's frequency): the game's start, each move, its end; a
mute switch the browser remembers; and "your turn" marked in the tab's title (and, when the
player allowed it, a browser notification) when it became one's turn while the tab was
hidden. Low time is a unit test (state.js lowTimeTurn)."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Browser, Page, expect

from hive import Game
from protocol import JoinGame, Resign
from tests.client.support import Person, duel, reply, wait_until
from tests.server.conftest import Running

pytestmark = pytest.mark.browser

LISTEN = """
window.__tones = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__tones.push(Math.round(this.frequency.value));
  return start.apply(this, args);
};
"""
MOVE, START, END = [540], [523, 784], [784, 587, 392]


async def heard(page: Page) -> list[int]:
    tones: list[int] = await page.evaluate("window.__tones")
    return tones


async def hear(page: Page, tones: list[int]) -> None:
    """Wait until the page has started exactly ``tones`` (since it was loaded)."""
    await wait_until(
        page,
        "t => JSON.stringify(window.__tones) === t",
        json.dumps(tones, separators=(",", ":")),
        10_000,
    )


async def hide(page: Page, hidden: bool) -> None:
    await page.evaluate(
        """(hidden) => {
          Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
          Object.defineProperty(document, 'visibilityState',
            { value: hidden ? 'hidden' : 'visible', configurable: true });
          document.dispatchEvent(new Event('visibilitychange'));
        }""",
        hidden,
    )


async def test_sounds_a_mute_switch_and_the_title_of_a_hidden_tab(
    srv: Running, browser: Browser
) -> None:
    ada = await Person.open(browser, srv.http_url, "ada", online=False)
    await ada.context.add_init_script(LISTEN)
    page = ada.page
    await page.reload()
    await ada.online()
    sound = page.get_by_test_id("sound")
    await expect(sound).to_have_attribute("aria-pressed", "false")
    await ada.choose("Base", "none", "white")
    await page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    game = Game("Base")
    async with srv.connect("bob") as bob:
        await bob.send(JoinGame(game_id))
        await ada.wait_version(2)
        await hear(page, START)
        await ada.play(game, "wS1")
        game.play("wS1")
        await ada.wait_version(3)
        await hear(page, START + MOVE)
        # muted, remembered over a reload: nothing more is heard
        await sound.click()
        await expect(sound).to_have_attribute("aria-pressed", "true")
        await page.reload()
        await ada.wait_version(3)
        await expect(sound).to_have_attribute("aria-pressed", "true")
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        assert await heard(page) == []
        await sound.click()
        await expect(sound).to_have_attribute("aria-pressed", "false")
        # the tab hidden while Bob moves: its title says it is her turn, until she looks
        await ada.play(game, "wQ -wS1")
        game.play("wQ -wS1")
        await ada.wait_version(5)
        await hide(page, True)
        await reply(bob, game_id, game, "bQ bS1-")
        game.play("bQ bS1-")
        await ada.wait_version(6)
        await expect(page).to_have_title("● Your turn · Hive Arena")
        await hide(page, False)
        await expect(page).to_have_title("Your turn · Hive Arena")
        await hear(page, MOVE + MOVE)
        # the end
        await bob.send(Resign(game_id))
        await ada.wait_version(7)
        await expect(page.get_by_test_id("result")).to_be_visible()
        await hear(page, MOVE + MOVE + END)
    assert ada.errors == []
    await ada.close()


NOTIFICATIONS = """
window.__notes = [];
class Recorded {
  static permission = 'default';
  static requestPermission() { Recorded.permission = 'granted'; return Promise.resolve('granted'); }
  constructor(title, options) { window.__notes.push([title, options.body]); }
  close() {}
}
window.Notification = Recorded;
"""


async def test_a_notification_of_ones_turn_when_allowed_and_hidden(
    srv: Running, browser: Browser
) -> None:
    """The browser's notifications, recorded by an init script in place of the real ones
    (whose permission prompt a headless browser cannot answer)."""
    game = Game("Base")
    async with duel(srv, browser) as (ada, bob, game_id):
        page = ada.page
        await ada.context.add_init_script(NOTIFICATIONS)
        await page.reload()
        await ada.wait_version(2)
        await page.get_by_test_id("notify").click()
        await expect(page.get_by_test_id("notify")).to_have_count(0)  # asked once, allowed
        await ada.play(game, "wS1")
        game.play("wS1")
        await ada.wait_version(3)
        await hide(page, True)
        await reply(bob, game_id, game, "bS1 wS1-")
        game.play("bS1 wS1-")
        await ada.wait_version(4)
        notes = await page.evaluate("window.__notes")
        assert notes == [["Your turn · Hive Arena", "bob played bS1 wS1-"]]
    assert ada.errors == []

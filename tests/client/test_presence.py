"""Who is at the game, in the browser without a move: a spectator counted as they come and go,
and an opponent who left shown with the time from which the win may be claimed (the server's
heartbeat pushes it; the tests call its ``share_view`` rather than wait for it)."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.client.support import duel
from tests.server.conftest import Running
from tests.server.support import watch
from tests.support import until

pytestmark = pytest.mark.browser


async def test_a_spectator_is_counted_on_the_page_as_they_come_and_go(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, _, game_id):
        count = ada.page.get_by_test_id("spectators")
        await expect(count).to_have_attribute("data-count", "0")
        async with srv.connect("cy") as cy:
            await watch(cy, game_id)
            await srv.hub.presence.share_view()
            await expect(count).to_have_attribute("data-count", "1")
        watchers = srv.hub.cache.watchers
        await until(lambda: len(watchers[game_id]) == 2, "cy still watches")
        await srv.hub.presence.share_view()
        await expect(count).to_have_attribute("data-count", "0")


async def test_an_opponent_who_left_is_shown_with_when_the_win_may_be_claimed(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, _):
        await expect(ada.page.get_by_test_id("claim")).to_have_count(0)
        presence = srv.hub.presence
        await bob.ws.close()
        await until(lambda: bob.player in presence.came_or_went, "bob's leaving was not noted")
        await presence.share_view()
        await expect(ada.page.get_by_test_id("opponent-left")).to_contain_text("you may claim from")
        await expect(ada.page.get_by_test_id("claim")).to_be_visible()

"""What the page takes from the server's welcome: the chat input's length, the create form's
game types, and the bot levels of the quick game and of the create form."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from server.requests import signin
from tests.client.support import Person
from tests.server.conftest import StartServer

pytestmark = pytest.mark.browser


async def test_the_chat_length_game_types_and_levels_are_the_servers(
    start_server: StartServer, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server with a chat length of 120 that offers fewer game types and bot levels than the
    engine has, in an order of its own: the page shows exactly what its welcome says."""
    monkeypatch.setattr(signin, "GAME_TYPES", ("Base+P", "Base+MLP", "Base"))
    async with start_server(chat_length=120) as srv:
        monkeypatch.setattr(srv.hub.pool, "levels", lambda: ["hard", "beginner"])
        async with srv.connect("cy") as cy:
            offered = cy.welcome
        assert offered.limits.chat_length == 120
        assert (offered.game_types, offered.levels) == (
            ["Base+P", "Base+MLP", "Base"],
            ["hard", "beginner"],
        )
        ada = await Person.open(browser, srv.http_url, "ada")
        page = ada.page
        form = page.get_by_test_id("create-form")
        game_types = form.locator("select[name=game_type]")
        await expect(game_types.locator("option")).to_have_text(offered.game_types)
        await expect(game_types).to_have_value("Base+MLP")  # the first choice, when offered
        quick = page.get_by_test_id("quick-bot").locator("select[name=level] option")
        await expect(quick).to_have_text(offered.levels)
        opponents = form.locator("select[name=opponent] option")
        await expect(opponents).to_have_text(
            ["Anyone (open game)"]
            + [f"Bot: {level}" for level in offered.levels]
            + ["Any bot from outside (a bot account)"]
        )

        await ada.choose("Base+P", None, "white")
        await page.get_by_test_id("create").click()
        game_id = await ada.game_id()
        record = await srv.hub.store.get(game_id)
        assert record is not None and record.game_type == "Base+P"
        chat = page.get_by_test_id("chat-input")
        await expect(chat).to_have_attribute("maxlength", "120")
        await chat.press_sequentially("x" * 125)  # typed: the input stops at the server's limit
        await expect(chat).to_have_value("x" * 120)
        await chat.press("Enter")
        await expect(page.get_by_test_id("chat")).to_contain_text("x" * 120)
        assert ada.errors == []
        await ada.close()

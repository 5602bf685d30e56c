"""The rules page (#/rules, issue 22): each bug's example is drawn with the board's own
renderer, and what it shows is what the rules engine says: the position its moves reach and
every legal destination of its piece there, no more and no fewer."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from hive import Game, Piece
from tests.client.support import Person, layout_of
from tests.server.conftest import Running

pytestmark = pytest.mark.browser

BUGS = "QSBGAMLP"


async def test_every_bug_is_shown_moving_as_the_engine_says(
    srv: Running, browser: Browser, artifacts: Path
) -> None:
    eve = await Person.open(browser, srv.http_url, "eve")
    await eve.page.get_by_test_id("rules-link").click()
    page = eve.page
    await expect(page).to_have_title("Rules · Hive Arena")
    cards = page.locator("[data-testid=rules] .rules-bug")
    await expect(cards).to_have_count(len(BUGS))
    for bug in BUGS:
        card = page.locator(f'.rules-bug[data-bug="{bug}"]')
        moves = (await card.get_attribute("data-moves") or "").split(";")
        game = Game("Base+MLP")
        for text in moves:
            game.play(text)
        scope = f'.rules-bug[data-bug="{bug}"]'
        assert await eve.pieces(scope) == layout_of(game), bug
        piece = await card.locator(".rules-board").get_attribute("data-piece")
        expected = set()
        for move in game.legal_moves():
            if Piece(move.piece).name == piece:
                _, target = game.layout().endpoints(move)
                assert target is not None
                expected.add((game.move_string(move), *target))
        drawn = await card.locator("[data-target]").evaluate_all(
            "els => els.map(e => [e.dataset.target, +e.dataset.q, +e.dataset.r])"
        )
        assert {(m, q, r) for m, q, r in drawn} == expected, bug
        assert expected, bug  # every example shows its bug moving
    await page.screenshot(path=str(artifacts / "issue22-rules.png"), full_page=True)
    assert eve.errors == []
    await eve.close()

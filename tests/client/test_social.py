"""Players who find each other, in Chromium (issue 38): a challenge by name from the online
list declined (the challenger told) and one from a profile accepted (both land in the game),
with a browser notification when the tab is hidden; a followed player's game in the lobby; a
blocked player can neither challenge nor chat; the online list says who is on and who plays."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from protocol import AnswerChallenge, Challenge, ChallengeEnd, ChallengeOffer
from protocol.client import Client
from tests.client.support import Person
from tests.server.conftest import Running
from tests.server.support import signed_up

pytestmark = pytest.mark.browser

NOTIFICATIONS = """
window.__notes = [];
window.__hidden = false;
Object.defineProperty(Document.prototype, "hidden", { get: () => window.__hidden });
const Shown = window.Notification;
window.Notification = class extends Shown {
  constructor(title, options) {
    window.__notes.push(title);
    super(title, options);
  }
};
"""
"""Run in a page before its own: the tab says it is hidden while ``window.__hidden``, and every
notification shown is noted in ``window.__notes``."""


async def open_as(browser: Browser, srv: Running, client: Client, path: str = "/") -> Person:
    """A page signed in to ``client``'s account, at ``path``, notifications allowed."""
    person = await Person.open(
        browser,
        base=srv.http_url,
        nickname=client.welcome.nickname,
        path=path,
        token=client.welcome.token,
        script=NOTIFICATIONS,
    )
    await person.context.grant_permissions(["notifications"], origin=srv.http_url)
    return person


async def challenge_from(page: Page, button: str, name: str) -> None:
    """Open the challenge form with ``button`` (on the row of ``name`` in the online list, or
    the profile's) and send it: Base+MLP, no clock, casual, White."""
    if button == "challenge-online":
        row = page.locator(f"[data-testid=online-player][data-name={name}]")
        await row.get_by_test_id("challenge-online").click()
    else:
        await page.get_by_test_id(button).click()
    form = page.get_by_test_id("challenge-form")
    await form.locator("select[name=time]").select_option("none")
    await form.locator("input[name=color][value=white]").check()
    await form.get_by_test_id("send-challenge").click()


async def test_a_challenge_by_name_declined_then_one_accepted_lands_both_in_the_game(
    srv: Running, browser: Browser
) -> None:
    async with (
        signed_up(srv.ws_url, "ann") as ann_client,
        signed_up(srv.ws_url, "bob") as bob_client,
    ):
        ann = await open_as(browser, srv, ann_client)
        bob = await open_as(browser, srv, bob_client)
        try:
            online = ann.page.locator("[data-testid=online-player][data-name=bob]")
            await expect(online).to_have_count(1, timeout=15_000)
            await bob.page.evaluate("window.__hidden = true")
            await challenge_from(ann.page, "challenge-online", "bob")
            await expect(ann.page.get_by_test_id("challenge-outgoing")).to_contain_text(
                "Waiting for bob"
            )
            incoming = bob.page.get_by_test_id("challenge-incoming")
            await expect(incoming).to_contain_text("ann challenges you")
            await expect(incoming).to_contain_text("you play black")
            notes = await bob.page.evaluate("window.__notes")
            assert notes == ["ann challenges you"]
            await bob.page.evaluate("window.__hidden = false")
            await incoming.get_by_test_id("decline-challenge").click()
            await expect(ann.page.get_by_test_id("challenge-notice")).to_have_text(
                "bob declined your challenge. ×"
            )
            await expect(ann.page.get_by_test_id("challenge-outgoing")).to_have_count(0)
            await expect(incoming).to_have_count(0)

            await ann.page.goto(f"{srv.http_url}/#/@/bob")
            await challenge_from(ann.page, "challenge-player", "bob")
            await incoming.get_by_test_id("accept-challenge").click()
            game_id = await bob.game_id()
            assert await ann.game_id() == game_id
            for person in (ann, bob):
                seats = person.page.get_by_test_id("game")
                await expect(seats).to_contain_text("ann")
                await expect(seats).to_contain_text("bob")
            assert ann.errors == [] and bob.errors == []
        finally:
            await ann.close()
            await bob.close()


async def test_a_followed_player_s_game_is_shown_in_the_lobby(
    srv: Running, browser: Browser
) -> None:
    async with (
        signed_up(srv.ws_url, "ann") as ann,
        signed_up(srv.ws_url, "bob") as bob,
        signed_up(srv.ws_url, "cy") as cy_client,
    ):
        cy = await open_as(browser, srv, cy_client, "/#/@/ann")
        try:
            follow = cy.page.get_by_test_id("follow")
            await expect(follow).to_have_text("Follow")
            await follow.click()
            await expect(follow).to_have_text("Unfollow")
            await cy.page.goto(f"{srv.http_url}/#/")
            followed = cy.page.get_by_test_id("followed-games")
            await expect(cy.page.get_by_test_id("online")).to_contain_text("None now.")
            await ann.send(Challenge("bob", color="white"))
            offer = await bob.expect(ChallengeOffer)
            await bob.send(AnswerChallenge(offer.id, "accept"))
            game = (await ann.expect(ChallengeEnd)).game
            listed = followed.locator(f"li[data-game='{game}']")
            await expect(listed).to_contain_text("ann vs bob")
            await listed.get_by_role("link").click()
            assert await cy.game_id() == game
        finally:
            await cy.close()


async def test_a_blocked_player_cannot_challenge_or_chat(srv: Running, browser: Browser) -> None:
    async with (
        signed_up(srv.ws_url, "ann") as ann_client,
        signed_up(srv.ws_url, "bob") as bob_client,
    ):
        await ann_client.send(Challenge("bob"))
        offer = await bob_client.expect(ChallengeOffer)
        await bob_client.send(AnswerChallenge(offer.id, "accept"))
        game = (await ann_client.expect(ChallengeEnd)).game
        ann = await open_as(browser, srv, ann_client, f"/#/game/{game}")
        bob = await open_as(browser, srv, bob_client, "/#/@/ann")
        try:
            chat = ann.page.get_by_test_id("chat-input")
            await chat.fill("good luck")
            await chat.press("Enter")
            await expect(ann.page.get_by_test_id("chat")).to_contain_text("good luck")
            block = bob.page.get_by_test_id("block")
            await block.click()
            await expect(block).to_have_text("Unblock")
            await chat.fill("you cannot block me")
            await chat.press("Enter")
            await expect(ann.page.get_by_test_id("notice")).to_contain_text(
                "a player of this game has blocked you"
            )
            await expect(ann.page.get_by_test_id("chat")).not_to_contain_text("block me")

            await ann.page.goto(f"{srv.http_url}/#/@/bob")
            await challenge_from(ann.page, "challenge-player", "bob")
            await expect(ann.page.get_by_test_id("notice")).to_contain_text(
                "bob does not take challenges from you"
            )
            await expect(bob.page.get_by_test_id("challenge-incoming")).to_have_count(0)
            await expect(ann.page.get_by_test_id("challenge-outgoing")).to_have_count(0)
        finally:
            await ann.close()
            await bob.close()


async def test_the_online_list_shows_who_is_on_and_who_plays(
    srv: Running, browser: Browser
) -> None:
    async with signed_up(srv.ws_url, "cy") as cy_client:
        cy = await open_as(browser, srv, cy_client)
        try:
            rows = cy.page.get_by_test_id("online-player")
            await expect(rows).to_have_count(1)
            async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
                await cy.page.get_by_test_id("refresh-online").click()
                await expect(rows).to_have_count(3)
                names = [await row.get_attribute("data-name") for row in await rows.all()]
                assert names == ["ann", "bob", "cy"]
                await expect(cy.page.get_by_test_id("playing")).to_have_count(0)
                await ann.send(Challenge("bob"))
                offer = await bob.expect(ChallengeOffer)
                await bob.send(AnswerChallenge(offer.id, "accept"))
                await ann.expect(ChallengeEnd)
                for name, playing in (("ann", "true"), ("bob", "true"), ("cy", "false")):
                    row = cy.page.locator(f"[data-testid=online-player][data-name={name}]")
                    await expect(row).to_have_attribute("data-playing", playing)
                await expect(cy.page.get_by_test_id("playing")).to_have_count(2)
            await cy.page.get_by_test_id("refresh-online").click()
            await expect(rows).to_have_count(1)
        finally:
            await cy.close()


async def test_a_name_from_a_client_is_shown_as_text(srv: Running, browser: Browser) -> None:
    async with signed_up(srv.ws_url, "ann") as ann_client:
        ann = await open_as(browser, srv, ann_client, "/#/@/bob")
        try:
            await ann.page.get_by_test_id("challenge-player").click()
            form = ann.page.get_by_test_id("challenge-form")
            await expect(form.get_by_role("heading")).to_have_text("Challenge bob")
            # the name as a hostile page would send it: the refusal quotes it, as text
            evil = "<img src=x data-evil=1>"
            await form.locator("input[name=name]").evaluate("(el, v) => { el.value = v; }", evil)
            await form.get_by_test_id("send-challenge").click()
            await expect(ann.page.get_by_test_id("notice")).to_contain_text(
                f"no account is named {evil!r}"
            )
            await expect(ann.page.locator("[data-evil]")).to_have_count(0)
            assert ann.errors == []
        finally:
            await ann.close()

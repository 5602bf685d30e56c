"""Hostile data in the browser: every field of a search trace, a chat line and a link's
``?src=`` are shown as text and never run; the site's Content-Security-Policy stops script
put in a page all the same; a profile's names of markup are text; no module but dom.js writes
markup; and logging out ends the session in every tab."""

from __future__ import annotations

import asyncio
import copy
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from protocol import Account, Chat, Seat, SignUp
from server.game.clock import now_ms
from tests.client.support import Person, write_trace
from tests.server.archived import archive, finished
from tests.server.conftest import Running
from tests.server.support import scrape, start_game, updated

pytestmark = pytest.mark.browser

CLIENT_JS = Path(__file__).resolve().parents[2] / "client" / "js"
PAYLOAD = (
    '"><img src=x onerror="window.__pwned=1"><image href=x onerror="window.__pwned=2"></image>'
)
"""Markup that runs script wherever it is taken as markup: in text, and after an attribute."""
WATCH_SCRIPT = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(e.violatedDirective + " " + e.sample));
"""
"""Counts what the Content-Security-Policy blocked: an injected handler it had to stop."""


def hostile(trace: dict[str, Any]) -> dict[str, Any]:
    """``trace`` with the payload in every field a page shows (the shape kept: a node's
    ``kind`` and ``children`` say how to draw it)."""
    doc = copy.deepcopy(trace)
    doc["position"] = f"Base;InProgress;White[1];{PAYLOAD}"
    doc["run"] = {key: PAYLOAD for key in doc["run"]} | {"source": PAYLOAD}

    def spoil(node: dict[str, Any]) -> None:
        for key in node:
            if key not in ("kind", "children"):
                node[key] = PAYLOAD
        if node["kind"] in ("root", "move"):
            node["terms"] = {PAYLOAD: PAYLOAD, "mobility": PAYLOAD}
            node["terminal"] = PAYLOAD
            node["table"] = PAYLOAD
            node["hidden"] = PAYLOAD
        for child in node.get("children", []):
            spoil(child)

    spoil(doc["root"])
    return doc


def first_group(node: dict[str, Any], node_id: str) -> str:
    """The id of the first group node below ``node`` (depth first)."""
    for index, child in enumerate(node.get("children", [])):
        child_id = f"{node_id}.{index}"
        if child["kind"] in ("cut", "pruned"):
            return child_id
        found = first_group(child, child_id)
        if found:
            return found
    return ""


async def assert_inert(page: Page) -> None:
    """Nothing of the payload became markup, and nothing was blocked for trying to run."""
    assert await page.evaluate("window.__pwned") is None
    assert await page.evaluate("window.__violations") == []
    injected = await page.locator("main img, main image, main script").count()
    assert injected == 0


async def test_every_field_of_a_trace_is_shown_as_text(
    srv: Running, browser: Browser, tmp_path: Path
) -> None:
    trace = hostile(await write_trace(tmp_path / "trace.json"))
    viz = await Person.open(browser, srv.http_url, "viz", "/visualizer", online=False)
    page = viz.page
    await page.add_init_script(WATCH_SCRIPT)
    await page.reload()
    await page.get_by_text("…or paste its JSON").click()
    await page.locator("form[data-form=paste] textarea").fill(json.dumps(trace))
    await page.get_by_role("button", name="Show").click()
    root = page.locator('.node[data-node="0"]')
    await expect(root).to_contain_text("<img src=x")  # the payload, as text
    await expect(page.get_by_test_id("run")).to_contain_text("<image href=x")
    for node in ("0", "0.0", "0.1"):  # the root and its first children
        await page.locator(f'.node[data-node="{node}"] rect').hover(force=True)
        await expect(page.get_by_test_id("tip")).to_contain_text("<img")
    group = first_group(trace["root"], "0")  # a cut or pruned group, and its tip
    for depth in range(1, group.count(".")):
        await page.locator(
            f'.node[data-node="{".".join(group.split(".")[: depth + 1])}"] rect'
        ).click(force=True)
    await page.locator(f'.node[data-node="{group}"] rect').hover(force=True)
    await expect(page.get_by_test_id("tip")).to_contain_text("moves")
    await expect(page.get_by_test_id("node-path")).to_contain_text("No position")
    await assert_inert(page)
    assert viz.errors == []

    # the same trace kept for a bot's move of a game, opened from the game's link
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        game_id, _, _ = await start_game(ada, bob)
    await srv.hub.store.put_trace(game_id, 1, gzip.compress(json.dumps(trace).encode()), 60)
    await page.goto(f"{srv.http_url}/visualizer?game={game_id}&ply=1")
    await expect(page.locator('.node[data-node="0"]')).to_contain_text("<img src=x")
    await page.locator('.node[data-node="0"] rect').hover(force=True)
    await expect(page.get_by_test_id("tip")).to_contain_text("<img")
    await assert_inert(page)
    await viz.close()


@pytest.mark.parametrize(
    "src",
    [
        'data:application/json,{"format":"hive-arena-search-trace","version":1}',
        "https://evil.example/trace.json",
        "//evil.example/games/0a1b2c3d/trace/1.json",
        "/games/0a1b2c3d/trace/1.json?x=/../..",
        "/positions.json",
    ],
)
async def test_a_link_loads_only_this_sites_own_traces(
    srv: Running, browser: Browser, src: str
) -> None:
    viz = await Person.open(browser, srv.http_url, "viz", "/visualizer", online=False)
    page = viz.page
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    await page.goto(f"{srv.http_url}/visualizer?src={src}")
    await expect(page.locator("[data-slot=error]")).to_contain_text("Not a trace of this site")
    await expect(page.locator('.node[data-node="0"]')).to_have_count(0)
    assert [url for url in requests if not url.startswith(srv.http_url)] == []
    await viz.close()


async def test_the_policy_stops_script_put_in_a_page(srv: Running, browser: Browser) -> None:
    """Should markup with a handler ever reach a page, the Content-Security-Policy the
    server sends does not let it run."""
    ada = await Person.open(browser, srv.http_url, "ada")
    page = ada.page
    await page.evaluate(WATCH_SCRIPT)
    blocked = page.evaluate(
        """() => new Promise((resolve) => {
          document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective));
          const div = document.createElement("div");
          div.innerHTML = '<img src="/favicon.svg?x" onload="window.__pwned=1">';
          document.body.append(div);
        })"""
    )
    assert (await blocked).startswith("script-src")
    assert await page.evaluate("window.__pwned") is None
    await ada.close()


async def test_a_chat_line_of_markup_is_shown_as_text(srv: Running, browser: Browser) -> None:
    async with srv.connect("bob") as bob, srv.connect("cy") as cy:
        ada = await Person.open(browser, srv.http_url, "ada")
        await ada.page.add_init_script(WATCH_SCRIPT)
        game_id, _, _ = await start_game(cy, bob)
        await cy.send(Chat(game_id, PAYLOAD))
        await updated(cy, game_id)
        await ada.page.goto(f"{srv.http_url}/#/game/{game_id}")
        await ada.page.reload()  # a page of its own, watched from its start
        chat = ada.page.get_by_test_id("chat")
        await expect(chat).to_contain_text('"><img src=x onerror=')
        await assert_inert(ada.page)
        await ada.close()


async def test_a_profile_shows_names_of_markup_as_text(srv: Running, browser: Browser) -> None:
    """A profile's games name their opponents (a guest's nickname, a bot's level) as the
    archive has them: text, in the list and in the record against the bots (issue 20)."""
    async with srv.connect("ann") as ann:
        await ann.send(SignUp("Ann", "correct horse battery"))
        await ann.expect(Account)
    a = Seat(ann.player, "Ann", account="account")
    guest = Seat("g" * 16, PAYLOAD)
    level = Seat("bot:x", PAYLOAD, PAYLOAD, account="bot")
    t0 = now_ms() - 60_000
    await archive(
        srv,
        finished("c0000001", a, guest, "WhiteWins", "resign", t0),
        finished("c0000002", level, a, "WhiteWins", "queen", t0 + 1),
    )
    gus = await Person.open(browser, srv.http_url, "gus", "/#/@/Ann", online=False)
    await gus.page.add_init_script(WATCH_SCRIPT)
    await gus.page.reload()
    games = gus.page.get_by_test_id("profile-games")
    await expect(games.locator("li")).to_have_count(2)
    await expect(games).to_contain_text('"><img src=x onerror=')
    await expect(gus.page.get_by_test_id("levels")).to_contain_text("<image href=x")
    await assert_inert(gus.page)
    assert gus.errors == []
    await gus.close()


def test_no_module_but_dom_js_writes_markup() -> None:
    """Markup goes through dom.js's ``html`` and ``render``, which escape every value."""
    writes = re.compile(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write")
    for path in sorted(CLIENT_JS.glob("*.js")):
        if path.name != "dom.js":
            assert not writes.search(path.read_text()), f"{path.name} writes markup itself"


async def test_logging_out_ends_the_session_in_every_tab(srv: Running, browser: Browser) -> None:
    ada = await Person.open(browser, srv.http_url, "ada")
    other_tab = await ada.context.new_page()  # the same browser: the same session
    await other_tab.goto(srv.http_url + "/")
    await expect(other_tab.get_by_test_id("connection")).to_have_attribute("data-status", "online")
    token = await ada.page.evaluate("localStorage.getItem('hive.token')")
    assert token
    await ada.page.get_by_test_id("account-menu").click()  # the header's menu
    await ada.page.get_by_test_id("logout").click()
    for page in (ada.page, other_tab):
        await expect(page.get_by_test_id("connection")).to_have_attribute(
            "data-status", "signed-out"
        )
    await expect(ada.page.get_by_test_id("signed-out")).to_be_visible()
    assert await ada.page.evaluate("localStorage.getItem('hive.token')") is None
    assert await srv.hub.store.player_of(token) is None
    # a nickname starts a new guest
    await ada.page.get_by_test_id("nickname").fill("ada again")
    await ada.page.get_by_role("button", name="Save").click()
    await expect(ada.page.get_by_test_id("me")).to_have_text("ada again")
    assert await ada.page.evaluate("localStorage.getItem('hive.token')") not in (None, token)
    assert ada.errors == []
    await ada.close()


OPEN_SOCKET = """
(url) => new Promise((resolve) => {
  const ws = new WebSocket(url);
  ws.onopen = () => { ws.close(); resolve("open"); };
  ws.onerror = () => resolve("refused");
})
"""
"""Open a websocket to ``url`` from the page: ``open``, or ``refused`` (the handshake failed)."""


async def serve_elsewhere(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Another site: a page of nothing, whatever is asked."""
    await reader.readuntil(b"\r\n\r\n")
    body = b"<!doctype html><title>elsewhere</title>"
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n"
    writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
    await writer.drain()
    writer.close()


async def test_a_page_of_another_site_cannot_open_the_websocket(
    srv: Running, browser: Browser
) -> None:
    """Chromium sends the page's origin with the handshake: the site's own page opens the
    websocket, a page of another site (a server of its own on another port: another origin)
    is refused with 403."""
    elsewhere = await asyncio.start_server(serve_elsewhere, "127.0.0.1", 0)
    other = elsewhere.sockets[0].getsockname()[1]
    page = await browser.new_page()
    try:
        await page.goto(f"http://127.0.0.1:{other}/")
        assert await page.evaluate(OPEN_SOCKET, srv.ws_url) == "refused"
        await page.goto(srv.http_url + "/")
        assert await page.evaluate(OPEN_SOCKET, srv.ws_url) == "open"
    finally:
        await page.close()
        elsewhere.close()
        await elsewhere.wait_closed()
    assert (await scrape(srv))["hive_refused_total{code=origin}"] == 1

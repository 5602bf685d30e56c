"""Helpers for the browser tests: a person at a page of the web client, and the engine's view
of the same game to say where a move goes.

Moves are made as a person makes them: click the piece (in a reserve or on the board), then
click its destination hex. The engine (``hive``) says which piece a MoveString moves and to
which hex, in the same plain axial coordinates the server sends (``Game.layout``), so the test
finds the piece and the destination by ``(piece, q, r)``, never by comparing MoveStrings.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from playwright.async_api import (
    Browser,
    BrowserContext,
    Locator,
    Page,
    ViewportSize,
    WebSocketRoute,
    expect,
)

from hive import PASS, Game, Piece, notation
from protocol import CreateGame, JoinGame, Message, Play, TimeControl, Update, decode, decode_server
from protocol.client import Client
from tests.server.conftest import Running
from tests.support import until

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts"
DESKTOP = ViewportSize(width=1280, height=800)
PHONE = ViewportSize(width=390, height=844)
HOLD_MS = 700
SOCKET = re.compile(r"/ws(\?game=[0-9a-z]+)?$")
"""The page's websocket: the lobby's, or a game page's (which names its game)."""
"""A slow tap: longer than the client's long press (450 ms), which shows a stack."""

POSITION = "Base+MLP;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wG1 /wQ;bA1 bQ/"
"""A mid-game position for the bots' search traces (the visualizer's tests)."""

Placed = tuple[str, int, int, int]
"""A piece on the board as the page shows it: ``(piece, q, r, height)``."""


async def wait_until(page: Page, condition: str, arg: Any = None, timeout: float = 30_000) -> Any:
    """Wait until ``condition`` (JavaScript: a function of ``arg``) is true in ``page``; its
    value. ``until`` asks the page (``evaluate``) again and again: ``page.wait_for_function``
    would evaluate a string in the page, which the site's Content-Security-Policy forbids.
    ``timeout`` is in milliseconds, as Playwright's are."""
    return await until(
        lambda: page.evaluate(condition, arg),
        f"in the page: {condition}",
        timeout=timeout / 1000,
    )


# An init script (``Person.open``'s ``script``) that notes the page's websockets as it opens them
# in ``window.__sockets``: the page keeps its own out of reach (no global).
RECORD_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
    }
  };
})();"""


class Person:
    """One browser context (its own local storage, so its own player) with one page."""

    def __init__(self, context: BrowserContext, page: Page, base: str, name: str = "") -> None:
        self.context = context
        self.page = page
        self.base = base
        self.name = name
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    @classmethod
    async def open(
        cls,
        browser: Browser,
        base: str,
        nickname: str,
        path: str = "/",
        *,
        phone: bool = False,
        link: Link | None = None,
        online: bool = True,
        fake_clock: bool = False,
        token: str | None = None,
        script: str | None = None,
    ) -> Person:
        """A new person called ``nickname`` at ``base + path``, once the client is online;
        with ``link``, the page's websocket goes through it; with ``fake_clock``, the page's
        timers run on Playwright's clock (time flows, and ``page.clock.run_for`` runs it
        ahead); with ``token``, the page resumes that session (an account's, say); ``script`` runs
        in the page before its own."""
        if phone:
            context = await browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
        else:
            context = await browser.new_context(viewport=DESKTOP)
        if link is not None:
            await context.route_web_socket(SOCKET, link.handle)
        if fake_clock:
            await context.clock.install()
        await context.add_init_script(
            "if (!localStorage.getItem('hive.nickname')) "
            f"localStorage.setItem('hive.nickname', {json.dumps(nickname)});"
        )
        if token is not None:
            await context.add_init_script(
                "if (!localStorage.getItem('hive.token')) "
                f"localStorage.setItem('hive.token', {json.dumps(token)});"
            )
        if script is not None:
            await context.add_init_script(script)
        person = cls(context, await context.new_page(), base, nickname)
        await person.page.goto(base + path)
        if online:
            await person.online()
        return person

    async def close(self) -> None:
        await self.context.close()

    # -- what the page shows -------------------------------------------------------------------

    async def online(self) -> None:
        await expect(self.page.get_by_test_id("connection")).to_have_attribute(
            "data-status", "online"
        )

    async def choose(self, game_type: str, time: str | None, color: str) -> None:
        """Set the lobby's create form: a game type, a time control (its option's value; None
        leaves it) and a colour."""
        form = self.page.get_by_test_id("create-form")
        await form.locator("select[name=game_type]").select_option(game_type)
        if time is not None:
            await form.locator("select[name=time]").select_option(time)
        await form.locator(f"input[name=color][value={color}]").check()

    async def game_id(self) -> str:
        """The game on show (from the address: ``#/game/ID``)."""
        await expect(self.page.locator("[data-testid=game][data-version]")).to_have_count(1)
        hash_ = await self.page.evaluate("location.hash")
        assert isinstance(hash_, str) and hash_.startswith("#/game/"), hash_
        return hash_.removeprefix("#/game/")

    async def version(self) -> int:
        value = await self.page.get_attribute("[data-testid=game]", "data-version")
        return int(value or 0)

    async def wait_version(self, at_least: int) -> int:
        """Wait until the page shows version ``at_least`` or later; returns it."""
        await wait_until(
            self.page,
            "v => Number(document.querySelector('[data-testid=game]')?.dataset.version) >= v",
            at_least,
        )
        return await self.version()

    async def pieces(self, scope: str = "[data-testid=game]") -> set[Placed]:
        """Every piece the board shows: ``(piece, q, r, height)``."""
        found: list[list[Any]] = await self.page.eval_on_selector_all(
            f"{scope} .board-svg .piece",
            "els => els.map(e => [e.dataset.piece, +e.dataset.q, +e.dataset.r, +e.dataset.height])",
        )
        return {(str(p), int(q), int(r), int(h)) for p, q, r, h in found}

    async def moves(self) -> list[str]:
        """The move list as shown."""
        texts: list[str] = await self.page.eval_on_selector_all(
            "[data-testid=moves] .mv", "els => els.map(e => e.textContent.trim())"
        )
        return texts

    async def status(self) -> str:
        return (await self.page.get_by_test_id("status").text_content() or "").strip()

    async def my_turn(self, timeout: float = 30_000) -> None:
        await expect(self.page.get_by_test_id("status")).to_contain_text(
            "Your turn", timeout=timeout
        )

    # -- acting -------------------------------------------------------------------------------

    async def play(
        self, game: Game, text: str, *, tap: bool = False, hold: bool = False, drag: bool = False
    ) -> None:
        """Make ``text`` (a MoveString legal in ``game``) by clicking, tapping or (``hold``)
        pressing a finger for a while on its piece and then its destination, or (``drag``)
        dragging the piece there with the mouse; ``game`` is not changed."""
        move = game.parse_move(text)
        if move == PASS:
            await self.page.get_by_test_id("pass").click()
            return
        source, target = game.layout().endpoints(move)
        assert target is not None
        name = Piece(move.piece).name
        if source is None:
            selector = f'[data-hand="{name}"]'
        else:
            selector = f'.board-svg .piece[data-piece="{name}"]:not(.under)'
        piece = self.page.locator(selector)
        q, r = target
        if drag:
            await self.drag(selector, q, r)
            return
        destination = self.page.locator(f'[data-target][data-q="{q}"][data-r="{r}"]')
        if hold:
            await self.hold(piece)
            await self.hold(destination)
        else:
            press = Locator.tap if tap else Locator.click
            await press(piece)
            try:
                await expect(destination).to_be_visible(timeout=10_000)
            except AssertionError:
                # Rarely (about one full run in three) the click or tap goes astray under load
                # and the piece is not picked up: picked up again, once.
                if not await piece.evaluate("e => e.classList.contains('selected')"):
                    await press(piece)
                try:
                    await expect(destination).to_be_visible(timeout=10_000)
                except AssertionError as error:
                    raise AssertionError(f"{text} not shown: {await self.seen()}") from error
            await press(destination)

    async def seen(self) -> dict[str, Any]:
        """What the page shows of the game (for a test's failure message): version, status,
        notice, the piece picked up, the destinations shown, the moves, the pieces that may
        move; and a screenshot in ``.artifacts/failed-<player>.png``."""
        found: dict[str, Any] = await self.page.evaluate(
            """() => ({
              version: document.querySelector("[data-testid=game]")?.dataset.version,
              status: document.querySelector("[data-testid=status]")?.textContent,
              notice: document.querySelector("[data-testid=notice]")?.textContent,
              selected: [...document.querySelectorAll(".selected")].map(
                e => e.outerHTML.slice(0, 120)),
              targets: [...document.querySelectorAll("[data-target]")].map(
                e => `${e.dataset.target}@${e.dataset.q},${e.dataset.r}`),
              movable: [...document.querySelectorAll(".piece[role=button], [data-hand]")].map(
                e => e.dataset.piece ?? e.dataset.hand),
              moves: [...document.querySelectorAll("[data-testid=moves] .mv")].map(
                e => e.textContent.trim()),
            })"""
        )
        folder = Path(".artifacts")
        folder.mkdir(exist_ok=True)
        await self.page.screenshot(path=str(folder / f"failed-{self.name or 'person'}.png"))
        return found

    async def hold(self, target: Locator, ms: float = HOLD_MS) -> None:
        """Touch the middle of ``target`` and lift the finger ``ms`` later (a slow tap; the
        wait is the length of the press, not a synchronisation)."""
        box = await target.bounding_box()
        assert box is not None
        point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
        cdp = await self.context.new_cdp_session(self.page)
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
        await self.page.wait_for_timeout(ms)
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        await cdp.detach()

    async def drag(self, source: str, q: int, r: int) -> None:
        """Drag the element at ``source`` with the mouse and let go over hex (q, r)."""
        page = self.page
        start = await page.locator(source).bounding_box()
        end = await page.locator(f'.board-svg .cell[data-q="{q}"][data-r="{r}"]').bounding_box()
        assert start is not None and end is not None
        await page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
        await page.mouse.down()
        await page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
        await page.mouse.up()

    async def screenshot(self, path: Path) -> None:
        await self.page.mouse.move(0, 0)  # no hover effects in the picture
        await self.page.screenshot(path=str(path))


async def assert_drawn_in_place(person: Person, scope: str = "[data-testid=game]") -> None:
    """The board draws each piece on the ground where its axial (q, r) says: pointy-top
    hexes, +q east, +r south-east, all at one scale."""
    found: list[list[float]] = await person.page.eval_on_selector_all(
        f"{scope} .board-svg .piece[data-height='0']",
        """els => els.map(e => {
            const b = e.querySelector('.tile').getBoundingClientRect();
            return [+e.dataset.q, +e.dataset.r, b.x + b.width / 2, b.y + b.height / 2];
        })""",
    )
    assert len(found) >= 2
    expected = [(math.sqrt(3) * (q + r / 2), 1.5 * r) for q, r, _, _ in found]
    far = max(range(len(found)), key=lambda i: math.dist(expected[i], expected[0]))
    scale = math.dist(found[far][2:], found[0][2:]) / math.dist(expected[far], expected[0])
    for (_, _, x, y), (ex, ey) in zip(found, expected, strict=True):
        assert math.isclose(x - found[0][2], scale * (ex - expected[0][0]), abs_tol=1.5)
        assert math.isclose(y - found[0][3], scale * (ey - expected[0][1]), abs_tol=1.5)


def destination_of(game: Game, text: str) -> tuple[str, tuple[int, int]]:
    """(piece, hex) a MoveString names in ``game``'s position, legal or not."""
    piece, target = notation.destination(game.board, text)
    return Piece(piece).name, game.layout().axial(target)


def layout_of(game: Game) -> set[Placed]:
    """The pieces of ``game`` as the page should show them."""
    return {(str(piece), q, r, h) for piece, (q, r, h) in game.positions().items()}


def replay(game_type: str, moves: list[str]) -> Game:
    """A game of ``moves`` under the server's rules (a third repetition by kind draws)."""
    game = Game(game_type, repetition_draw=True)
    for text in moves:
        game.play(text)
    return game


class Link:
    """Stands between a page and the server's websocket (Playwright's websocket routing): it
    passes every frame both ways and notes what the page sent, until it is ``cut`` (the
    connection closes, and new ones close at once until ``restore``). ``deaf``: frames from the
    server are dropped (their answers are lost on the way), and noted in ``dropped`` (a frame
    the server sent reaches the link some time after, so wait for it there before the link
    hears again). ``holding``: frames from the page
    wait in the link, in order, until ``release`` (they are slow on the way)."""

    def __init__(self) -> None:
        self.up = True
        self.deaf = False
        self.holding = False
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []
        self.sent: list[Message] = []
        self.dropped: list[Message] = []
        self.routes: list[tuple[WebSocketRoute, WebSocketRoute]] = []

    async def handle(self, page_side: WebSocketRoute) -> None:
        if not self.up:
            await page_side.close(code=4000, reason="the link is down")
            return
        server_side = page_side.connect_to_server()

        def from_page(frame: str | bytes) -> None:
            if isinstance(frame, bytes):
                self.sent.append(decode(frame))
            if self.holding:
                self.held.append((server_side, frame))
            else:
                server_side.send(frame)

        def from_server(frame: str | bytes) -> None:
            if not self.deaf:
                page_side.send(frame)
            elif isinstance(frame, bytes):
                self.dropped.append(decode_server(frame))

        page_side.on_message(from_page)
        server_side.on_message(from_server)
        self.routes.append((page_side, server_side))

    async def cut(self) -> None:
        """Close every connection through the link and refuse new ones."""
        self.up = False
        for page_side, server_side in self.routes:
            await server_side.close()
            await page_side.close(code=4000, reason="the link is down")
        self.routes.clear()

    def restore(self) -> None:
        self.up = True
        self.deaf = False

    def release(self) -> None:
        """Pass on the frames held, in order, and hold no more."""
        self.holding = False
        for server_side, frame in self.held:
            server_side.send(frame)
        self.held.clear()

    def plays(self) -> list[Play]:
        """The ``play`` messages the page sent."""
        return [m for m in self.sent if isinstance(m, Play)]


@contextlib.asynccontextmanager
async def duel(
    srv: Running,
    browser: Browser,
    *,
    link: Link | None = None,
    time: str = "none",
    script: str | None = None,
) -> AsyncIterator[tuple[Person, Client, str]]:
    """Ada in the browser opens a Base game as White with no clock (or the lobby's ``time``
    choice, such as ``"5+5"``); Bob, a Python client, joins. Yields both and the game's id once
    Ada's page shows the game started (``script``: as for ``Person.open``)."""
    ada = await Person.open(browser, base=srv.http_url, nickname="ada", link=link, script=script)
    await ada.choose("Base", time, "white")
    await ada.page.get_by_test_id("create").click()
    game_id = await ada.game_id()
    async with srv.connect("bob") as bob:
        await bob.send(JoinGame(game_id))
        await ada.wait_version(2)
        try:
            yield ada, bob, game_id
        finally:
            await ada.close()


async def exchange(
    ada: Person, bob: Client, game_id: str, game: Game, mine: str, theirs: str
) -> None:
    """Ada plays ``mine`` by clicking when it is her turn, then Bob answers ``theirs``; returns
    once Ada's page shows both (``game`` has both played)."""
    await ada.my_turn()
    await ada.play(game, mine)
    game.play(mine)
    await reply(bob, game_id, game, theirs)
    game.play(theirs)
    await ada.wait_version(2 + game.ply)


async def seen(bob: Client, game_id: str, plies: int) -> Update:
    """The first update Bob receives of a game with ``plies`` moves played."""
    while True:
        update = await bob.expect(Update)
        if update.game == game_id and len(update.state.moves) >= plies:
            return update


async def reply(bob: Client, game_id: str, game: Game, text: str) -> None:
    """Bob waits until he has seen the game at ``game``'s position, then plays ``text``."""
    update = await seen(bob, game_id, game.ply)
    await bob.send(Play(game_id, update.version, text))


async def play_out(srv: Running, moves: tuple[str, ...]) -> str:
    """Two Python clients play ``moves`` (a whole game); its id."""
    async with srv.connect("ann") as ann, srv.connect("ben") as ben:
        await ann.send(CreateGame(game_type="Base", time=TimeControl(), color="white"))
        created = await ann.expect(Update)
        game_id: str = created.game
        await ben.send(JoinGame(game_id))
        clients = (ann, ben)
        for ply, text in enumerate(moves):
            mover = clients[ply % 2]
            update = await seen(mover, game_id, ply)
            await mover.send(Play(game_id, update.version, text))
        await seen(ann, game_id, len(moves))
    return game_id


async def write_trace(path: Path) -> dict[str, Any]:
    """``hive-ai bestmove --trace`` as a person runs it; returns the trace it wrote."""
    hive_ai = Path(sys.executable).parent / "hive-ai"
    process = await asyncio.create_subprocess_exec(
        str(hive_ai),
        "bestmove",
        "--level",
        "medium",
        "--seed",
        "3",
        "--trace",
        str(path),
        "--trace-depth",
        "3",
        POSITION,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate()
    assert process.returncode == 0, out
    trace: dict[str, Any] = json.loads(path.read_text())
    return trace

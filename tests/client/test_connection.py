"""The browser's connection: a reload comes back to the same game, a killed socket reconnects
and resyncs, a move made while the socket is down goes once it is back (once, not twice), a
move on its way is not sent again when an update of the game comes first, an illegal drop
changes nothing and says why, and a connection the server closed for what the page did (1008,
1009) is not retried by itself: the page says why and offers to reconnect."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from hive import Game, Piece
from protocol import MAX_FRAME_BYTES, Chat, JoinGame, Ping, encode
from protocol.client import Client
from server.embedded import RedisProcess
from tests.client.support import (
    RECORD_SOCKETS,
    Link,
    Person,
    destination_of,
    duel,
    layout_of,
    reply,
    seen,
)
from tests.server.conftest import Running, StartServer
from tests.support import until

pytestmark = pytest.mark.browser

RECORD_STATUS = """() => {
  window.seenStatus = [];
  const badge = document.querySelector('[data-testid=connection]');
  new MutationObserver(() => window.seenStatus.push(badge.dataset.status))
    .observe(badge, {attributes: true, attributeFilter: ['data-status']});
}"""


async def opening(ada: Person, bob: Client, game_id: str) -> Game:
    """Ada plays wS1 by clicking, Bob answers bS1 wS1-; Ada's turn again."""
    game = Game("Base")
    await ada.my_turn()
    await ada.play(game, "wS1")
    game.play("wS1")
    await reply(bob, game_id, game, "bS1 wS1-")
    game.play("bS1 wS1-")
    await ada.wait_version(4)
    await ada.my_turn()
    return game


def last_move(moves: list[str], game_type: str = "Base") -> tuple[str, tuple[int, int] | None]:
    """(piece, destination) of the last of ``moves``."""
    game = Game(game_type)
    for text in moves[:-1]:
        game.play(text)
    move = game.parse_move(moves[-1])
    return Piece(move.piece).name, game.layout().endpoints(move)[1]


async def test_a_reload_mid_game_returns_to_the_same_game_and_position(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        game = await opening(ada, bob, game_id)
        shown = await ada.pieces()
        assert shown == layout_of(game)
        await ada.page.reload()
        await ada.online()
        assert await ada.game_id() == game_id
        await ada.wait_version(4)
        assert await ada.pieces() == shown
        assert await ada.moves() == ["wS1", "bS1 wS1-"]
        await ada.my_turn()
        # and the game goes on from there
        await ada.play(game, "wQ -wS1")
        game.play("wQ -wS1")
        update = await seen(bob, game_id, 3)
        assert update.version == 5
        assert last_move(update.state.moves) == ("wQ", (-1, 0))
        assert ada.errors == []


async def test_a_killed_socket_reconnects_by_itself_and_the_game_goes_on(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        game = await opening(ada, bob, game_id)
        await ada.play(game, "wQ -wS1")
        game.play("wQ -wS1")
        await ada.wait_version(5)
        await ada.page.evaluate(RECORD_STATUS)
        sessions = [s for s in srv.hub.connections.sessions if s.name == "ada"]
        assert len(sessions) == 1
        sessions[0].ws.transport.abort()  # the connection drops, no close handshake
        # Bob moves at once, most likely while Ada is away: she gets it when she is back.
        await reply(bob, game_id, game, "bQ bS1-")
        game.play("bQ bS1-")
        await ada.wait_version(6)
        await ada.online()
        statuses = await ada.page.evaluate("window.seenStatus")
        assert "reconnecting" in statuses and statuses[-1] == "online"
        # the lag the pings measure is shown with the state
        badge = ada.page.get_by_test_id("connection")
        await expect(badge).to_have_text(re.compile(r"^online · \d+ ms$"))
        assert await ada.pieces() == layout_of(game)
        await ada.my_turn()
        await ada.play(game, "wG1 /wQ")
        game.play("wG1 /wQ")
        update = await seen(bob, game_id, game.ply)
        assert last_move(update.state.moves) == ("wG1", (-2, 1))
        await ada.wait_version(7)
        assert await ada.pieces() == layout_of(game)
        assert ada.errors == []


async def test_a_move_made_while_the_socket_is_down_goes_once_when_it_is_back(
    srv: Running, browser: Browser
) -> None:
    link = Link()
    async with duel(srv, browser, link=link) as (ada, bob, game_id):
        game = await opening(ada, bob, game_id)
        await link.cut()
        await expect(ada.page.get_by_test_id("connection")).to_have_attribute(
            "data-status", "reconnecting"
        )
        plays = len(link.plays())
        await ada.play(game, "wQ -wS1")  # the board still shows the last position
        await expect(ada.page.get_by_test_id("pending")).to_be_visible()
        await expect(ada.page.get_by_test_id("status")).to_contain_text("queued")
        record = await srv.hub.store.get(game_id)
        assert record is not None and len(record.moves) == 2  # nothing went out
        assert len(link.plays()) == plays

        link.restore()
        await ada.online()
        await ada.wait_version(5)
        game.play("wQ -wS1")
        assert await ada.pieces() == layout_of(game)
        await expect(ada.page.get_by_test_id("pending")).to_have_count(0)
        record = await srv.hub.store.get(game_id)
        assert record is not None and record.version == 5
        assert last_move(record.moves) == ("wQ", (-1, 0))
        assert len(link.plays()) == plays + 1  # sent once, after the reconnect
        await expect(ada.page.get_by_test_id("notice")).not_to_contain_text("changed")

        # A move whose answer is lost with the connection is not sent again on return.
        await reply(bob, game_id, game, "bQ bS1-")
        game.play("bQ bS1-")
        await ada.wait_version(6)
        await ada.my_turn()
        link.deaf = True
        await ada.play(game, "wG1 /wQ")
        await srv_has_moves(srv, game_id, 5)
        await link.cut()
        link.restore()
        await ada.online()
        await ada.wait_version(7)
        game.play("wG1 /wQ")
        assert await ada.pieces() == layout_of(game)
        assert len(link.plays()) == plays + 2
        record = await srv.hub.store.get(game_id)
        assert record is not None and record.version == 7
        await expect(ada.page.get_by_test_id("status")).to_contain_text("bob to move")
        assert ada.errors == []


async def test_a_move_on_its_way_is_not_sent_again_when_an_update_comes_first(
    srv: Running, browser: Browser
) -> None:
    """Bob's chat line reaches Ada's page while her move is still on its way to the server:
    the page does not send the move again on the same connection (the copy would be refused
    as stale, and say the position changed)."""
    link = Link()
    async with duel(srv, browser, link=link, script=RECORD_SOCKETS) as (ada, bob, game_id):
        game = await opening(ada, bob, game_id)
        plays = len(link.plays())
        link.holding = True
        await ada.play(game, "wQ -wS1")
        await expect(ada.page.get_by_test_id("pending")).to_be_visible()
        await bob.send(Chat(game_id, "good luck"))
        await ada.wait_version(5)  # Bob's line, with her move pending
        # Whatever the page sent before this ping has reached the link once the ping has.
        await ada.page.evaluate(SEND_FRAMES, [list(encode(Ping(7.5)))])
        await until(lambda: Ping(7.5) in link.sent, "the page's ping never reached the link")
        assert len(link.plays()) == plays + 1
        link.release()
        await ada.wait_version(6)
        game.play("wQ -wS1")
        assert await ada.pieces() == layout_of(game)
        await expect(ada.page.get_by_test_id("pending")).to_have_count(0)
        await expect(ada.page.get_by_test_id("status")).to_contain_text("bob to move")
        assert len(link.plays()) == plays + 1
        assert ada.errors == []


async def srv_has_moves(srv: Running, game_id: str, count: int) -> None:
    """Wait until the server's game has ``count`` moves (it publishes each change: heard from
    a subscription made before the record is read, so that none falls between the two)."""
    from tests.server.support import published

    async with published(srv.redis_url) as wait:
        record = await srv.hub.store.get(game_id)
        while record is None or len(record.moves) < count:
            await wait(game_id, "move")
            record = await srv.hub.store.get(game_id)


async def test_an_illegal_drop_does_nothing_and_says_why(srv: Running, browser: Browser) -> None:
    link = Link()
    async with duel(srv, browser, link=link) as (ada, bob, game_id):
        game = await opening(ada, bob, game_id)
        before = await ada.pieces()
        notice = ada.page.get_by_test_id("notice")
        # the Queen dropped where she touches only Black's Spider
        await ada.drag('[data-hand="wQ"]', 2, 0)
        await expect(notice).to_contain_text(
            "wQ cannot go there: a piece may be placed only where it touches its own colour"
        )
        # the Spider moved before its Queen is placed
        await ada.drag('.board-svg .piece[data-piece="wS1"]', 1, -1)
        await expect(notice).to_contain_text("no piece may move before its side's Queen is placed")
        # Black's Spider is not hers to pick up
        await ada.page.locator('.board-svg .piece[data-piece="bS1"]').click()
        await expect(notice).to_contain_text("bS1 is Black's piece: you play White.")
        await expect(ada.page.locator("[data-target]")).to_have_count(0)
        assert await ada.pieces() == before
        assert await ada.version() == 4
        # the server was asked about exactly the hexes dropped on
        probes = [destination_of(game, play.move) for play in link.plays()[-2:]]
        assert probes == [("wQ", (2, 0)), ("wS1", (1, -1))]
        await expect(ada.page.locator('[data-hand="wQ"]')).to_be_visible()
        await expect(ada.page.get_by_test_id("pending")).to_have_count(0)
        record = await srv.hub.store.get(game_id)
        assert record is not None and record.version == 4 and len(record.moves) == 2
        # a legal drop plays
        await ada.drag('[data-hand="wQ"]', -1, 0)
        await ada.wait_version(5)
        game.play("wQ -wS1")
        assert await ada.pieces() == layout_of(game)
        assert ada.errors == []


async def test_a_page_opened_while_storage_is_away_signs_in_once_it_is_back(
    redis_server: RedisProcess, srv: Running, browser: Browser
) -> None:
    redis_server.stop()
    ada = await Person.open(browser, srv.http_url, "ada", online=False)
    # the hello is refused; the page says why and keeps trying with its backoff
    await expect(ada.page.get_by_test_id("notice")).to_contain_text("storage unavailable")
    badge = ada.page.get_by_test_id("connection")
    await expect(badge).to_have_attribute("data-status", "reconnecting")
    redis_server.start()
    await expect(badge).to_have_attribute("data-status", "online", timeout=15_000)
    await ada.choose("Base", None, "white")  # and the lobby works: a game is created
    await ada.page.get_by_test_id("create").click()
    await ada.game_id()
    assert ada.errors == []


async def test_a_new_name_keeps_the_players_seat_in_its_games(
    srv: Running, browser: Browser
) -> None:
    async with duel(srv, browser) as (ada, bob, game_id):
        game = await opening(ada, bob, game_id)
        await ada.page.evaluate("location.hash = '#/'")
        await ada.page.locator("[data-action=editName]").click()
        await ada.page.get_by_test_id("nickname").fill("Ada Lovelace")
        await ada.page.get_by_test_id("nickname").press("Enter")
        await expect(ada.page.get_by_test_id("me")).to_have_text("Ada Lovelace")
        await ada.online()
        assert await ada.page.evaluate("localStorage.getItem('hive.nickname')") == "Ada Lovelace"
        # the same player: back in her game, it is still her move to make
        await ada.page.evaluate(f"location.hash = '#/game/{game_id}'")
        await ada.my_turn()
        await ada.play(game, "wQ -wS1")
        game.play("wQ -wS1")
        update = await seen(bob, game_id, game.ply)
        assert update.state.moves == ["wS1", "bS1 wS1-", "wQ -wS1"]
        assert ada.errors == []


RECORD_STATUS_CHANGES = """() => {
  const badge = document.querySelector('[data-testid=connection]');
  window.statusChanges = [];
  let last = badge.dataset.status;
  new MutationObserver(() => {
    if (badge.dataset.status !== last) window.statusChanges.push(last = badge.dataset.status);
  }).observe(badge, {attributes: true, attributeFilter: ['data-status']});
}"""

# Frames sent on the page's websocket (a page opened with RECORD_SOCKETS).
SEND_FRAMES = """(frames) => {
  const ws = window.__sockets.at(-1);
  for (const frame of frames) ws.send(new Uint8Array(frame));
}"""

# Frames sent on the page's websocket in turn, each once the last is answered (or anything else
# arrives), until the socket closes: never more unread frames than the server queues (with
# more, it stops reading, and its close waits out the close timeout for the page's answer).
FLOOD = """async (frames) => {
  const ws = window.__sockets.at(-1);
  for (let n = 0; n < 100 && ws.readyState === WebSocket.OPEN; n++) {
    const answered = new Promise((resolve) => {
      ws.addEventListener('message', resolve, {once: true});
      ws.addEventListener('close', resolve, {once: true});
    });
    ws.send(new Uint8Array(frames[n % frames.length]));
    await answered;
  }
}"""


@pytest.mark.parametrize(
    ("frames", "reason"),
    [
        # The page floods: pings until its budget is spent (what its own start-up sent, a
        # handful, never spends it), and the first refusal (no strike to spare) closes it.
        pytest.param([list(encode(Ping(1.0)))], "too many requests", id="1008"),
        pytest.param(
            [[0] * (MAX_FRAME_BYTES + 1)],
            f"frame with {MAX_FRAME_BYTES + 1} bytes exceeds limit of {MAX_FRAME_BYTES} bytes",
            id="1009",
        ),
    ],
)
async def test_a_page_closed_for_what_it_did_says_why_and_waits_to_reconnect(
    start_server: StartServer, browser: Browser, frames: list[list[int]], reason: str
) -> None:
    async with start_server(message_rate=0.01, message_burst=20, strikes=1) as srv:
        ada = await Person.open(
            browser, srv.http_url, "ada", fake_clock=True, script=RECORD_SOCKETS
        )
        try:
            await ada.page.evaluate(RECORD_STATUS_CHANGES)
            await ada.page.evaluate(FLOOD, frames)
            badge = ada.page.get_by_test_id("connection")
            await expect(badge).to_have_attribute("data-status", "closed")
            await expect(ada.page.get_by_test_id("closed-reason")).to_have_text(
                f"disconnected: {reason}"
            )
            # A minute of the page's timers (its reconnect backoff is 5 s at most): no retry.
            await ada.page.clock.run_for(60_000)
            assert await ada.page.evaluate("window.statusChanges") == ["closed"]
            await expect(badge).to_have_attribute("data-status", "closed")
            # The player reconnects by hand: the same session again.
            player = await ada.page.evaluate("localStorage.getItem('hive.token')")
            await ada.page.get_by_test_id("reconnect").click()
            await ada.online()
            assert await ada.page.evaluate("window.statusChanges") == [
                "closed",
                "reconnecting",
                "online",
            ]
            assert await ada.page.evaluate("localStorage.getItem('hive.token')") == player
            await expect(ada.page.get_by_test_id("reconnect")).to_have_count(0)
            assert ada.errors == []
        finally:
            await ada.close()


async def test_a_games_page_connects_by_its_game_and_the_player_is_never_seen_gone(
    srv: Running, browser: Browser
) -> None:
    """A game's page has its connection name the game (``/ws?game=ID``: a proxy in front of
    several processes sends every connection to one game to one process): the new socket takes
    over from the lobby's once welcomed, so the page never shows itself reconnecting, and the
    lobby's socket closes then; the game goes on over the new one."""
    ada = await Person.open(browser, base=srv.http_url, nickname="ada")
    sockets: list[str] = []
    ada.page.on("websocket", lambda ws: sockets.append(ws.url))
    try:
        await ada.page.evaluate(RECORD_STATUS)
        player = next(s.player for s in srv.hub.connections.sessions if s.name == "ada")
        assert player is not None
        await ada.choose("Base", "none", "white")
        await ada.page.get_by_test_id("create").click()
        game_id = await ada.game_id()
        await until(lambda: f"/ws?game={game_id}" in "".join(sockets), f"no socket to {game_id}")
        presence = srv.hub.presence
        await until(lambda: len(presence.by_player.get(player, ())) == 1, "the lobby's still open")
        async with srv.connect("bob") as bob:
            await bob.send(JoinGame(game_id))
            await ada.wait_version(2)
            game = await opening(ada, bob, game_id)
            assert await ada.pieces() == layout_of(game)
        assert set(await ada.page.evaluate("window.seenStatus")) <= {"online"}  # all along
        assert ada.errors == []
    finally:
        await ada.close()

"""Clients that do not read: what waits for them in the server stays bounded, their feeds are
skipped, and once they read again they get one snapshot of what they missed. Real clients that
stop reading, on a real server."""

from __future__ import annotations

import msgpack

from protocol import (
    Chat,
    CreateGame,
    Lobby,
    LobbyChange,
    Message,
    Unwatch,
    Update,
    Watch,
    WatchLobby,
    decode_server,
    encode,
    to_plain,
)
from server.live import fanout
from tests.server.conftest import Running, StartServer
from tests.server.support import (
    decisive_game,
    play,
    read_until,
    stalled,
    start_game,
    updated,
    watch,
)
from tests.support import until

LIMIT = 16_384
FRAME = 8_192
"""More than the largest frame of these tests (a snapshot of a short game)."""
FAST = {"message_rate": 1000.0, "message_burst": 1000, "queue_limit": LIMIT}


def stalled_session(srv: Running, nickname: str) -> object:
    (session,) = [s for s in srv.hub.connections.sessions if s.name == nickname]
    return session


async def test_a_spectator_that_stops_reading_is_skipped_then_caught_up(
    start_server: StartServer,
) -> None:
    """A spectator asks for a game's snapshot again and again and reads none of them, while
    the players play on: what waits for it in the server stays under the queue limit (plus
    one frame), the updates it cannot take are skipped, and when it reads again it gets the
    game as it stands and follows it from there."""
    async with (
        start_server(**FAST) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
        stalled(srv.ws_url, "cy") as cy,
    ):
        game_id, w, b = await start_game(white, black)
        session = stalled_session(srv, "cy")
        for _ in range(300):  # each answered with a snapshot it does not read
            await cy.send(encode(Watch(game_id)))
        await until(lambda: session in srv.hub.fanout.lagging, "cy was never skipped")
        moves = decisive_game("Base")[:10]
        for n, move in enumerate(moves):
            mover, update = (white, w) if n % 2 == 0 else (black, b)
            await play(mover, update, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
            assert session.queued() <= LIMIT + FRAME  # type: ignore[attr-defined]
        assert game_id in session.owed  # type: ignore[attr-defined]
        assert srv.hub.metrics.skipped._value.get() > 0

        # cy reads again: what it had been sent, then the game as it stands now
        read = await read_until(cy, lambda m: isinstance(m, Update) and m.version == w.version)
        assert len(read) < 300  # most snapshots were never queued
        assert read[-1].state.moves == list(moves)  # type: ignore[attr-defined]
        await until(lambda: session not in srv.hub.fanout.lagging, "cy is still lagging")
        await play(white, w, decisive_game("Base")[10])
        after = await read_until(cy, lambda m: isinstance(m, Update))
        assert after[-1].version == w.version + 1 and not after[-1].snapshot  # type: ignore[attr-defined]


async def test_a_lobby_subscriber_that_stops_reading_gets_the_lobby_once_it_reads(
    start_server: StartServer,
) -> None:
    async with (
        start_server(**FAST) as srv,
        srv.connect("ada") as ada,
        stalled(srv.ws_url, "cy") as cy,
    ):
        await ada.send(CreateGame(game_type="Base"))
        first = await ada.expect(Update)
        session = stalled_session(srv, "cy")
        for _ in range(300):
            await cy.send(encode(Watch(first.game)))
        await until(lambda: session in srv.hub.fanout.lagging, "cy was never skipped")
        await cy.send(encode(WatchLobby()))
        await until(lambda: session.lobby_stale, "the lobby was sent to cy")  # type: ignore[attr-defined]
        await ada.send(CreateGame(game_type="Base+M"))
        second = await ada.expect(Update)
        assert session.queued() <= LIMIT + FRAME  # type: ignore[attr-defined]

        def lists_both(message: Message) -> bool:
            ids = {g.id for g in message.open} if isinstance(message, Lobby) else set()
            return ids == {first.game, second.game}

        read = await read_until(cy, lists_both)
        assert not any(isinstance(m, LobbyChange) for m in read)  # a snapshot, no backlog


async def test_a_small_watch_never_buys_events_heavier_than_their_state(
    start_server: StartServer,
) -> None:
    """48 chat lines of 300 characters, then ``watch`` from version 0 (a request of 33
    bytes): the events would be as heavy as the state, which holds the lines too, so the
    answer is a snapshot, the state alone; a watcher one move behind still gets its move."""
    async with (
        start_server(chat_burst=100, chat_interval=0.01, message_burst=200) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
        srv.connect("cy") as cy,
    ):
        game_id, w, _ = await start_game(white, black)
        smallest = len(msgpack.packb(to_plain(w.state)))  # a game's first state: its smallest
        assert smallest > fanout.STATE_FLOOR
        await black.send(Unwatch(game_id))  # only Ada reads the game's updates
        for n in range(48):
            await white.send(Chat(game_id, f"{n:03d}" + "x" * 297))
            w = await updated(white, game_id)
        assert w.version <= fanout.FAR_BEHIND  # every event is still kept
        request = Watch(game_id, since=0)
        assert len(encode(request)) == 33
        await cy.ws.send(encode(request))
        frame = await cy.ws.recv()
        answer = decode_server(frame)
        assert isinstance(answer, Update) and answer.snapshot and answer.events == []
        assert answer.version == w.version and len(answer.state.chat) == 48
        assert len(frame) < 20_000  # the state alone (its events too: 36,408 bytes)
        await play(white, w, "wS1")
        await updated(white, game_id)  # the move is made
        near = await watch(black, game_id, since=w.version)  # one move behind
        assert not near.snapshot and [(e.kind, e.text) for e in near.events] == [("move", "wS1")]
        await updated(cy, game_id)  # (the move, as Cy watches)
        recent = await watch(cy, game_id, since=w.version - 2)  # two lines, and the move
        assert not recent.snapshot and len(recent.events) == 3


async def test_a_watcher_far_behind_gets_one_snapshot(start_server: StartServer) -> None:
    """``watch`` with ``since`` 0 on a game of many events answers one snapshot, not them all
    (a tiny request must not buy a large answer); a watcher a few events behind gets them."""
    async with (
        start_server(chat_burst=100, chat_interval=0.01, message_burst=200) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
        srv.connect("cy") as cy,
    ):
        game_id, w, _ = await start_game(white, black)
        await black.send(Unwatch(game_id))  # only Ada reads the game's updates
        for n in range(60):
            await white.send(Chat(game_id, f"line {n}"))
            w = await updated(white, game_id)
        far = await watch(cy, game_id, since=0)
        assert far.snapshot and far.events == [] and far.version == w.version
        near = await watch(cy, game_id, since=w.version - 5)
        assert not near.snapshot and [e.version for e in near.events] == list(
            range(w.version - 4, w.version + 1)
        )

"""Reconnects, draws, resignations, rematches, chat and mutes, repetition, claims and the
lobby, through the real server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from protocol import (
    CancelGame,
    Chat,
    ClaimWin,
    CreateGame,
    Draw,
    Error,
    ErrorCode,
    JoinGame,
    Lobby,
    Mute,
    Ping,
    Pong,
    Rematch,
    Resign,
    SpectatorChat,
    Update,
    Watch,
    WatchLobby,
)
from protocol.client import Client, ServerError
from tests.hive.support import ANTS, SWAP, SWAP_BACK
from tests.server.conftest import Running, StartServer
from tests.server.support import lobby_until, play, refused, start_game, updated, watch
from tests.support import until


async def refusal(client: Client, game: str) -> Error:
    """The error the client's last request got; no update of ``game`` may come before it."""
    try:
        update = await updated(client, game)
    except ServerError as error:
        return error.error
    raise AssertionError(f"not refused: {update.events}")


async def test_a_reconnect_receives_exactly_the_events_it_missed(srv: Running) -> None:
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)
        await play(white, w, "wS1")
        w, b = await updated(white, game_id), await updated(black, game_id)
        token, seen = black.welcome.token, b.version
        await black.ws.close()  # black drops out; it is black's turn, white chats meanwhile
        await white.send(Chat(game_id, "still there?"))
        await updated(white, game_id)
        async with srv.connect(token=token) as black:
            back = await watch(black, game_id, since=seen)
            assert not back.snapshot
            assert [(e.version, e.kind, e.text) for e in back.events] == [
                (seen + 1, "chat", "still there?")
            ]
            await play(black, back, "bS1 wS1-")  # a chat line does not make the move stale
            assert (await updated(white, game_id)).state.moves == ["wS1", "bS1 wS1-"]


async def test_a_reconnect_too_far_behind_gets_a_snapshot(start_server: StartServer) -> None:
    async with (
        start_server(event_log=3, chat_burst=10) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, w, b = await start_game(white, black)
        seen = b.version
        await black.ws.close()
        for n in range(5):
            await white.send(Chat(game_id, f"line {n}"))
            w = await updated(white, game_id)
        async with srv.connect(token=black.welcome.token) as black:
            late = await watch(black, game_id, since=seen)
            assert late.snapshot and late.events == [] and late.version == w.version
            assert [e.text for e in late.state.chat] == [f"line {n}" for n in range(5)]
        async with srv.connect(token=black.welcome.token) as black:
            await black.send(Watch(game_id, since=w.version - 2))
            recent = await updated(black, game_id)
            assert not recent.snapshot
            assert [e.text for e in recent.events] == ["line 3", "line 4"]


async def test_draw_offers_are_declined_accepted_and_cleared_by_a_move(srv: Running) -> None:
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)

        async def both() -> tuple[Update, Update]:
            return await updated(white, game_id), await updated(black, game_id)

        await black.send(Draw(game_id, "accept"))
        assert await refused(black, game_id) == ErrorCode.NOT_ALLOWED
        await white.send(Draw(game_id, "offer"))
        w, b = await both()
        assert b.state.draw_offer == "white" and b.events == [w.events[-1]]
        assert b.events[-1].kind == "draw_offer"
        await black.send(Draw(game_id, "decline"))
        w, b = await both()
        assert b.state.draw_offer is None and b.events[-1].kind == "draw_decline"
        await black.send(Draw(game_id, "offer"))
        w, b = await both()
        await play(white, w, "wS1")  # a move answers the offer: it lapses
        w, b = await both()
        assert w.state.draw_offer is None and w.state.moves == ["wS1"]
        await white.send(Draw(game_id, "offer"))
        w, b = await both()
        await black.send(Draw(game_id, "accept"))
        end, _ = await both()
    assert (end.state.status, end.state.result, end.state.reason) == ("over", "Draw", "agreement")


async def test_resign_then_a_rematch_with_colours_swapped(srv: Running) -> None:
    async with srv.connect("ada") as ada, srv.connect("bob") as bob, srv.connect("cy") as cy:
        game_id, a, _ = await start_game(ada, bob)
        await cy.send(Resign(game_id))
        assert await refused(cy, game_id) == ErrorCode.NOT_YOUR_GAME
        await ada.send(Resign(game_id))
        end = await updated(bob, game_id)
        assert (end.state.result, end.state.reason) == ("BlackWins", "resign")
        assert (await updated(ada, game_id)).state == end.state
        await play(ada, a, "wS1")
        assert await refused(ada, game_id) == ErrorCode.GAME_OVER
        await bob.send(Rematch(game_id))
        offer = await updated(ada, game_id)
        assert offer.state.rematch_offer == "black"
        assert (await updated(bob, game_id)).state.rematch_offer == "black"
        await ada.send(Rematch(game_id))
        # First the old game's rematch event, then the new game: a client follows the event.
        pointer = await ada.expect(Update)
        assert pointer.game == game_id and [e.kind for e in pointer.events] == ["rematch"]
        new_id = pointer.state.rematch
        assert new_id is not None and new_id != game_id
        assert (await ada.expect(Update)).game == new_id
        rematch = await updated(bob, new_id)
    assert rematch.state.status == "live"
    assert rematch.state.white is not None and rematch.state.black is not None
    assert (rematch.state.white.name, rematch.state.black.name) == ("bob", "ada")


async def test_chat_has_a_length_limit_and_a_rate_limit(start_server: StartServer) -> None:
    async with (
        start_server(chat_length=20, chat_burst=2, chat_interval=60) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
        srv.connect("cy") as fan,
    ):
        game_id, _, _ = await start_game(white, black)
        await watch(fan, game_id)
        await fan.send(Chat(game_id, "x" * 21))
        assert await refused(fan, game_id) == ErrorCode.TOO_LONG
        await fan.send(Chat(game_id, "go ada"))  # spectators chat too
        said = await updated(white, game_id)
        assert (said.events[-1].by, said.events[-1].text) == ("cy", "go ada")
        assert (await updated(fan, game_id)).events == said.events
        await fan.send(Chat(game_id, "go bob"))
        await updated(fan, game_id)
        await fan.send(Chat(game_id, "one too many"))
        assert await refused(fan, game_id) == ErrorCode.RATE_LIMITED


async def test_a_player_mutes_a_chatter_whose_lines_are_refused_until_unmuted(
    srv: Running,
) -> None:
    async with srv.connect("ada") as white, srv.connect("bob") as black, srv.connect("cy") as fan:
        game_id, _, _ = await start_game(white, black)
        await watch(fan, game_id)

        async def everyone_sees() -> list[Update]:
            return [await updated(client, game_id) for client in (white, black, fan)]

        await fan.send(Chat(game_id, "boo"))
        for update in await everyone_sees():
            assert [(e.kind, e.by, e.text, e.player) for e in update.events] == [
                ("chat", "cy", "boo", fan.player)  # the nickname, and who it is
            ]
        await fan.send(Mute(game_id, black.player))  # spectators cannot mute
        assert await refused(fan, game_id) == ErrorCode.NOT_YOUR_GAME
        await white.send(Mute(game_id, white.player))
        error = await refusal(white, game_id)
        assert (error.code, error.message) == (ErrorCode.NOT_ALLOWED, "you cannot mute yourself")

        await black.send(Mute(game_id, fan.player))
        for update in await everyone_sees():
            assert [(e.kind, e.by, e.text, e.player) for e in update.events] == [
                ("mute", "bob", "cy", fan.player)
            ]
            assert update.state.muted == [fan.player]
        await fan.send(Chat(game_id, "boo again"))
        error = await refusal(fan, game_id)
        assert (error.code, error.message, error.request, error.game) == (
            ErrorCode.NOT_ALLOWED,
            "you are muted in this game",
            "chat",
            game_id,
        )
        # Nothing of the refused line was stored or sent: the next update anyone gets holds
        # ada's later line only (an update brings every event since the last one received).
        await white.send(Chat(game_id, "never mind"))
        for update in await everyone_sees():
            assert [(e.kind, e.by, e.text) for e in update.events] == [
                ("chat", "ada", "never mind")
            ]
            assert [e.text for e in update.state.chat] == ["boo", "never mind"]

        await white.send(Mute(game_id, fan.player, mute=False))  # either player may unmute
        for update in await everyone_sees():
            assert [(e.kind, e.by, e.text, e.player) for e in update.events] == [
                ("unmute", "ada", "cy", fan.player)
            ]
            assert update.state.muted == []
        await fan.send(Chat(game_id, "sorry"))
        for update in await everyone_sees():
            assert [(e.kind, e.by, e.text) for e in update.events] == [("chat", "cy", "sorry")]


async def test_a_mute_holds_on_every_server_and_after_a_restart(
    start_server: StartServer,
) -> None:
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        one.connect("bob") as black,
        two.connect("cy") as fan,
    ):
        game_id, _, _ = await start_game(white, black)
        await watch(fan, game_id)  # server two holds the game now
        await fan.send(Chat(game_id, "hi"))
        await updated(fan, game_id)
        await white.send(Mute(game_id, fan.player))
        assert (await updated(fan, game_id)).state.muted == [fan.player]
        await fan.send(Chat(game_id, "boo"))
        assert await refused(fan, game_id) == ErrorCode.NOT_ALLOWED
        player, token = fan.player, fan.welcome.token
    async with start_server() as again, again.connect(token=token) as fan:
        record = await again.hub.store.get(game_id)
        assert record is not None and record.muted == [player]
        await fan.send(Chat(game_id, "boo"))
        assert await refused(fan, game_id) == ErrorCode.NOT_ALLOWED
        assert (await watch(fan, game_id)).state.muted == [player]


async def test_threefold_repetition_is_a_draw(srv: Running) -> None:
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]
    moves += ["wQ \\wS1", "bQ bS1/", "wQ -wS1", "bQ bS1-"] * 2
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)
        for n, move in enumerate(moves):
            await play(white if n % 2 == 0 else black, w if n % 2 == 0 else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
    assert (w.state.status, w.state.result, w.state.reason) == ("over", "Draw", "repetition")


async def test_pieces_of_a_kind_swapped_repeat_a_position_on_the_server(srv: Running) -> None:
    """White's two ants swap places and swap back while Black's ant goes round: the third
    time by kind (the second by number) draws (issue 33)."""
    fields = ANTS.split(";")
    moves = [*fields[3:], *SWAP, *SWAP_BACK]
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)
        for n, move in enumerate(moves):
            assert w.state.status == "live"
            await play(white if n % 2 == 0 else black, w if n % 2 == 0 else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
    assert (w.state.status, w.state.result, w.state.reason) == ("over", "Draw", "repetition")
    assert len(w.state.moves) == len(moves)


async def test_the_win_can_be_claimed_when_the_opponent_stays_away(
    start_server: StartServer,
) -> None:
    async with (
        start_server(disconnect_claim=0) as srv,
        srv.connect("ada") as white,
    ):
        async with srv.connect("bob") as black:
            game_id, _, _ = await start_game(white, black)
            await white.send(ClaimWin(game_id))
            assert await refused(white, game_id) == ErrorCode.NOT_ALLOWED
        await white.send(ClaimWin(game_id))
        end = await updated(white, game_id)
    assert (end.state.result, end.state.reason) == ("WhiteWins", "abandoned")


async def test_the_lobby_lists_open_games_and_games_in_progress(srv: Running) -> None:
    async with srv.connect("ada") as ada, srv.connect("bob") as bob, srv.connect("cy") as cy:
        await cy.send(WatchLobby())
        assert await cy.expect(Lobby) == Lobby([], [])
        await ada.send(CreateGame(game_type="Base+M", color="black"))
        created = await ada.expect(Update)
        lobby = await cy.expect(Lobby)
        assert [(g.id, g.game_type, g.creator_color) for g in lobby.open] == [
            (created.game, "Base+M", "black")
        ]
        await ada.send(JoinGame(created.game))
        assert await refused(ada, created.game) == ErrorCode.OWN_GAME
        await bob.send(JoinGame(created.game))
        lobby = await lobby_until(cy, lambda lobby: not lobby.open)
        assert [g.id for g in lobby.live] == [created.game]
        assert (lobby.open_total, lobby.live_total) == (0, 1)
        assert lobby.live[0].white is not None and lobby.live[0].white.name == "bob"
        await bob.send(CreateGame())
        other = await bob.expect(Update)
        while other.game == created.game:
            other = await bob.expect(Update)
        await ada.send(CancelGame(other.game))
        assert await refused(ada, other.game) == ErrorCode.NOT_YOUR_GAME
        await bob.send(CancelGame(other.game))
        cancelled = await updated(bob, other.game)
        assert cancelled.state.reason == "cancelled"
        await lobby_until(cy, lambda lobby: not lobby.open and lobby.open_total == 0)


async def test_a_refused_join_of_a_watched_game_leaves_the_watch_as_it_was(srv: Running) -> None:
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        await ada.send(CreateGame())
        created = await ada.expect(Update)
        await ada.send(JoinGame(created.game))
        assert await refused(ada, created.game) == ErrorCode.OWN_GAME
        await bob.send(JoinGame(created.game))
        joined = await updated(ada, created.game)
        assert [e.version for e in joined.events] == [2]  # not the events ada has seen again


@pytest.mark.parametrize("why", [ErrorCode.OWN_GAME, ErrorCode.NOT_OPEN])
async def test_a_refused_join_of_a_game_not_watched_leaves_no_watch(
    srv: Running, why: ErrorCode
) -> None:
    """A join refused (from another connection of the game's creator: its own game, or one
    already under way) leaves that connection out of the game: the game's next change reaches
    its watchers, not that connection. Once the change has been delivered here, a ping on the
    connection is answered after anything sent to it before: nothing was."""
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        await ada.send(CreateGame())
        game_id = (await ada.expect(Update)).game
        if why == ErrorCode.NOT_OPEN:
            await bob.send(JoinGame(game_id))
            await updated(ada, game_id)
        async with srv.connect(token=ada.welcome.token) as other:
            await other.send(JoinGame(game_id))
            assert await refused(other, game_id) == why
            await ada.send(Chat(game_id, "anyone there?"))
            await updated(ada, game_id)
            await until(lambda: not srv.hub.cache.sending.busy(game_id), "still delivering")
            await other.send(Ping(1.0))
            assert (await other.expect(Pong, strict=True)).t == 1.0


async def test_pass_is_played_when_it_is_the_only_move_and_refused_otherwise(
    srv: Running,
) -> None:
    moves = [
        "wA1",
        "bS1 wA1-",
        "wQ -wA1",
        "bQ bS1/",
        "wQ \\wA1",
        "bA1 bS1\\",
        "wQ -wA1",
        "bA2 bQ\\",
        "wQ \\wA1",
        "bA1 \\wQ",
        "wG1 /wQ",
        "bA2 /wG1",
    ]
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)
        await play(white, w, "pass")
        assert await refused(white, game_id) == ErrorCode.ILLEGAL_MOVE
        for n, move in enumerate(moves):
            await play(white if n % 2 == 0 else black, w if n % 2 == 0 else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
        assert w.state.must_pass and w.state.legal == [] and w.state.turn == "white"
        await play(white, w, "pass")
        b = await updated(black, game_id)
    assert b.state.moves[-1] == "pass" and b.state.turn == "black" and not b.state.must_pass


@pytest.mark.parametrize("processes", [1, 2])
async def test_two_rematch_offers_at_once_start_the_rematch(
    start_server: StartServer, processes: int
) -> None:
    """Both players ask for a rematch at the same moment (on one server process or two):
    the second request meets the first's offer and accepts it, whichever comes first."""
    async with start_server() as one, start_server() as two:
        other = one if processes == 1 else two
        async with one.connect("ada") as ada, other.connect("bob") as bob:
            game_id, _, _ = await start_game(ada, bob)
            await ada.send(Resign(game_id))
            await updated(ada, game_id)
            await updated(bob, game_id)
            await asyncio.gather(ada.send(Rematch(game_id)), bob.send(Rematch(game_id)))
            started = await until_update(ada, lambda u: u.game != game_id)
    assert started.state.status == "live"
    assert started.state.white is not None and started.state.white.name == "bob"


async def until_update(client: Client, holds: Callable[[Update], bool]) -> Update:
    while True:
        update = await client.expect(Update)
        if holds(update):
            return update


async def test_the_players_close_their_games_chat_to_spectators(srv: Running) -> None:
    async with srv.connect("ada") as ada, srv.connect("bob") as bob, srv.connect("cy") as cy:
        game_id, _, _ = await start_game(ada, bob)
        await watch(cy, game_id)
        await cy.send(Chat(game_id, "hi all"))
        await updated(cy, game_id)
        await cy.send(SpectatorChat(game_id, open=False))
        assert await refused(cy, game_id) == ErrorCode.NOT_YOUR_GAME
        await bob.send(SpectatorChat(game_id, open=False))
        closed = await updated(cy, game_id)
        assert [(e.kind, e.text) for e in closed.events] == [("spectator_chat", "closed")]
        assert closed.state.spectator_chat is False
        await cy.send(Chat(game_id, "let me in"))
        assert await refused(cy, game_id) == ErrorCode.NOT_ALLOWED
        await ada.send(Chat(game_id, "just us"))
        assert (await updated(cy, game_id)).events[0].text == "just us"
        await ada.send(SpectatorChat(game_id, open=True))
        assert (await updated(cy, game_id)).state.spectator_chat
        await cy.send(Chat(game_id, "thanks"))
        await updated(cy, game_id)


async def test_only_someone_who_chatted_in_a_game_may_be_muted(srv: Running) -> None:
    """A mute names its target: a player id that never chatted in the game (anyone's,
    even someone not in it) is refused, so no one's nickname is published by it."""
    async with srv.connect("ada") as ada, srv.connect("bob") as bob, srv.connect("dee") as dee:
        game_id, _, _ = await start_game(ada, bob)
        await ada.send(Mute(game_id, dee.player))
        error = await refusal(ada, game_id)
        assert error.code == ErrorCode.BAD_MESSAGE and "dee" not in error.message

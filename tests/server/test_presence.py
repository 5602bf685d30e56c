"""Who is at a game, pushed between updates: a spectator coming and going, and an opponent who
left, with the time from which the win may be claimed (the heartbeat's ``share_view`` pushes
it; the tests call it rather than wait for the heartbeat)."""

from __future__ import annotations

from protocol import ClaimWin, Error, ErrorCode, Presence
from server.game.clock import now_ms
from tests.server.conftest import StartServer
from tests.server.support import start_game, watch
from tests.support import until


async def test_a_spectator_is_counted_on_the_players_pages_without_a_move(
    start_server: StartServer,
) -> None:
    async with (
        start_server() as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, _, _ = await start_game(white, black)
        await srv.hub.presence.share_view()
        async with srv.connect("cy") as fan:
            await watch(fan, game_id)
            await srv.hub.presence.share_view()
            for player in (white, black):
                told = await player.expect(Presence)
                assert (told.game, told.spectators) == (game_id, 1)
        watchers = srv.hub.cache.watchers
        await until(lambda: len(watchers[game_id]) == 2, "cy still watches")
        await srv.hub.presence.share_view()  # cy has gone
        for player in (white, black):
            told = await player.expect(Presence)
            assert (told.game, told.spectators) == (game_id, 0)


async def test_an_opponent_who_left_is_pushed_with_when_the_win_may_be_claimed(
    start_server: StartServer,
) -> None:
    async with start_server(disconnect_claim=60) as srv, srv.connect("ada") as white:
        async with srv.connect("bob") as black:
            game_id, _, _ = await start_game(white, black)
            await srv.hub.presence.share_view()
            bob = black.welcome.player
        left = now_ms()
        presence = srv.hub.presence
        await until(lambda: bob in presence.came_or_went, "bob's leaving was not noted")
        await presence.share_view()
        told = await white.expect(Presence)
        assert told.game == game_id and told.white_gone is None
        assert told.black_gone is not None and abs(told.black_gone - left) < 5_000
        assert told.claim_after == 60_000
        await white.send(ClaimWin(game_id))  # too early: the server says so, as pushed
        error = await white.expect(Error)
        assert error.code == ErrorCode.NOT_ALLOWED and "may still come back" in error.message

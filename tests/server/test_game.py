"""Whole games through the real server: people, spectators, refusals, races, reconnects."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from hive import Game
from protocol import (
    Error,
    ErrorCode,
    Play,
    Update,
)
from protocol.client import Client, ServerError
from tests.server.conftest import Running
from tests.server.support import decisive_game, http_get, play, start_game, updated, watch


async def test_two_players_play_a_whole_game_to_a_win_and_a_spectator_sees_every_move(
    srv: Running,
) -> None:
    moves = decisive_game()
    async with srv.connect("ada") as white, srv.connect("bob") as black, srv.connect("cy") as fan:
        game_id, w, b = await start_game(white, black)
        seen = await watch(fan, game_id)
        assert seen.snapshot and seen.state.moves == []
        players = {0: (white, w), 1: (black, b)}
        spectated: list[str | None] = []
        for ply, move in enumerate(moves):
            client, last = players[ply % 2]
            await play(client, last, move)
            after_w = await updated(white, game_id)
            after_b = await updated(black, game_id)
            players = {0: (white, after_w), 1: (black, after_b)}
            spectator = await updated(fan, game_id)
            spectated += [e.text for e in spectator.events if e.kind == "move"]
            # all see one state; the legal moves go to the player to move only
            mover, other = (after_w, after_b) if ply % 2 else (after_b, after_w)
            if mover.state.status == "live":
                assert mover.state.legal or mover.state.must_pass
            assert other.state.legal == spectator.state.legal == []
            assert replace(mover.state, legal=[], must_pass=False) == other.state
            assert spectator.state == other.state
        final = players[0][1].state
    assert final.status == "over"
    assert final.result in ("WhiteWins", "BlackWins")
    assert final.reason == "queen"
    assert final.legal == []
    assert spectated == list(final.moves)
    replay = Game("Base")
    for move in moves:
        replay.play(move)
    assert final.moves == [m for m in replay.game_string().split(";")[3:]]
    status, kind, body = await http_get(f"{srv.http_url}/games/{game_id}.txt")
    assert (status, kind) == (200, "text/plain; charset=utf-8")
    assert Game.from_game_string(body.decode()).game_string() == replay.game_string()


async def test_refused_moves_get_their_code_and_change_nothing(srv: Running) -> None:
    async with srv.connect("ada") as white, srv.connect("bob") as black, srv.connect("cy") as cy:
        game_id, w, b = await start_game(white, black)
        refusals = [
            (black, Play(game_id, b.version, "bS1"), ErrorCode.NOT_YOUR_TURN),
            (cy, Play(game_id, w.version, "wS1"), ErrorCode.NOT_YOUR_GAME),
            (white, Play(game_id, w.version, "wQ"), ErrorCode.ILLEGAL_MOVE),
            (white, Play(game_id, w.version, "wS9"), ErrorCode.ILLEGAL_MOVE),
            (white, Play(game_id, w.version - 1, "wS1"), ErrorCode.STALE),
            (white, Play(game_id, w.version + 5, "wS1"), ErrorCode.STALE),
            (white, Play("zzzzzzzz", w.version, "wS1"), ErrorCode.UNKNOWN_GAME),
        ]
        for client, message, code in refusals:
            await client.send(message)
            try:
                await client.expect(Update)
            except ServerError as error:
                assert error.error.code == code, (message, error)
                assert error.error.request == "play"
            else:
                raise AssertionError(f"{message} was not refused")
        await white.send(Play(game_id, w.version, "wQ"))
        refusal = await _error(white)
        assert "Queen may not be placed on a player's first turn" in refusal.message
        snapshot = await watch(cy, game_id)
        assert snapshot.version == w.version and snapshot.state.moves == []
        await play(white, w, "wS1")
        assert (await updated(black, game_id)).state.moves == ["wS1"]


async def _error(client: Client) -> Error:
    try:
        await client.expect(Update)
    except ServerError as error:
        return error.error
    raise AssertionError("no error")


async def test_the_same_move_sent_twice_at_once_is_applied_once(srv: Running) -> None:
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, _ = await start_game(white, black)
        async with srv.connect(token=white.welcome.token) as again:
            move = Play(game_id, w.version, "wS1")
            await asyncio.gather(white.send(move), again.send(move))
            outcomes: list[Update | ErrorCode] = []
            for client in (white, again):
                try:
                    outcomes.append(await updated(client, game_id))
                except ServerError as error:
                    outcomes.append(error.error.code)
        after = await updated(black, game_id)
        assert after.state.moves == ["wS1"] and after.version == w.version + 1
        assert outcomes.count(ErrorCode.STALE) == 1
